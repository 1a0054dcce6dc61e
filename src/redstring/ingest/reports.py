"""What the application services report: plain, JSON-serialisable pydantic models.

Every report is deterministic for the same input and the same prior state, so a test (or a
script reading ``--json``) can compare them whole.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, SourceId
from redstring.domain.models import Alias, Entity, Relationship


class _Report(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FailedChunk(_Report):
    """A passage whose extraction failed; the next ingest of its source retries only these."""

    chunk_id: ChunkId
    chunk_index: int
    error_type: str
    message: str


class IngestReport(_Report):
    """What one ``ingest`` call did.

    ``unchanged`` is true when the source already held exactly this text: nothing was
    extracted, resolved or written. ``model_calls`` counts extractor calls made by this call
    (re-used extractions from the log cost none). ``relationships`` counts the relationship
    statements stored (a statement of a relationship the graph already holds adds support to
    it); ``relationships_created`` counts only the relationships that are new, so over a
    fresh tenant the sum of it is what ``stats`` reports. ``dropped`` counts extracted items
    that were not stored, by reason (``unknown_entity_type``, ``unknown_relationship_type``,
    ``relationship_pattern``, ``dangling_relationship``, ``invalid``, ...), the extractor's own
    drops included (the offline one's ``junk_*`` reasons: candidates that are not names, see
    :mod:`redstring.extraction.junk`). ``type_conflict`` counts mentions whose type was
    outvoted: they joined the type their name has across the document and the tenant
    (:mod:`redstring.domain.type_votes`) instead of forming an entity of their own.
    ``passages_without_vector`` counts passages stored without a passage vector because the
    embedding model gives them no direction: lexical search and the graph still find them.
    """

    source_id: SourceId
    unchanged: bool = False
    chunks: int = 0
    chunks_new: int = 0
    chunks_removed: int = 0
    model_calls: int = 0
    extractions_reused: int = 0
    entities_created: int = 0
    entities_matched: int = 0
    relationships: int = 0
    relationships_created: int = 0
    dropped: dict[str, int] = Field(default_factory=dict)
    failed_chunks: list[FailedChunk] = Field(default_factory=list)
    model: str | None = None
    passages_without_vector: int = 0


class ImportReport(_Report):
    """What one ``import_records`` call did; ``refs`` maps every entity ref to its entity."""

    records: int = 0
    entities_created: int = 0
    entities_matched: int = 0
    relationships: int = 0
    refs: dict[str, EntityId] = Field(default_factory=dict)
    dropped: dict[str, int] = Field(default_factory=dict)


class DeleteReport(_Report):
    """What ``delete_source`` removed: passages, and facts no other source supports."""

    source_id: SourceId
    existed: bool
    chunks_removed: int = 0
    entities_removed: int = 0
    entities_updated: int = 0
    relationships_removed: int = 0


class SourceInfo(_Report):
    """One source of a tenant's graph."""

    source_id: SourceId
    chunks: int
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


class GraphStats(_Report):
    """Counts over one tenant's graph as the projections hold it."""

    sources: int = 0
    chunks: int = 0
    entities: int = 0
    entities_by_type: dict[str, int] = Field(default_factory=dict)
    relationships: int = 0
    relationships_by_type: dict[str, int] = Field(default_factory=dict)
    aliases: int = 0
    events: int = 0


class SnapshotEntity(_Report):
    """An entity with what remains of merges into it and the evidence that supports it."""

    entity: Entity
    aliases: list[Alias] = Field(default_factory=list)
    sources: list[SourceId] = Field(default_factory=list)
    import_refs: list[str] = Field(default_factory=list)
    names: list[str] = Field(default_factory=list)
    """Every surface form the entity's evidence names it by, first seen first."""


class GraphSnapshot(_Report):
    """A tenant's whole graph in a deterministic order (entities and relationships by id text,
    passages by source then index); ``model_dump(mode="json")`` is its JSON export."""

    tenant_id: str
    entities: list[SnapshotEntity] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    passages: list[StoredChunk] = Field(default_factory=list)


class MergeInfo(_Report):
    """One merge: which entity absorbed which, and why (``undone`` after an unmerge)."""

    winner_id: EntityId
    winner_name: str | None
    loser_id: EntityId
    loser_name: str
    rule: str
    score: float | None = None
    explanation: dict[str, JsonValue] = Field(default_factory=dict)
    undone: bool = False


class PossibleMatchInfo(_Report):
    """A pair scored between the thresholds and kept apart, for a person to review."""

    entity_id: EntityId
    entity_name: str | None
    candidate_id: EntityId
    candidate_name: str | None
    rule: str
    score: float | None = None
    explanation: dict[str, JsonValue] = Field(default_factory=dict)
