"""What an extractor returns for one passage: entity mentions and the relationships between them.

This is the shape both extractors fill (``LlmExtractor`` from a model's structured output, the
offline ``SpacyExtractor`` from a parse) and the shape recorded in the event log, so that a
re-ingest or a rebuild never asks the extractor again. Relationships name their endpoints by
the ``name`` of an entity mention of the same extraction.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from redstring.domain.models import Text, TypeName


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExtractedEntity(_Model):
    """An entity mentioned in the passage, as the extractor named and typed it."""

    name: Text
    type: TypeName
    description: str | None = None
    attributes: dict[str, JsonValue] = Field(default_factory=dict)


class ExtractedRelationship(_Model):
    """A typed, directed relationship between two mentions, named by their ``name``."""

    subject: Text
    type: TypeName
    object: Text
    description: str | None = None


DROP_REASONS = (
    "ungrounded_entity",
    "unknown_entity_type",
    "unknown_relationship_type",
    "relationship_pattern",
    "dangling_relationship",
    "junk_markup",
    "junk_path",
    "junk_code",
    "junk_number",
    "junk_heading",
    "junk_phrase",
    "junk_handle",
    "junk_common_noun",
)
"""Why an extractor may drop what it found before returning it (keys of ``Extraction.dropped``)."""


class Extraction(_Model):
    """Everything one extractor call found in one passage (possibly nothing).

    ``dropped`` counts what the extractor found but did not return, by reason (one of
    :data:`DROP_REASONS`): an ingest adds these counts to its report's ``dropped``. Zero
    counts are never stored, so an extraction that dropped nothing has an empty mapping.
    """

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relationships: list[ExtractedRelationship] = Field(default_factory=list)
    dropped: dict[str, int] = Field(default_factory=dict)
