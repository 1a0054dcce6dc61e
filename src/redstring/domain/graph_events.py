"""The graph's domain events: what the event log records and every store is projected from.

Each event is a pydantic model with a ``TYPE`` (the log's event type) and a payload version
``v``. Events carry the *resulting state* of what they change (a whole entity, a whole
relationship), so a projection applies them by writing, never by computing, and replaying a
prefix twice changes nothing. Evidence deltas ride along so the history (who supports what)
can be folded from the log alone. Where the state did not change, an event says only what
was added (``EntityEvidenceAdded``, ``RelationshipSupportAdded``; ADR 0038) and no store is
written.

Shapes are a stored format: change one only by adding a new version and an upcaster in
:data:`UPCASTERS`, never by editing a released shape (see ``docs/adr/0016``).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from redstring.domain.chunks import StoredChunk
from redstring.domain.events import NewEvent, StoredEvent
from redstring.domain.extraction import Extraction
from redstring.domain.ids import ChunkId, EntityId, EventId, RelationshipId, SourceId, TenantId
from redstring.domain.models import Alias, Entity, Relationship

GRAPH_STREAM = "graph"
"""The one stream per tenant that every graph decision is appended to, with optimistic
concurrency: two writers deciding on the same version cannot both commit."""

EXTRACTION_STREAM_PREFIX = "extraction:"
"""Extraction results of a passage live in the stream ``extraction:<chunk_id>``."""

_NAMESPACE = uuid.UUID("6f1d8a52-3c1e-4b0a-9d57-2a8f0c4e9b13")


class Evidence(BaseModel):
    """One mention supporting an entity: where it came from and what it said.

    ``chunk_id`` is set for a mention extracted from a passage, ``ref`` for an imported
    record; :attr:`key` identifies the mention, so recording it twice changes nothing.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    source_id: SourceId
    chunk_id: ChunkId | None = None
    ref: str | None = None
    name: str
    type: str
    description: str | None = None
    attributes: dict[str, JsonValue] = Field(default_factory=dict)
    model: str | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What makes two pieces of evidence the same mention."""
        return (self.source_id, self.chunk_id or "", self.ref or "", self.name)


class Support(BaseModel):
    """One statement supporting a relationship."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source_id: SourceId
    chunk_id: ChunkId | None = None
    ref: str | None = None
    description: str | None = None
    attributes: dict[str, JsonValue] = Field(default_factory=dict)
    model: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two supports the same statement."""
        return (self.source_id, self.chunk_id or "", self.ref or "")


class GraphEvent(BaseModel):
    """Base of every domain event: a type name for the log and a payload version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    TYPE: ClassVar[str]
    v: int = 1


class SourceIngested(GraphEvent):
    """A source now holds exactly ``chunks`` (with the entities resolved from each)."""

    TYPE: ClassVar[str] = "SourceIngested"
    source_id: SourceId
    content_hash: str
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    chunks: list[StoredChunk]
    removed_chunk_ids: list[ChunkId] = Field(default_factory=list)
    failed_chunk_ids: list[ChunkId] = Field(default_factory=list)


class RecordsImported(GraphEvent):
    """Records were imported under ``source_id``; ``refs`` maps each ref to its entity."""

    TYPE: ClassVar[str] = "RecordsImported"
    source_id: SourceId
    refs: dict[str, EntityId]


class SourceDeleted(GraphEvent):
    """The source and its passages are gone; the facts only it supported were retracted."""

    TYPE: ClassVar[str] = "SourceDeleted"
    source_id: SourceId


class EntityCreated(GraphEvent):
    """A new entity, whole, with the evidence that created it and its surface names."""

    TYPE: ClassVar[str] = "EntityCreated"
    entity: Entity
    names: list[str]
    evidence_added: list[Evidence]


class EntityUpdated(GraphEvent):
    """An entity's new whole state after evidence was added to or removed from it."""

    TYPE: ClassVar[str] = "EntityUpdated"
    entity: Entity
    names: list[str]
    evidence_added: list[Evidence] = Field(default_factory=list)
    evidence_removed_sources: list[SourceId] = Field(default_factory=list)
    evidence_removed_chunks: list[ChunkId] = Field(default_factory=list)


