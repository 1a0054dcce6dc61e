"""A tenant's history folded from its event log: who supports what, and why things merged.

The stores answer questions fast; the history answers "which evidence holds this entity up",
which a source deletion, a changed re-ingest and an unmerge need. It is a pure left fold over
the tenant's events (:meth:`TenantHistory.apply`), so any process can rebuild it from the log
and two processes folding the same log agree.

Entity and relationship *state* is a function of their evidence in log order
(:func:`entity_state`, :func:`relationship_state`); events carry the state they produced, and
the fold checks nothing, it records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from pydantic import JsonValue

from redstring.domain.blocking import attribute_keys, blocking_keys, place_keys
from redstring.domain.errors import EmptyTextError
from redstring.domain.events import StoredEvent
from redstring.domain.graph_events import (
    AliasAdded,
    EntitiesMerged,
    EntitiesUnmerged,
    EntityCreated,
    EntityRetracted,
    EntityUpdated,
    Evidence,
    PossibleMatchRecorded,
    RecordsImported,
    RelationshipAsserted,
    RelationshipRetracted,
    ResolutionWeightsEstimated,
    SourceDeleted,
    SourceIngested,
    Support,
    TenantDeleted,
    decode,
)
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId
from redstring.domain.models import Alias, Entity, Provenance, Relationship
from redstring.domain.resolution.weights import LearnedWeights

MAX_PROVENANCE_CHUNKS = 32
"""An entity's provenance names at most this many passages; the history holds them all."""

DESCRIPTION_ATTRIBUTE = "description"


