"""A write being planned: evidence added and removed, turned into domain events at the end.

A :class:`ChangeSet` starts from the tenant's folded history and records what one ingest,
import or deletion does to each entity's evidence and each relationship's support. Only at
:meth:`ChangeSet.events` does it compare the result with the history and emit the events:
``EntityCreated`` / ``EntityUpdated`` / ``EntityEvidenceAdded`` / ``EntityRetracted`` and
``RelationshipAsserted`` / ``RelationshipSupportAdded`` / ``RelationshipRetracted``. Working
on evidence rather than on events is what lets a changed passage keep an entity that both its
old and new text mention: the removal and the addition meet here, and the entity is updated,
never retracted and re-created.

What it costs: a change that only adds (every first ingest) keeps, per entity, the evidence
it adds beside the history's and folds it into a copy of the history's summary, so planning
costs the mentions planned, not the evidence the entity already has. A change that removes
(a deleted source, a re-extracted passage) copies the evidence of each entity it removes
from, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from redstring.domain.evidence_sets import (
    EntitySummary,
    EvidenceSet,
    ItemSet,
    RelationshipSummary,
    Summary,
    SupportSet,
)
from redstring.domain.graph_events import (
    EntityCreated,
    EntityEvidenceAdded,
    EntityRetracted,
    EntityUpdated,
    Evidence,
    GraphEvent,
    RelationshipAsserted,
    RelationshipRetracted,
    RelationshipSupportAdded,
    Support,
    relationship_id_for,
)
from redstring.domain.history import TenantHistory
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId
from redstring.domain.models import Entity

ItemT = TypeVar("ItemT", Evidence, Support)


class _Draft(Generic[ItemT]):
    """One entity's evidence (or one edge's support) as the change set has it.

    Until something is withdrawn it is the history's set (never changed here) plus the items
    added; the first withdrawal makes a private copy.
    """

    def __init__(self, base: ItemSet[ItemT] | None, empty: Callable[[], ItemSet[ItemT]]) -> None:
        self.base: ItemSet[ItemT] | None = base
        self._empty: Callable[[], ItemSet[ItemT]] = empty
        self.own: ItemSet[ItemT] | None = None
        self.added: dict[tuple[str, ...], ItemT] = {}

    def add(self, items: Iterable[ItemT]) -> None:
        if self.own is not None:
            self.own.add(items)
            return
        for item in items:
            self.added[item.key] = item

    def withdraw(self, *, sources: Iterable[str], chunks: Iterable[str]) -> None:
        if self.own is None:
            own = self.base.copy() if self.base is not None else self._empty()
            own.add(self.added.values())
            self.own, self.added = own, {}
        self.own.remove(sources=sources, chunks=chunks)

    def live(self) -> bool:
        if self.own is not None:
            return bool(self.own)
        return bool(self.added) or bool(self.base)

    def first(self) -> ItemT:
        if self.own is not None:
            return self.own.first()
        if self.base:
            return self.base.first()
        return next(iter(self.added.values()))

    def delta(self) -> tuple[list[ItemT], list[ItemT], Summary[ItemT]]:
        """The items new or changed against the history, those lost, and the summary."""
        base = self.base
        if self.own is not None:
            before = base if base is not None else self._empty()
            own = self.own
            fresh = [item for item in own if not before.holds(item)]
            lost = [item for item in before if not own.has_key(item.key)]
            return fresh, lost, own.folded()
        fresh = [item for item in self.added.values() if base is None or not base.holds(item)]
        if base is not None and any(base.has_key(item.key) for item in fresh):
            # A recorded mention changed in place: it sits before the summary's last item,
            # so the whole evidence is folded again (rare: a re-import with new attributes).
            merged = base.copy()
            merged.add(fresh)
            return fresh, [], merged.folded()
        summary = base.folded().copy() if base is not None else self._empty().folded()
        for item in fresh:
            summary.add(item)
        return fresh, [], summary


@dataclass
class _Edge:
    type: str
    subject_id: EntityId
    object_id: EntityId
    supports: _Draft[Support]


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
        self._entities: dict[EntityId, _Draft[Evidence]] = {}
        self._edges: dict[RelationshipId, _Edge] = {}
        self._removed_sources: set[SourceId] = set()
        self._removed_chunks: set[ChunkId] = set()
        self.outcome = Outcome(0, 0, 0, 0, 0)

    # -- entities -----------------------------------------------------------------------

    def _draft(self, entity_id: EntityId) -> _Draft[Evidence]:
        found = self._entities.get(entity_id)
        if found is not None:
            return found
        known = self._history.entities.get(entity_id)
        draft: _Draft[Evidence] = _Draft(known.items if known else None, EvidenceSet)
        self._entities[entity_id] = draft
        return draft

    def add(self, entity_id: EntityId, evidence: Iterable[Evidence]) -> None:
        """Add evidence to an existing or a new entity."""
        self._draft(entity_id).add(evidence)

    def is_live(self, entity_id: EntityId) -> bool:
        """True when the entity holds evidence in this change set's view."""
        draft = self._entities.get(entity_id)
        if draft is not None:
            return draft.live()
        known = self._history.entities.get(entity_id)
        return known is not None and bool(known.items)

    def entity_type(self, entity_id: EntityId) -> str:
        """The type of a live entity in this change set's view (its first evidence's)."""
        return self._draft(entity_id).first().type

    def state(self, entity_id: EntityId) -> tuple[Entity, list[str]]:
        """The state a live entity will have after this change set, and its names."""
        return cast(EntitySummary, self._draft(entity_id).delta()[2]).state(entity_id)

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
            self._draft(entity_id).withdraw(sources=sources, chunks=chunks)
        for relationship_id in self._history.relationships_supported_by(source_id):
            edge = self._edge(relationship_id)
            if edge is not None:
                edge.supports.withdraw(sources=sources, chunks=chunks)

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
                _Draft(known.items, SupportSet),
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
            edge = _Edge(relationship_type, subject_id, object_id, _Draft(None, SupportSet))
            self._edges[relationship_id] = edge
        edge.supports.add([support])
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
        for entity_id in sorted(self._entities, key=str):
            draft = self._entities[entity_id]
            known = self._history.entities.get(entity_id)
            if not draft.live():
                if known is not None:
                    dead.add(entity_id)
                    retracted.append(EntityRetracted(entity_id=entity_id))
                continue
            fresh, lost, summary = draft.delta()
            entity, names = cast(EntitySummary, summary).state(entity_id)
            if known is None:
                created += 1
                entity_events.append(
                    EntityCreated(entity=entity, names=names, evidence_added=fresh)
                )
                continue
            if not fresh and not lost and entity == known.entity:
                continue
            updated += 1
            if not lost and entity == known.entity and names == known.names:
                entity_events.append(EntityEvidenceAdded(entity_id=entity_id, evidence=fresh))
                continue
            entity_events.append(
                EntityUpdated(
                    entity=entity,
                    names=names,
                    evidence_added=fresh,
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
                edge.supports.live()
                and edge.subject_id not in dead
                and edge.object_id not in dead
                and self.is_live(edge.subject_id)
                and self.is_live(edge.object_id)
            )
            if not alive:
                if known_edge is not None:
                    edge_retractions.append(RelationshipRetracted(relationship_id=relationship_id))
                continue
            fresh_supports, lost_supports, edge_summary = edge.supports.delta()
            relationship = cast(RelationshipSummary, edge_summary).state(
                relationship_id, edge.type, edge.subject_id, edge.object_id
            )
            unchanged = known_edge is not None and known_edge.relationship == relationship
            if unchanged and not fresh_supports and not lost_supports:
                continue
            if unchanged and not lost_supports:
                edge_events.append(
                    RelationshipSupportAdded(
                        relationship_id=relationship_id, supports=fresh_supports
                    )
                )
                continue
            edge_events.append(
                RelationshipAsserted(
                    relationship=relationship,
                    support_added=fresh_supports,
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