class EntityEvidenceAdded(GraphEvent):
    """Evidence was added to an entity and its state did not change: no store changes.

    Written instead of :class:`EntityUpdated` once an entity's state has stopped moving (its
    provenance names its first passages, its names and attributes are all known), so a
    mention of a much-mentioned entity is recorded in the size of the mention.
    """

    TYPE: ClassVar[str] = "EntityEvidenceAdded"
    entity_id: EntityId
    evidence: list[Evidence]


class EntityRetracted(GraphEvent):
    """No evidence supports the entity any more: it leaves every store."""

    TYPE: ClassVar[str] = "EntityRetracted"
    entity_id: EntityId


class EntitiesMerged(GraphEvent):
    """``loser`` became an alias of ``winner``; ``entity`` is the winner's new state.

    ``moved_aliases`` were aliases of the loser and now point at the winner. ``score``,
    ``rule`` and ``explanation`` say why the merge was made.
    """

    TYPE: ClassVar[str] = "EntitiesMerged"
    winner_id: EntityId
    loser_id: EntityId
    loser_name: str
    entity: Entity
    names: list[str]
    moved_aliases: list[Alias] = Field(default_factory=list)
    score: float | None = None
    rule: str
    explanation: dict[str, JsonValue] = Field(default_factory=dict)


class EntitiesUnmerged(GraphEvent):
    """A merge was undone: ``restored`` is the loser again, ``entity`` the winner's new state.

    The pair is kept apart from now on (a do-not-merge constraint). ``restored_chunks`` are
    the passages whose mention goes back to the restored entity; ``winner_left_chunks`` are
    those the winner no longer appears in.
    """

    TYPE: ClassVar[str] = "EntitiesUnmerged"
    winner_id: EntityId
    restored: Entity
    restored_names: list[str]
    restored_evidence: list[Evidence]
    entity: Entity
    names: list[str]
    restored_chunks: list[ChunkId] = Field(default_factory=list)
    winner_left_chunks: list[ChunkId] = Field(default_factory=list)


class AliasAdded(GraphEvent):
    """An id now resolves to another entity."""

    TYPE: ClassVar[str] = "AliasAdded"
    alias: Alias


class PossibleMatchRecorded(GraphEvent):
    """A mention scored between the thresholds against an entity: kept apart, for review."""

    TYPE: ClassVar[str] = "PossibleMatchRecorded"
    entity_id: EntityId
    candidate_id: EntityId
    score: float | None = None
    rule: str
    explanation: dict[str, JsonValue] = Field(default_factory=dict)


class ResolutionWeightsEstimated(GraphEvent):
    """The m and u probabilities the tenant's records gave for one entity type (ADR 0035).

    ``weights`` is ``LearnedWeights.to_json()``. Every decision after this event, until the
    next one for the type, scores with these weights, so replaying the log reproduces them.
    """

    TYPE: ClassVar[str] = "ResolutionWeightsEstimated"
    entity_type: str
    weights: dict[str, JsonValue]


class RelationshipAsserted(GraphEvent):
    """A relationship's whole new state, with the support added."""

    TYPE: ClassVar[str] = "RelationshipAsserted"
    relationship: Relationship
    support_added: list[Support] = Field(default_factory=list)
    support_removed_sources: list[SourceId] = Field(default_factory=list)
    support_removed_chunks: list[ChunkId] = Field(default_factory=list)


class RelationshipSupportAdded(GraphEvent):
    """Statements were added to a relationship and its state did not change."""

    TYPE: ClassVar[str] = "RelationshipSupportAdded"
    relationship_id: RelationshipId
    supports: list[Support]


class RelationshipRetracted(GraphEvent):
    """Nothing supports the relationship any more (or an endpoint merged away)."""

    TYPE: ClassVar[str] = "RelationshipRetracted"
    relationship_id: RelationshipId