def _distinct(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def entity_state(entity_id: EntityId, evidence: Sequence[Evidence]) -> tuple[Entity, list[str]]:
    """The entity that ``evidence`` (in log order, non-empty) describes, and its surface names.

    The name is the longest surface name (the earliest among equals); the type is the first
    evidence's; each attribute takes its first value; blocking keys cover every surface name.
    """
    if not evidence:
        raise ValueError(f"entity {entity_id} has no evidence: retract it instead")
    first = evidence[0]
    names = _distinct(item.name for item in evidence)
    name = max(names, key=lambda candidate: (len(candidate), -names.index(candidate)))
    attributes: dict[str, JsonValue] = {}
    for item in evidence:
        for key, value in item.attributes.items():
            attributes.setdefault(key, value)
    description = next((item.description for item in evidence if item.description), None)
    if description:
        attributes.setdefault(DESCRIPTION_ATTRIBUTE, description)
    keys: set[str] = set()
    for surface in names:
        try:
            keys.update(blocking_keys(first.type, surface))
        except EmptyTextError:
            continue
    for item in evidence:
        keys.update(attribute_keys(first.type, item.attributes))
        keys.update(place_keys(first.type, item.name, item.attributes))
    chunks = _distinct(item.chunk_id for item in evidence if item.chunk_id is not None)
    entity = Entity(
        id=entity_id,
        type=first.type,
        name=name,
        attributes=attributes,
        blocking_keys=tuple(sorted(keys)),
        provenance=Provenance(
            source_id=first.source_id,
            chunk_ids=tuple(ChunkId(chunk) for chunk in chunks[:MAX_PROVENANCE_CHUNKS]),
            model=next((item.model for item in evidence if item.model), None),
        ),
    )
    return entity, names


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
    first = supports[0]
    attributes: dict[str, JsonValue] = {}
    for item in supports:
        for key, value in item.attributes.items():
            attributes.setdefault(key, value)
    description = next((item.description for item in supports if item.description), None)
    if description:
        attributes.setdefault(DESCRIPTION_ATTRIBUTE, description)
    chunks = _distinct(item.chunk_id for item in supports if item.chunk_id is not None)
    return Relationship(
        id=relationship_id,
        type=relationship_type,
        subject_id=subject_id,
        object_id=object_id,
        attributes=attributes,
        provenance=Provenance(
            source_id=first.source_id,
            chunk_ids=tuple(ChunkId(chunk) for chunk in chunks[:MAX_PROVENANCE_CHUNKS]),
            model=next((item.model for item in supports if item.model), None),
        ),
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
    evidence: list[Evidence]


@dataclass
class RelationshipHistory:
    """A relationship and every statement supporting it."""

    relationship: Relationship
    supports: list[Support]


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
        evidence = previous.evidence if previous is not None else []
        if isinstance(event, EntityUpdated):
            evidence = list(
                without(
                    evidence,
                    sources=event.evidence_removed_sources,
                    chunks=event.evidence_removed_chunks,
                )
            )
        evidence = add_evidence(evidence, event.evidence_added)
        self._index_entity(entity_id, evidence)
        self.entities[entity_id] = EntityHistory(
            entity=event.entity.model_copy(deep=True), names=list(event.names), evidence=evidence
        )

    def _merge(self, position: int, event: EntitiesMerged) -> None:
        loser = self.entities.pop(event.loser_id, None)
        winner = self.entities.get(event.winner_id)
        evidence = (winner.evidence if winner else []) + (loser.evidence if loser else [])
        self._index_entity(event.winner_id, evidence)
        self.entities[event.winner_id] = EntityHistory(
            entity=event.entity.model_copy(deep=True),
            names=list(event.names),
            evidence=add_evidence([], evidence),
        )
        for alias in event.moved_aliases:
            self.aliases[alias.alias_id] = alias.model_copy(deep=True)
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
                loser_evidence=tuple(loser.evidence if loser else ()),
            )
        )

    def _unmerge(self, event: EntitiesUnmerged) -> None:
        restored_id = event.restored.id
        self.aliases.pop(restored_id, None)
        winner = self.entities.get(event.winner_id)
        moved = {item.key for item in event.restored_evidence}
        kept = [item for item in (winner.evidence if winner else []) if item.key not in moved]
        self.entities[event.winner_id] = EntityHistory(
            entity=event.entity.model_copy(deep=True), names=list(event.names), evidence=kept
        )
        self.entities[restored_id] = EntityHistory(
            entity=event.restored.model_copy(deep=True),
            names=list(event.restored_names),
            evidence=list(event.restored_evidence),
        )
        self._index_entity(restored_id, event.restored_evidence)
        self.keep_apart.add(frozenset({event.winner_id, restored_id}))
        self.merges = [
            replace(record, undone=True) if record.loser_id == restored_id else record
            for record in self.merges
        ]

    def _index_entity(self, entity_id: EntityId, evidence: Sequence[Evidence]) -> None:
        # The indexes only ever grow; readers check membership against the live state, so a
        # stale entry costs a lookup and never a wrong answer.
        for item in evidence:
            self.entities_by_source.setdefault(item.source_id, set()).add(entity_id)

    def entities_supported_by(self, source_id: SourceId) -> list[EntityId]:
        """Live entities with at least one piece of evidence from ``source_id``, by id text."""
        found = [
            entity_id
            for entity_id in self.entities_by_source.get(source_id, ())
            if entity_id in self.entities
            and any(item.source_id == source_id for item in self.entities[entity_id].evidence)
        ]
        return sorted(found, key=str)

    def relationships_supported_by(self, source_id: SourceId) -> list[RelationshipId]:
        """Live relationships with at least one support from ``source_id``, by id text."""
        found = [
            relationship_id
            for relationship_id in self.relationships_by_source.get(source_id, ())
            if relationship_id in self.relationships
            and any(
                item.source_id == source_id for item in self.relationships[relationship_id].supports
            )
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
        supports = previous.supports if previous is not None else []
        supports = list(
            without(
                supports,
                sources=event.support_removed_sources,
                chunks=event.support_removed_chunks,
            )
        )
        supports = add_supports(supports, event.support_added)
        for support in supports:
            self.relationships_by_source.setdefault(support.source_id, set()).add(relationship.id)
        for end in (relationship.subject_id, relationship.object_id):
            self.relationships_by_entity.setdefault(end, set()).add(relationship.id)
        self.relationships[relationship.id] = RelationshipHistory(
            relationship=relationship.model_copy(deep=True), supports=supports
        )

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
