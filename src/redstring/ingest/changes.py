"""A write being planned: evidence added and removed, turned into domain events at the end.

A :class:`ChangeSet` starts from the tenant's folded history and records what one ingest,
import or deletion does to each entity's evidence and each relationship's support. Only at
:meth:`ChangeSet.events` does it compare the result with the history and emit the events:
``EntityCreated`` / ``EntityUpdated`` / ``EntityRetracted`` and ``RelationshipAsserted`` /
``RelationshipRetracted``. Working on evidence rather than on events is what lets a changed
passage keep an entity that both its old and new text mention: the removal and the addition
meet here, and the entity is updated, never retracted and re-created.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from redstring.domain.graph_events import (
    EntityCreated,
    EntityRetracted,
    EntityUpdated,
    Evidence,
    GraphEvent,
    RelationshipAsserted,
    RelationshipRetracted,
    Support,
    relationship_id_for,
)
from redstring.domain.history import (
    TenantHistory,
    add_evidence,
    add_supports,
    entity_state,
    relationship_state,
    without,
)
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId


@dataclass
class _Edge:
    type: str
    subject_id: EntityId
    object_id: EntityId
    supports: list[Support]


@dataclass(frozen=True)
class Outcome:
    """Counts of what the events of a change set do."""

    entities_created: int
    entities_updated: int
    entities_retracted: int
    relationships_asserted: int
    relationships_retracted: int


class ChangeSet:
    """Evidence and support changes against one tenant's history."""

    def __init__(self, history: TenantHistory) -> None:
        self._history = history
        self._evidence: dict[EntityId, list[Evidence]] = {}
        self._edges: dict[RelationshipId, _Edge] = {}
        self._removed_sources: set[SourceId] = set()
        self._removed_chunks: set[ChunkId] = set()
        self.outcome = Outcome(0, 0, 0, 0, 0)

    # -- entities -----------------------------------------------------------------------

    def evidence_of(self, entity_id: EntityId) -> list[Evidence]:
        """The entity's evidence as this change set currently has it."""
        if entity_id not in self._evidence:
            known = self._history.entities.get(entity_id)
            self._evidence[entity_id] = list(known.evidence) if known else []
        return self._evidence[entity_id]

    def add(self, entity_id: EntityId, evidence: Iterable[Evidence]) -> None:
        """Add evidence to an existing or a new entity."""
        self._evidence[entity_id] = add_evidence(self.evidence_of(entity_id), evidence)

    def is_live(self, entity_id: EntityId) -> bool:
        """True when the entity holds evidence in this change set's view."""
        return bool(self.evidence_of(entity_id))

    def remove_source(self, source_id: SourceId) -> None:
        """Withdraw every piece of evidence and support that ``source_id`` gave."""
        self._removed_sources.add(source_id)
        self._withdraw(source_id, sources=[source_id], chunks=())

    def remove_chunks(self, source_id: SourceId, chunk_ids: Iterable[ChunkId]) -> None:
        """Withdraw the evidence and support that these passages of ``source_id`` gave."""
        gone = set(chunk_ids)
        if gone:
            self._removed_chunks.update(gone)
            self._withdraw(source_id, sources=(), chunks=gone)

    def _withdraw(
        self, source_id: SourceId, *, sources: Iterable[str], chunks: Iterable[str]
    ) -> None:
        sources, chunks = list(sources), list(chunks)
        for entity_id in self._history.entities_supported_by(source_id):
            self._evidence[entity_id] = without(
                self.evidence_of(entity_id), sources=sources, chunks=chunks
            )
        for relationship_id in self._history.relationships_supported_by(source_id):
            edge = self._edge(relationship_id)
            if edge is not None:
                edge.supports = without(edge.supports, sources=sources, chunks=chunks)

    # -- relationships ------------------------------------------------------------------

    def _edge(self, relationship_id: RelationshipId) -> _Edge | None:
        if relationship_id not in self._edges:
            known = self._history.relationships.get(relationship_id)
            if known is None:
                return None
            relationship = known.relationship
            self._edges[relationship_id] = _Edge(
                relationship.type,
                relationship.subject_id,
                relationship.object_id,
                list(known.supports),
            )
        return self._edges[relationship_id]

    def assert_relationship(
        self,
        subject_id: EntityId,
        relationship_type: str,
        object_id: EntityId,
        support: Support,
    ) -> RelationshipId:
        """Add a statement of ``subject -type-> object``; returns the edge's id."""
        relationship_id = relationship_id_for(subject_id, relationship_type, object_id)
        edge = self._edge(relationship_id)
        if edge is None:
            edge = _Edge(relationship_type, subject_id, object_id, [])
            self._edges[relationship_id] = edge
        edge.supports = add_supports(edge.supports, [support])
        return relationship_id

    # -- events -------------------------------------------------------------------------

    def events(self) -> list[GraphEvent]:
        """The events that take the history to this change set's state, in applying order.

        Surviving entities are written first, then edges that lost their support or an
        endpoint are retracted, then dead entities, then the surviving edges: every edge
        written has both endpoints live at that moment.
        """
        entity_events: list[GraphEvent] = []
        retracted: list[GraphEvent] = []
        dead: set[EntityId] = set()
        created = updated = 0
        for entity_id in sorted(self._evidence, key=str):
            evidence = self._evidence[entity_id]
            known = self._history.entities.get(entity_id)
            if not evidence:
                if known is not None:
                    dead.add(entity_id)
                    retracted.append(EntityRetracted(entity_id=entity_id))
                continue
            entity, names = entity_state(entity_id, evidence)
            if known is None:
                created += 1
                entity_events.append(
                    EntityCreated(entity=entity, names=names, evidence_added=evidence)
                )
                continue
            before = {item.key: item for item in known.evidence}
            added = [item for item in evidence if before.get(item.key) != item]
            kept_keys = {item.key for item in evidence}
            lost = [item for item in known.evidence if item.key not in kept_keys]
            if not added and not lost and entity == known.entity:
                continue
            updated += 1
            entity_events.append(
                EntityUpdated(
                    entity=entity,
                    names=names,
                    evidence_added=added,
                    evidence_removed_sources=sorted(
                        {item.source_id for item in lost} & self._removed_sources
                    ),
                    evidence_removed_chunks=sorted(
                        {item.chunk_id for item in lost if item.chunk_id is not None}
                        & self._removed_chunks
                    ),
                )
            )
        for entity_id in dead:
            for relationship_id in self._history.relationships_touching(entity_id):
                self._edge(relationship_id)
        edge_events: list[GraphEvent] = []
        edge_retractions: list[GraphEvent] = []
        for relationship_id in sorted(self._edges, key=str):
            edge = self._edges[relationship_id]
            known_edge = self._history.relationships.get(relationship_id)
            alive = (
                edge.supports
                and edge.subject_id not in dead
                and edge.object_id not in dead
                and self.is_live(edge.subject_id)
                and self.is_live(edge.object_id)
            )
            if not alive:
                if known_edge is not None:
                    edge_retractions.append(RelationshipRetracted(relationship_id=relationship_id))
                continue
            relationship = relationship_state(
                relationship_id, edge.type, edge.subject_id, edge.object_id, edge.supports
            )
            if (
                known_edge is not None
                and known_edge.relationship == relationship
                and (known_edge.supports == edge.supports)
            ):
                continue
            previous = {item.key: item for item in known_edge.supports} if known_edge else {}
            current = {item.key for item in edge.supports}
            lost_supports = [item for key, item in previous.items() if key not in current]
            edge_events.append(
                RelationshipAsserted(
                    relationship=relationship,
                    support_added=[
                        item for item in edge.supports if previous.get(item.key) != item
                    ],
                    support_removed_sources=sorted(
                        {item.source_id for item in lost_supports} & self._removed_sources
                    ),
                    support_removed_chunks=sorted(
                        {item.chunk_id for item in lost_supports if item.chunk_id is not None}
                        & self._removed_chunks
                    ),
                )
            )
        self.outcome = Outcome(
            entities_created=created,
            entities_updated=updated,
            entities_retracted=len(retracted),
            relationships_asserted=len(edge_events),
            relationships_retracted=len(edge_retractions),
        )
        return entity_events + edge_retractions + retracted + edge_events
