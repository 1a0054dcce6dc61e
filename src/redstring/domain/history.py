"""A tenant's history folded from its event log: who supports what, and why things merged.

The stores answer questions fast; the history answers "which evidence holds this entity up",
which a source deletion, a changed re-ingest and an unmerge need. It is a pure left fold over
the tenant's events (:meth:`TenantHistory.apply`), so any process can rebuild it from the log
and two processes folding the same log agree.

Entity and relationship *state* is a function of their evidence in log order
(:func:`entity_state`, :func:`relationship_state`); events carry the state they produced, and
the fold checks nothing, it records. Each entity's evidence is an
:class:`~redstring.domain.evidence_sets.EvidenceSet` whose summary stays current as evidence
is added, so folding an event costs the evidence it adds, not the evidence already held.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from pydantic import JsonValue

from redstring.domain.events import StoredEvent
from redstring.domain.evidence_sets import (
    DESCRIPTION_ATTRIBUTE,
    MAX_PROVENANCE_CHUNKS,
    EntitySummary,
    EvidenceSet,
    RelationshipSummary,
    SupportSet,
)
from redstring.domain.graph_events import (
    AliasAdded,
    EntitiesMerged,
    EntitiesUnmerged,
    EntityCreated,
    EntityEvidenceAdded,
    EntityRetracted,
    EntityUpdated,
    Evidence,
    PossibleMatchRecorded,
    RecordsImported,
    RelationshipAsserted,
    RelationshipRetracted,
    RelationshipSupportAdded,
    ResolutionWeightsEstimated,
    SourceDeleted,
    SourceIngested,
    Support,
    TenantDeleted,
    decode,
)
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId
from redstring.domain.models import Alias, Entity, Relationship
from redstring.domain.resolution.weights import LearnedWeights

__all__ = [
    "DESCRIPTION_ATTRIBUTE",
    "MAX_PROVENANCE_CHUNKS",
    "EntityHistory",
    "MergeRecord",
    "PossibleMatch",
    "RelationshipHistory",
    "SourceHistory",
    "TenantHistory",
    "add_evidence",
    "add_supports",
    "entity_state",
    "relationship_state",
    "without",
]


def entity_state(entity_id: EntityId, evidence: Sequence[Evidence]) -> tuple[Entity, list[str]]:
    """The entity that ``evidence`` (in log order, non-empty) describes, and its surface names.

    The name is the longest surface name (the earliest among equals); the type is the first
    evidence's; each attribute takes its first value; blocking keys cover every surface name.
    The same function as the summaries the history keeps up to date
    (:class:`~redstring.domain.evidence_sets.EntitySummary`), computed from scratch.
    """
    if not evidence:
        raise ValueError(f"entity {entity_id} has no evidence: retract it instead")
    return EntitySummary.of(evidence).state(entity_id)


def relationship_state(
    relationship_id: RelationshipId,
    relationship_type: str,
    subject_id: EntityId,
    object_id: EntityId,
    supports: Sequence[Support],
) -> Relationship:
    """The relationship ``supports`` (in log order, non-empty) describe."""
    if not supports:
        raise ValueError(f"relationship {relationship_id} has no support: retract it instead")
    return RelationshipSummary.of(supports).state(
        relationship_id, relationship_type, subject_id, object_id
    )


def add_evidence(existing: Sequence[Evidence], added: Iterable[Evidence]) -> list[Evidence]:
    """``existing`` plus ``added``, where a mention already recorded (same key) is replaced."""
    merged = {item.key: item for item in existing}
    for item in added:
        merged[item.key] = item
    return list(merged.values())


def add_supports(existing: Sequence[Support], added: Iterable[Support]) -> list[Support]:
    """``existing`` plus ``added``, where a statement already recorded is replaced."""
    merged = {item.key: item for item in existing}
    for item in added:
        merged[item.key] = item
    return list(merged.values())


_Item = TypeVar("_Item", Evidence, Support)


def without(
    items: Sequence[_Item],
    *,
    sources: Iterable[str] = (),
    chunks: Iterable[str] = (),
) -> list[_Item]:
    """``items`` minus those from any of ``sources`` or any of ``chunks``."""
    gone_sources, gone_chunks = set(sources), set(chunks)
    return [
        item
        for item in items
        if item.source_id not in gone_sources
        and (item.chunk_id is None or item.chunk_id not in gone_chunks)
    ]


@dataclass
class EntityHistory:
    """An entity as the log describes it: its state, surface names and every evidence."""

    entity: Entity
    names: list[str]
    items: EvidenceSet

    @property
    def evidence(self) -> list[Evidence]:
        """Every piece of evidence, in log order (a new list: this costs the evidence)."""
        return list(self.items)


@dataclass
class RelationshipHistory:
    """A relationship and every statement supporting it."""

    relationship: Relationship
    items: SupportSet

    @property
    def supports(self) -> list[Support]:
        """Every supporting statement, in log order (a new list)."""
        return list(self.items)


@dataclass
class SourceHistory:
    """A source as last ingested or imported."""

    source_id: SourceId
    content_hash: str | None = None
    metadata: dict[str, JsonValue] = field(default_factory=dict)
    chunk_ids: list[ChunkId] = field(default_factory=list)
    failed_chunk_ids: list[ChunkId] = field(default_factory=list)
    refs: dict[str, EntityId] = field(default_factory=dict)


@dataclass(frozen=True)
class MergeRecord:
    """A merge as the log recorded it, with the position of its event."""

    position: int
    winner_id: EntityId
    loser_id: EntityId
    loser_name: str
    score: float | None
    rule: str
    explanation: dict[str, JsonValue]
    loser_evidence: tuple[Evidence, ...] = ()
    undone: bool = False


@dataclass(frozen=True)
class PossibleMatch:
    """A pair kept apart for review."""

    position: int
    entity_id: EntityId
    candidate_id: EntityId
    score: float | None
    rule: str
    explanation: dict[str, JsonValue]


@dataclass
class TenantHistory:
    """The fold of one tenant's log up to :attr:`position`."""

    position: int = 0
    entities: dict[EntityId, EntityHistory] = field(default_factory=dict)
    aliases: dict[EntityId, Alias] = field(default_factory=dict)
    relationships: dict[RelationshipId, RelationshipHistory] = field(default_factory=dict)
    sources: dict[SourceId, SourceHistory] = field(default_factory=dict)
    merges: list[MergeRecord] = field(default_factory=list)
    possible_matches: list[PossibleMatch] = field(default_factory=list)
    deleted: bool = False
    events: int = 0
    entities_by_source: dict[SourceId, set[EntityId]] = field(default_factory=dict)
    relationships_by_source: dict[SourceId, set[RelationshipId]] = field(default_factory=dict)
    relationships_by_entity: dict[EntityId, set[RelationshipId]] = field(default_factory=dict)
    keep_apart: set[frozenset[EntityId]] = field(default_factory=set)
    weights: dict[str, LearnedWeights] = field(default_factory=dict)
    """The last resolution weights estimated per entity type (ADR 0035)."""
    records_imported: int = 0
    """Distinct record refs imported so far (each source's refs counted once)."""

    def apply_all(self, events: Iterable[StoredEvent]) -> None:
        """Fold every event in order."""
        for stored in events:
            self.apply(stored)

    def apply(self, stored: StoredEvent) -> None:
        """Fold one stored event (events at or before :attr:`position` are ignored)."""
        if stored.position <= self.position:
            return
        self.position = stored.position
        self.events += 1
        event = decode(stored)
        if isinstance(event, EntityCreated | EntityUpdated):
            self._entity(event)
        elif isinstance(event, EntityEvidenceAdded):
            known = self.entities.get(event.entity_id)
            if known is not None:
                known.items.add(event.evidence)
                self._index_entity(event.entity_id, event.evidence)
        elif isinstance(event, EntityRetracted):
            self.entities.pop(event.entity_id, None)
            self._drop_aliases_of(event.entity_id)
        elif isinstance(event, EntitiesMerged):
            self._merge(stored.position, event)
        elif isinstance(event, EntitiesUnmerged):
            self._unmerge(event)
        elif isinstance(event, AliasAdded):
            self.aliases[event.alias.alias_id] = event.alias
        elif isinstance(event, PossibleMatchRecorded):
            self.possible_matches.append(
                PossibleMatch(
                    position=stored.position,
                    entity_id=event.entity_id,
                    candidate_id=event.candidate_id,
                    score=event.score,
                    rule=event.rule,
                    explanation=event.explanation,
                )
            )
        elif isinstance(event, ResolutionWeightsEstimated):
            self.weights[event.entity_type] = LearnedWeights.from_json(event.weights)
        elif isinstance(event, RelationshipAsserted):
            self._relationship(event)
        elif isinstance(event, RelationshipSupportAdded):
            edge = self.relationships.get(event.relationship_id)
            if edge is not None:
                edge.items.add(event.supports)
                self._index_supports(event.relationship_id, event.supports)
        elif isinstance(event, RelationshipRetracted):
            self.relationships.pop(event.relationship_id, None)
        elif isinstance(event, SourceIngested):
            source = self.sources.setdefault(event.source_id, SourceHistory(event.source_id))
            source.content_hash = event.content_hash
            source.metadata = dict(event.metadata)
            source.chunk_ids = [chunk.id for chunk in event.chunks]
            source.failed_chunk_ids = list(event.failed_chunk_ids)
        elif isinstance(event, RecordsImported):
            source = self.sources.setdefault(event.source_id, SourceHistory(event.source_id))
            self.records_imported += len(event.refs.keys() - source.refs.keys())
            source.refs.update(event.refs)
        elif isinstance(event, SourceDeleted):
            self.sources.pop(event.source_id, None)
        elif isinstance(event, TenantDeleted):
            self.deleted = True

    def _entity(self, event: EntityCreated | EntityUpdated) -> None:
        entity_id = event.entity.id
        previous = self.entities.get(entity_id)
        items = previous.items if previous is not None else EvidenceSet()
        if isinstance(event, EntityUpdated) and (
            event.evidence_removed_sources or event.evidence_removed_chunks
        ):
            items.remove(
                sources=event.evidence_removed_sources, chunks=event.evidence_removed_chunks
            )
        items.add(event.evidence_added)
        self._index_entity(entity_id, event.evidence_added)
        # A decoded event is this fold's own: its models need no copy.
        self.entities[entity_id] = EntityHistory(
            entity=event.entity, names=list(event.names), items=items
        )

    def _merge(self, position: int, event: EntitiesMerged) -> None:
        loser = self.entities.pop(event.loser_id, None)
        winner = self.entities.get(event.winner_id)
        items = winner.items if winner is not None else EvidenceSet()
        moved = loser.evidence if loser is not None else []
        items.add(moved)
        self._index_entity(event.winner_id, moved)
        self.entities[event.winner_id] = EntityHistory(
            entity=event.entity, names=list(event.names), items=items
        )
        for alias in event.moved_aliases:
            self.aliases[alias.alias_id] = alias
        self.aliases[event.loser_id] = Alias(
            alias_id=event.loser_id, canonical_id=event.winner_id, name=event.loser_name
        )
        self.merges.append(
            MergeRecord(
                position=position,
                winner_id=event.winner_id,
                loser_id=event.loser_id,
                loser_name=event.loser_name,
                score=event.score,
                rule=event.rule,
                explanation=event.explanation,
                loser_evidence=tuple(moved),
            )
        )

    def _unmerge(self, event: EntitiesUnmerged) -> None:
        restored_id = event.restored.id
        self.aliases.pop(restored_id, None)
        winner = self.entities.get(event.winner_id)
        moved = {item.key for item in event.restored_evidence}
        kept = EvidenceSet(
            item for item in (winner.items if winner else ()) if item.key not in moved
        )
        self.entities[event.winner_id] = EntityHistory(
            entity=event.entity, names=list(event.names), items=kept
        )
        self.entities[restored_id] = EntityHistory(
            entity=event.restored,
            names=list(event.restored_names),
            items=EvidenceSet(event.restored_evidence),
        )
        self._index_entity(restored_id, event.restored_evidence)
        self.keep_apart.add(frozenset({event.winner_id, restored_id}))
        self.merges = [
            replace(record, undone=True) if record.loser_id == restored_id else record
            for record in self.merges
        ]

    def _index_entity(self, entity_id: EntityId, evidence: Iterable[Evidence]) -> None:
        # The indexes only ever grow; readers check membership against the live state, so a
        # stale entry costs a lookup and never a wrong answer.
        for item in evidence:
            self.entities_by_source.setdefault(item.source_id, set()).add(entity_id)

    def entities_supported_by(self, source_id: SourceId) -> list[EntityId]:
        """Live entities with at least one piece of evidence from ``source_id``, by id text."""
        found = [
            entity_id
            for entity_id in self.entities_by_source.get(source_id, ())
            if entity_id in self.entities and self.entities[entity_id].items.from_source(source_id)
        ]
        return sorted(found, key=str)

    def relationships_supported_by(self, source_id: SourceId) -> list[RelationshipId]:
        """Live relationships with at least one support from ``source_id``, by id text."""
        found = [
            relationship_id
            for relationship_id in self.relationships_by_source.get(source_id, ())
            if relationship_id in self.relationships
            and self.relationships[relationship_id].items.from_source(source_id)
        ]
        return sorted(found, key=str)

    def relationships_touching(self, entity_id: EntityId) -> list[RelationshipId]:
        """Live relationships with ``entity_id`` at either end, by id text."""
        found = []
        for relationship_id in self.relationships_by_entity.get(entity_id, ()):
            history = self.relationships.get(relationship_id)
            if history is not None and entity_id in (
                history.relationship.subject_id,
                history.relationship.object_id,
            ):
                found.append(relationship_id)
        return sorted(found, key=str)

    def _drop_aliases_of(self, entity_id: EntityId) -> None:
        for alias_id in [a for a, alias in self.aliases.items() if alias.canonical_id == entity_id]:
            del self.aliases[alias_id]

    def _relationship(self, event: RelationshipAsserted) -> None:
        relationship = event.relationship
        previous = self.relationships.get(relationship.id)
        items = previous.items if previous is not None else SupportSet()
        if event.support_removed_sources or event.support_removed_chunks:
            items.remove(sources=event.support_removed_sources, chunks=event.support_removed_chunks)
        items.add(event.support_added)
        self._index_supports(relationship.id, event.support_added)
        for end in (relationship.subject_id, relationship.object_id):
            self.relationships_by_entity.setdefault(end, set()).add(relationship.id)
        self.relationships[relationship.id] = RelationshipHistory(
            relationship=relationship, items=items
        )

    def _index_supports(self, relationship_id: RelationshipId, supports: Iterable[Support]) -> None:
        for support in supports:
            self.relationships_by_source.setdefault(support.source_id, set()).add(relationship_id)

    def resolve(self, entity_id: EntityId) -> EntityId | None:
        """The live entity ``entity_id`` denotes (itself or, for an alias, its canonical)."""
        if entity_id in self.entities:
            return entity_id
        alias = self.aliases.get(entity_id)
        return alias.canonical_id if alias is not None else None

    def aliases_of(self, entity_id: EntityId) -> list[Alias]:
        """Aliases pointing at ``entity_id``, ascending by alias id text."""
        found = [alias for alias in self.aliases.values() if alias.canonical_id == entity_id]
        return sorted(found, key=lambda alias: str(alias.alias_id))
