"""Already-extracted records for ``KnowledgeGraph.import_records``: one JSON object per line.

Two kinds, told apart by ``kind``::

    {"kind": "entity", "ref": "p1", "type": "Person", "name": "Ada Lovelace",
     "attributes": {"born": "1815-12-10"}, "source": "crm-export"}
    {"kind": "relationship", "subject": "p1", "type": "WORKS_FOR", "object": "o1",
     "source": "crm-export"}

``ref`` is the caller's own identifier, unique within one import; relationships name their
endpoints by ``ref``. ``source`` groups records as a source of the graph, so a whole import
can later be deleted with ``delete_source``; it defaults to ``"import"``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue

from redstring.domain.ids import source_id
from redstring.domain.models import Text, TypeName
from redstring.domain.portable import check_json, check_json_depth, check_unicode


def _check_attributes(value: dict[str, JsonValue]) -> dict[str, JsonValue]:
    check_json_depth(value, what="attributes")
    check_json(value, what="attributes")
    return value


def _check_source(value: str) -> str:
    return source_id(value)


RecordAttributes = Annotated[dict[str, JsonValue], AfterValidator(_check_attributes)]
"""A record's attributes: JSON at most ``MAX_JSON_DEPTH`` levels deep, finite, UTF-8."""


def _check_description(value: str | None) -> str | None:
    if value is not None:
        check_unicode(value, what="description")
        if "\x00" in value:
            raise ValueError("description must not contain NUL characters")
    return value


Ref = Annotated[Text, Field(min_length=1, max_length=512)]
"""A record's own identifier within one import: non-blank UTF-8 text without NUL."""

Description = Annotated[str | None, AfterValidator(_check_description)]

RecordSource = Annotated[Text, AfterValidator(_check_source)]
"""The source a record belongs to: a printable source id (``domain.ids.source_id``)."""

DEFAULT_IMPORT_SOURCE = "import"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EntityRecord(_Record):
    """An entity the caller already knows: resolved against the graph like an extracted one."""

    kind: Literal["entity"] = "entity"
    ref: Ref
    type: TypeName
    name: Text
    attributes: RecordAttributes = Field(default_factory=dict)
    description: Description = None
    source: RecordSource = DEFAULT_IMPORT_SOURCE


class RelationshipRecord(_Record):
    """A relationship between two entity records of the same import, named by ``ref``."""

    kind: Literal["relationship"] = "relationship"
    subject: Ref
    type: TypeName
    object: Ref
    attributes: RecordAttributes = Field(default_factory=dict)
    source: RecordSource = DEFAULT_IMPORT_SOURCE


Record = Annotated[EntityRecord | RelationshipRecord, Field(discriminator="kind")]
"""One import record, either kind."""