class TenantDeleted(GraphEvent):
    """The tenant is being erased; a crash after this event finishes the erasure next time."""

    TYPE: ClassVar[str] = "TenantDeleted"


class ChunkExtracted(GraphEvent):
    """What the extractor ``identity`` found in a passage: re-used instead of asking again."""

    TYPE: ClassVar[str] = "ChunkExtracted"
    chunk_id: ChunkId
    identity: str
    model: str
    extraction: Extraction


class ChunkExtractionFailed(GraphEvent):
    """Extraction of a passage failed; the next ingest of its source retries it."""

    TYPE: ClassVar[str] = "ChunkExtractionFailed"
    chunk_id: ChunkId
    identity: str
    model: str
    error_type: str
    message: str


EVENT_TYPES: dict[str, type[GraphEvent]] = {
    cls.TYPE: cls
    for cls in (
        SourceIngested,
        RecordsImported,
        SourceDeleted,
        EntityCreated,
        EntityUpdated,
        EntityEvidenceAdded,
        EntityRetracted,
        EntitiesMerged,
        EntitiesUnmerged,
        AliasAdded,
        PossibleMatchRecorded,
        ResolutionWeightsEstimated,
        RelationshipAsserted,
        RelationshipSupportAdded,
        RelationshipRetracted,
        TenantDeleted,
        ChunkExtracted,
        ChunkExtractionFailed,
    )
}

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}
"""``(type, v)`` -> a function turning that payload into version ``v + 1``."""


def decode(stored: StoredEvent) -> GraphEvent | None:
    """The domain event a stored event holds, upcast to its current version.

    Returns ``None`` for a type this version of redstring does not know (written by a newer
    one, or by someone else sharing the log), so readers skip rather than fail.
    """
    cls = EVENT_TYPES.get(stored.type)
    if cls is None:
        return None
    payload: dict[str, Any] = dict(stored.payload)
    version = int(payload.get("v", 1))
    while (stored.type, version) in UPCASTERS:
        payload = UPCASTERS[(stored.type, version)](payload)
        version += 1
        payload["v"] = version
    return cls.model_validate(payload)


def payload_of(event: GraphEvent) -> dict[str, JsonValue]:
    """The event's JSON payload, as stored."""
    dumped: dict[str, JsonValue] = event.model_dump(mode="json")
    return dumped


def encode(tenant: TenantId, slot: str, event: GraphEvent) -> NewEvent:
    """A ``NewEvent`` whose id is derived from the tenant, a slot and the content.

    The same content appended at the same slot gets the same id, so re-appending it after a
    crash is a no-op; different content at the same slot gets a different id, so two writers
    racing for one slot conflict instead of one silently receiving the other's events.
    """
    payload = payload_of(event)
    digest = hashlib.sha256(
        json.dumps([event.TYPE, payload], sort_keys=True, separators=(",", ":")).encode("utf-8")
    ).hexdigest()
    event_id = EventId(uuid.uuid5(_NAMESPACE, f"{tenant}\x1f{slot}\x1f{digest}"))
    return NewEvent(event_id=event_id, type=event.TYPE, payload=payload)


def encode_batch(
    tenant: TenantId, stream: str, first_version: int, events: Sequence[GraphEvent]
) -> list[NewEvent]:
    """Encode ``events`` for the stream slots ``first_version``, ``first_version + 1``, ..."""
    return [
        encode(tenant, f"{stream}#{first_version + offset}", event)
        for offset, event in enumerate(events)
    ]


def derived_id(*parts: str) -> uuid.UUID:
    """A UUID derived from ``parts``: the same parts always give the same id."""
    return uuid.uuid5(_NAMESPACE, "\x1f".join(parts))


def relationship_id_for(
    subject_id: EntityId, relationship_type: str, object_id: EntityId
) -> RelationshipId:
    """The id of the edge ``subject -type-> object``: one edge per triple, many supports."""
    return RelationshipId(derived_id("rel", str(subject_id), relationship_type, str(object_id)))
