"""GraphStoreCompliance fails on adapters with planted defects, each named where it is caught.

Every mutant is InMemoryGraphStore with one plausible mistake. Each row names the suite tests
that must fail on it; they run in process against the mutant, and the same way against the
unbroken adapter to prove the harness itself can report a pass.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import pytest

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, RelationshipId, TenantId, id_text
from redstring.domain.models import Alias, Entity, Neighbour, Provenance, Relationship
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import Direction, GraphStore
from redstring.testing.graph_store import TENANT as SUITE_TENANT
from redstring.testing.graph_store import GraphStoreCompliance
from tests.compliance_coverage import read_methods
from tests.lifecycle_mutants import lifecycle_mutants
from tests.suite_failures import run_suite_test

# -- handing out or keeping live objects ------------------------------------------------------


class GetEntityReturnsTheStoredObject(InMemoryGraphStore):
    async def get_entity(self, tenant_id: TenantId, entity_id: EntityId) -> Entity | None:
        return self._entities.get((tenant_id, entity_id))


class GetEntitiesReturnsStoredObjects(InMemoryGraphStore):
    async def get_entities(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, Entity]:
        found = await super().get_entities(tenant_id, entity_ids)
        return {entity_id: self._entities[(tenant_id, entity_id)] for entity_id in found}


class FindEntitiesCopiesShallowly(InMemoryGraphStore):
    """``model_copy()`` without ``deep=True``: the attributes dict is still shared."""

    async def find_entities(self, tenant_id: TenantId, **kw: Any) -> list[Entity]:
        found = await super().find_entities(tenant_id, **kw)
        return [self._entities[(tenant_id, entity.id)].model_copy() for entity in found]


class FindByBlockingKeyReturnsStoredObjects(InMemoryGraphStore):
    async def find_by_blocking_key(self, tenant_id: TenantId, key: str) -> list[Entity]:
        return self._indexed_under(tenant_id, key)


class FindByBlockingKeysReturnsStoredObjects(InMemoryGraphStore):
    async def find_by_blocking_keys(
        self, tenant_id: TenantId, keys: Collection[str], *, limit_per_key: int | None = None
    ) -> dict[str, list[Entity]]:
        return {
            key: indexed for key in set(keys) if (indexed := self._indexed_under(tenant_id, key))
        }


class LimitsBlockingKeysOverall(InMemoryGraphStore):
    """Spends ``limit_per_key`` as one budget over every key, ascending by key: a single
    ``LIMIT`` on the joined rows instead of one per key."""

    async def find_by_blocking_keys(
        self, tenant_id: TenantId, keys: Collection[str], *, limit_per_key: int | None = None
    ) -> dict[str, list[Entity]]:
        found = await super().find_by_blocking_keys(tenant_id, keys)
        if limit_per_key is None:
            return found
        budget, kept = limit_per_key, {}
        for key in sorted(found):
            if budget > 0:
                kept[key] = found[key][:budget]
                budget -= len(kept[key])
        return kept


class IgnoresLimitPerKey(InMemoryGraphStore):
    async def find_by_blocking_keys(
        self, tenant_id: TenantId, keys: Collection[str], *, limit_per_key: int | None = None
    ) -> dict[str, list[Entity]]:
        return await super().find_by_blocking_keys(tenant_id, keys)


class SlicesByAnyLimitPerKey(InMemoryGraphStore):
    """No range check: zero keeps nothing and a negative limit drops ids from the end."""

    async def find_by_blocking_keys(
        self, tenant_id: TenantId, keys: Collection[str], *, limit_per_key: int | None = None
    ) -> dict[str, list[Entity]]:
        found = await super().find_by_blocking_keys(tenant_id, keys)
        if limit_per_key is None:
            return found
        return {key: entities[:limit_per_key] for key, entities in found.items()}


class FindAliasesReturnsStoredObjects(InMemoryGraphStore):
    async def find_aliases(self, tenant_id: TenantId, canonical_id: EntityId) -> list[Alias]:
        found = await super().find_aliases(tenant_id, canonical_id)
        return [self._aliases[(tenant_id, alias.alias_id)] for alias in found]


class ResolveCachesItsAnswer(InMemoryGraphStore):
    """Memoises a resolution and hands every caller the same mutable dict."""

    def __init__(self) -> None:
        super().__init__()
        self._answers: dict[tuple[TenantId, frozenset[EntityId]], dict[EntityId, EntityId]] = {}

    async def resolve_entity_ids(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, EntityId]:
        key = (tenant_id, frozenset(entity_ids))
        if key not in self._answers:
            self._answers[key] = await super().resolve_entity_ids(tenant_id, entity_ids)
        return self._answers[key]


class GetRelationshipReturnsTheStoredObject(InMemoryGraphStore):
    async def get_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> Relationship | None:
        return self._relationships.get((tenant_id, relationship_id))


class GetRelationshipsForReturnsStoredObjects(InMemoryGraphStore):
    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], **kw: Any
    ) -> list[Relationship]:
        found = await super().get_relationships_for(tenant_id, entity_ids, **kw)
        return [self._relationships[(tenant_id, edge.id)] for edge in found]


class NeighboursCarryStoredEntities(InMemoryGraphStore):
    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, **kw: Any
    ) -> list[Neighbour]:
        found = await super().neighbours(tenant_id, entity_id, **kw)
        return [
            Neighbour.model_construct(
                entity=self._entities[(tenant_id, n.entity.id)], depth=n.depth
            )
            for n in found
        ]


class KeepsTheCallersEntity(InMemoryGraphStore):
    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        self._refuse_alias_ids(tenant_id, [entity.id])
        self._write_entity(tenant_id, entity)


class KeepsTheCallersEntities(InMemoryGraphStore):
    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        self._refuse_alias_ids(tenant_id, [entity.id for entity in entities])
        for entity in entities:
            self._write_entity(tenant_id, entity)


class KeepsTheCallersAlias(InMemoryGraphStore):
    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        await super().upsert_alias(tenant_id, alias)
        self._aliases[(tenant_id, alias.alias_id)] = alias


class KeepsTheCallersRelationships(InMemoryGraphStore):
    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        await super().upsert_relationships(tenant_id, relationships)
        for relationship in relationships:
            self._relationships[(tenant_id, relationship.id)] = relationship


# -- crossing tenants -------------------------------------------------------------------------


def _everyones_rows(store: InMemoryGraphStore, tenant_id: TenantId) -> InMemoryGraphStore:
    """A store holding every tenant's rows under ``tenant_id``: a key compared on id alone."""
    view = InMemoryGraphStore()
    view._entities = {(tenant_id, key[1]): value for key, value in store._entities.items()}
    for alias in store._aliases.values():
        view._write_alias(tenant_id, alias)
    for edge in store._relationships.values():
        view._write_edge(tenant_id, edge)
    for (_, blocking_key), ids in store._blocking.items():
        view._blocking.setdefault((tenant_id, blocking_key), set()).update(ids)
    return view


def ignores_the_tenant(method: str) -> type[InMemoryGraphStore]:
    """InMemoryGraphStore whose ``method`` reads every tenant's rows as the caller's."""

    async def read(self: InMemoryGraphStore, tenant_id: TenantId, *args: Any, **kw: Any) -> Any:
        unscoped = getattr(InMemoryGraphStore, method)
        return await unscoped(_everyones_rows(self, tenant_id), tenant_id, *args, **kw)

    camel = "".join(part.title() for part in method.split("_"))
    return type(f"{camel}IgnoresTheTenant", (InMemoryGraphStore,), {method: read})


class ChecksEndpointsInAnyTenant(InMemoryGraphStore):
    def _require_entities(self, tenant_id: TenantId, entity_ids: Iterable[EntityId]) -> None:
        known = {entity_id for _, entity_id in self._entities}
        missing = sorted(set(entity_ids) - known, key=id_text)
        if missing:
            raise MissingEntityError(missing, tenant_id=tenant_id)


class DeleteByTenantDeletesEveryone(InMemoryGraphStore):
    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        removed = sum(1 for owner, _ in self._entities if owner == tenant_id)
        for table in (
            self._entities,
            self._aliases,
            self._relationships,
            self._blocking,
            self._outgoing,
            self._incoming,
            self._aliases_of,
        ):
            table.clear()
        return removed


class SharesOneGraphAcrossInstances(InMemoryGraphStore):
    """Class-level storage: every store ``new_store()`` returns sees the previous ones' rows."""

    _shared: InMemoryGraphStore | None = None

    def __init__(self) -> None:
        super().__init__()
        if SharesOneGraphAcrossInstances._shared is None:
            SharesOneGraphAcrossInstances._shared = InMemoryGraphStore()
        shared = SharesOneGraphAcrossInstances._shared
        self._entities = shared._entities
        self._aliases = shared._aliases
        self._relationships = shared._relationships
        self._blocking = shared._blocking
        self._outgoing = shared._outgoing
        self._incoming = shared._incoming
        self._aliases_of = shared._aliases_of


# -- dangling edges and half-written batches ----------------------------------------------------


class AcceptsDanglingEdges(InMemoryGraphStore):
    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        for relationship in relationships:
            self._write_edge(tenant_id, relationship.model_copy(deep=True))


class WritesEdgesOneByOne(InMemoryGraphStore):
    """Validates each edge just before writing it, so a failure leaves the earlier ones."""

    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        for relationship in relationships:
            self._require_entities(tenant_id, [relationship.subject_id, relationship.object_id])
            self._write_edge(tenant_id, relationship.model_copy(deep=True))


class WritesEntitiesOneByOne(InMemoryGraphStore):
    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        for entity in entities:
            await self.upsert_entity(tenant_id, entity)


class FirstEntityWriteWins(InMemoryGraphStore):
    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        if (tenant_id, entity.id) not in self._entities:
            await super().upsert_entity(tenant_id, entity)

    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        for entity in entities:
            await self.upsert_entity(tenant_id, entity)


class FirstEdgeWriteWins(InMemoryGraphStore):
    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        fresh = [r for r in relationships if (tenant_id, r.id) not in self._relationships]
        firsts = list({r.id: r for r in reversed(fresh)}.values())
        await super().upsert_relationships(tenant_id, firsts)


class DropsAttributes(InMemoryGraphStore):
    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        await super().upsert_entity(tenant_id, entity.model_copy(update={"attributes": {}}))


# -- paging and ordering ------------------------------------------------------------------------


class FindEntitiesInInsertionOrder(InMemoryGraphStore):
    async def find_entities(
        self,
        tenant_id: TenantId,
        *,
        entity_type: str | None = None,
        limit: int = 100,
        after: EntityId | None = None,
    ) -> list[Entity]:
        everything = await super().find_entities(tenant_id, entity_type=entity_type, limit=10**6)
        order = list(self._entities)
        everything.sort(key=lambda entity: order.index((tenant_id, entity.id)))
        if after is not None:
            everything = [e for e in everything if id_text(e.id) > id_text(after)]
        return everything[:limit]


class FindEntitiesAfterIsInclusive(InMemoryGraphStore):
    async def find_entities(
        self, tenant_id: TenantId, *, after: EntityId | None = None, **kw: Any
    ) -> list[Entity]:
        if after is None:
            return await super().find_entities(tenant_id, **kw)
        limit = kw.pop("limit", 100)
        found = await super().find_entities(tenant_id, limit=10**6, **kw)
        return [e for e in found if id_text(e.id) >= id_text(after)][:limit]


class FindEntitiesCutsBeforeFiltering(InMemoryGraphStore):
    async def find_entities(
        self,
        tenant_id: TenantId,
        *,
        entity_type: str | None = None,
        limit: int = 100,
        after: EntityId | None = None,
    ) -> list[Entity]:
        page = await super().find_entities(tenant_id, limit=limit, after=after)
        return [e for e in page if entity_type is None or e.type == entity_type]


class NegativeLimitFindsNothing(InMemoryGraphStore):
    async def find_entities(self, tenant_id: TenantId, **kw: Any) -> list[Entity]:
        kw["limit"] = max(kw.get("limit", 100), 0)
        return await super().find_entities(tenant_id, **kw)


class TypeFilterIgnoresCase(InMemoryGraphStore):
    async def find_entities(
        self, tenant_id: TenantId, *, entity_type: str | None = None, **kw: Any
    ) -> list[Entity]:
        limit = kw.pop("limit", 100)
        found = await super().find_entities(tenant_id, limit=10**6, **kw)
        wanted = None if entity_type is None else entity_type.lower()
        return [e for e in found if wanted is None or e.type.lower() == wanted][:limit]


class FindAliasesInInsertionOrder(InMemoryGraphStore):
    async def find_aliases(self, tenant_id: TenantId, canonical_id: EntityId) -> list[Alias]:
        return [
            alias.model_copy(deep=True)
            for (owner, _), alias in self._aliases.items()
            if owner == tenant_id and alias.canonical_id == canonical_id
        ]


class GetRelationshipsForInInsertionOrder(InMemoryGraphStore):
    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], **kw: Any
    ) -> list[Relationship]:
        found = await super().get_relationships_for(tenant_id, entity_ids, **kw)
        order = list(self._relationships)
        return sorted(found, key=lambda edge: order.index((tenant_id, edge.id)))


class GetRelationshipsForRepeatsSharedEdges(InMemoryGraphStore):
    """A union of per-id reads: an edge between two requested ids comes back twice."""

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        found: list[Relationship] = []
        for entity_id in entity_ids:
            found += await super().get_relationships_for(tenant_id, [entity_id])
        return sorted(found, key=lambda edge: id_text(edge.id))


class NeighboursLimitPerDepth(InMemoryGraphStore):
    """The limit applied to each depth's level instead of the whole answer."""

    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, **kw: Any
    ) -> list[Neighbour]:
        limit = kw.pop("limit", None)
        found = await super().neighbours(tenant_id, entity_id, **kw)
        if limit is None:
            return found
        depths = sorted({n.depth for n in found})
        return [n for d in depths for n in [m for m in found if m.depth == d][:limit]]


class AmongMeansEitherEnd(InMemoryGraphStore):
    """``among`` read as "touching any": the busiest entity's whole degree comes back."""

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        return await super().get_relationships_for(tenant_id, entity_ids)


class AmongDropsSelfLoops(InMemoryGraphStore):
    """Both ends checked as two different entities: a self-loop is never among the set."""

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        found = await super().get_relationships_for(tenant_id, entity_ids, among=among)
        return [edge for edge in found if not among or edge.subject_id != edge.object_id]


# -- blocking keys and aliases ------------------------------------------------------------------


class KeepsStaleBlockingKeys(InMemoryGraphStore):
    def _write_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        for key in entity.blocking_keys:
            self._blocking.setdefault((tenant_id, key), set()).add(entity.id)
        self._entities[(tenant_id, entity.id)] = entity


class EdgeIndexKeepsOldEndpoints(InMemoryGraphStore):
    """Indexes a re-upserted edge under its new endpoints without unlisting the old ones."""

    def _write_edge(self, tenant_id: TenantId, edge: Relationship) -> None:
        self._relationships[(tenant_id, edge.id)] = edge
        self._outgoing.setdefault((tenant_id, edge.subject_id), set()).add(edge.id)
        self._incoming.setdefault((tenant_id, edge.object_id), set()).add(edge.id)


class EdgeIndexIgnoresDeletes(InMemoryGraphStore):
    """``delete_relationship`` drops the row but leaves its endpoint index entries."""

    async def delete_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> bool:
        return self._relationships.pop((tenant_id, relationship_id), None) is not None

    def _edge_ids_touching(self, tenant_id: TenantId, entity_id: EntityId) -> set[RelationshipId]:
        listed = super()._edge_ids_touching(tenant_id, entity_id)
        return {i for i in listed if (tenant_id, i) in self._relationships}


class AliasIndexKeepsOldCanonicals(InMemoryGraphStore):
    """Lists a re-pointed alias under every canonical it ever had."""

    def _write_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        self._aliases[(tenant_id, alias.alias_id)] = alias
        self._aliases_of.setdefault((tenant_id, alias.canonical_id), set()).add(alias.alias_id)


class ListsKeysWithNoEntities(InMemoryGraphStore):
    async def find_by_blocking_keys(
        self, tenant_id: TenantId, keys: Collection[str], *, limit_per_key: int | None = None
    ) -> dict[str, list[Entity]]:
        found = await super().find_by_blocking_keys(tenant_id, keys, limit_per_key=limit_per_key)
        return {key: found.get(key, []) for key in keys}


class ResolvesUnknownIdsToThemselves(InMemoryGraphStore):
    async def resolve_entity_ids(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, EntityId]:
        found = await super().resolve_entity_ids(tenant_id, entity_ids)
        return {entity_id: found.get(entity_id, entity_id) for entity_id in entity_ids}


class AcceptsAnyCanonical(InMemoryGraphStore):
    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        if alias.alias_id == alias.canonical_id or (tenant_id, alias.alias_id) in self._entities:
            raise InvalidArgumentError(f"{alias.alias_id} cannot be an alias")
        self._write_alias(tenant_id, alias.model_copy(deep=True))


class AliasesLiveEntities(InMemoryGraphStore):
    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        self._require_entities(tenant_id, [alias.canonical_id])
        self._write_alias(tenant_id, alias.model_copy(deep=True))


class StoresEntitiesOnAliasIds(InMemoryGraphStore):
    def _refuse_alias_ids(self, tenant_id: TenantId, entity_ids: Any) -> None:
        return None


class FirstAliasWriteWins(InMemoryGraphStore):
    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        if (tenant_id, alias.alias_id) not in self._aliases:
            await super().upsert_alias(tenant_id, alias)


class RemoveAliasAlwaysSaysYes(InMemoryGraphStore):
    async def remove_alias(self, tenant_id: TenantId, alias_id: EntityId) -> bool:
        await super().remove_alias(tenant_id, alias_id)
        return True


class DeleteRelationshipAlwaysSaysYes(InMemoryGraphStore):
    async def delete_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> bool:
        await super().delete_relationship(tenant_id, relationship_id)
        return True


class DeleteByTenantKeepsAliases(InMemoryGraphStore):
    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        aliases = [alias for key, alias in self._aliases.items() if key[0] == tenant_id]
        removed = await super().delete_by_tenant(tenant_id)
        for alias in aliases:
            self._write_alias(tenant_id, alias)
        return removed


class DeleteByTenantCountsEveryRow(InMemoryGraphStore):
    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        rows = sum(
            1
            for table in (self._aliases, self._relationships)
            for owner, _ in table
            if owner == tenant_id
        )
        return rows + await super().delete_by_tenant(tenant_id)


# -- deleting entities ------------------------------------------------------------------------


class DeleteEntitiesIgnoresTheTenant(InMemoryGraphStore):
    """Deletes the ids in every tenant holding them, as a key compared on id alone would."""

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        removed = 0
        for owner in {owner for owner, _ in self._entities}:
            count = await super().delete_entities(owner, entity_ids)
            removed = count if owner == tenant_id else removed
        return removed


class DeleteEntitiesLeavesEdges(InMemoryGraphStore):
    """Removes the entities but not the edges touching them (a missing cascade)."""

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        edges = dict(self._relationships)
        outgoing = {key: set(ids) for key, ids in self._outgoing.items()}
        incoming = {key: set(ids) for key, ids in self._incoming.items()}
        removed = await super().delete_entities(tenant_id, entity_ids)
        self._relationships, self._outgoing, self._incoming = edges, outgoing, incoming
        return removed


class DeleteEntitiesLeavesEdgesIntoThem(InMemoryGraphStore):
    """Removes only the edges whose subject is deleted: the ``in`` side is forgotten."""

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        doomed = {i for i in entity_ids if (tenant_id, i) in self._entities}
        incoming = [
            edge
            for key, edge in self._relationships.items()
            if key[0] == tenant_id and edge.object_id in doomed and edge.subject_id not in doomed
        ]
        removed = await super().delete_entities(tenant_id, entity_ids)
        for edge in incoming:
            self._write_edge(tenant_id, edge)
        return removed


class DeleteEntitiesLeavesBlockingKeys(InMemoryGraphStore):
    """Leaves the key rows and hides them behind a join, until the id is upserted again."""

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        index = {key: set(ids) for key, ids in self._blocking.items()}
        removed = await super().delete_entities(tenant_id, entity_ids)
        self._blocking = index
        return removed

    def _indexed_under(
        self, tenant_id: TenantId, key: str, limit: int | None = None
    ) -> list[Entity]:
        ids = self._blocking.get((tenant_id, key), set())
        live = [self._entities[(tenant_id, i)] for i in ids if (tenant_id, i) in self._entities]
        return sorted(live, key=lambda entity: id_text(entity.id))[:limit]

    def _write_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        # The previous version's keys are only known while the entity is stored.
        for key in entity.blocking_keys:
            self._blocking.setdefault((tenant_id, key), set()).add(entity.id)
        previous = self._entities.get((tenant_id, entity.id))
        for key in () if previous is None else previous.blocking_keys:
            if key not in entity.blocking_keys:
                self._blocking[(tenant_id, key)].discard(entity.id)
        self._entities[(tenant_id, entity.id)] = entity


class DeleteEntitiesLeavesKeyCopies(InMemoryGraphStore):
    """An index holding its own copy of each entity, which the delete forgets to clear."""

    def __init__(self) -> None:
        super().__init__()
        self._copies: dict[tuple[TenantId, EntityId], Entity] = {}

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        index = {key: set(ids) for key, ids in self._blocking.items()}
        self._copies.update(self._entities)
        removed = await super().delete_entities(tenant_id, entity_ids)
        self._blocking = index
        return removed

    def _indexed_under(
        self, tenant_id: TenantId, key: str, limit: int | None = None
    ) -> list[Entity]:
        ids = self._blocking.get((tenant_id, key), set())
        found = [self._entities.get((tenant_id, i)) or self._copies[(tenant_id, i)] for i in ids]
        return sorted(found, key=lambda entity: id_text(entity.id))[:limit]


class DeleteEntitiesDeletesNothing(InMemoryGraphStore):
    """Reports the count it would have removed and removes nothing."""

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        return len({i for i in entity_ids if (tenant_id, i) in self._entities})


class DeleteEntitiesLeavesAliases(InMemoryGraphStore):
    """Removes the entities but not the aliases pointing at them."""

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        aliases = [(owner, alias) for (owner, _), alias in self._aliases.items()]
        removed = await super().delete_entities(tenant_id, entity_ids)
        for owner, alias in aliases:
            self._write_alias(owner, alias)
        return removed


class DeleteEntitiesRemovesAliasIds(InMemoryGraphStore):
    """Treats an alias id passed in as something to delete."""

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        for entity_id in entity_ids:
            self._aliases.pop((tenant_id, entity_id), None)
        return await super().delete_entities(tenant_id, entity_ids)


class DeleteEntitiesCountsEveryIdGiven(InMemoryGraphStore):
    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        await super().delete_entities(tenant_id, entity_ids)
        return len(entity_ids)


class DeleteEntitiesCountsDuplicates(InMemoryGraphStore):
    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        live = [i for i in entity_ids if (tenant_id, i) in self._entities]
        await super().delete_entities(tenant_id, entity_ids)
        return len(live)


class DeleteEntitiesOfNothingRaises(InMemoryGraphStore):
    """An ``IN ()`` that the backend rejects."""

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        if not entity_ids:
            raise InvalidArgumentError("syntax error at or near ')'")
        return await super().delete_entities(tenant_id, entity_ids)


# -- traversal ----------------------------------------------------------------------------------


def _walk(
    store: InMemoryGraphStore,
    tenant_id: TenantId,
    start: EntityId,
    depth: int,
    direction: str,
    relationship_types: Collection[str] | None,
    *,
    remember: bool = True,
    filter_every_hop: bool = True,
) -> list[Neighbour]:
    """A traversal with switches for two classic mistakes: no visited set, and a filter that
    is applied on the first hop only."""
    found: list[tuple[int, EntityId]] = []
    seen = {start}
    frontier = [start]
    for level in range(1, depth + 1):
        reached: list[EntityId] = []
        for (owner, _), edge in store._relationships.items():
            if owner != tenant_id:
                continue
            filtered = relationship_types is not None and (filter_every_hop or level == 1)
            if filtered and edge.type not in relationship_types:
                continue
            if direction != "in" and edge.subject_id in frontier:
                reached.append(edge.object_id)
            if direction != "out" and edge.object_id in frontier:
                reached.append(edge.subject_id)
        if remember:
            reached = sorted(set(reached) - seen, key=id_text)
            seen.update(reached)
        found += [(level, entity_id) for entity_id in reached]
        frontier = reached
    found.sort(key=lambda item: (item[0], id_text(item[1])))
    return [
        Neighbour(entity=store._entities[(tenant_id, eid)].model_copy(deep=True), depth=level)
        for level, eid in found
    ]


class NeighboursRevisit(InMemoryGraphStore):
    """No visited set: entities reached by two paths, and the start on a cycle, repeat."""

    async def neighbours(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        depth: int = 1,
        direction: Direction = "both",
        relationship_types: Collection[str] | None = None,
    ) -> list[Neighbour]:
        await super().neighbours(tenant_id, entity_id, depth=depth, direction=direction)
        if (tenant_id, entity_id) not in self._entities:
            return []
        return _walk(
            self, tenant_id, entity_id, depth, direction, relationship_types, remember=False
        )


class NeighboursFilterTheFirstHopOnly(InMemoryGraphStore):
    async def neighbours(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        depth: int = 1,
        direction: Direction = "both",
        relationship_types: Collection[str] | None = None,
    ) -> list[Neighbour]:
        await super().neighbours(tenant_id, entity_id, depth=depth, direction=direction)
        if (tenant_id, entity_id) not in self._entities:
            return []
        return _walk(
            self, tenant_id, entity_id, depth, direction, relationship_types, filter_every_hop=False
        )


class NeighboursIgnoreDirection(InMemoryGraphStore):
    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, **kw: Any
    ) -> list[Neighbour]:
        kw["direction"] = "both"
        return await super().neighbours(tenant_id, entity_id, **kw)


class UnknownDirectionMeansBoth(InMemoryGraphStore):
    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, **kw: Any
    ) -> list[Neighbour]:
        if kw.get("direction") not in (None, "out", "in"):
            kw["direction"] = "both"
        return await super().neighbours(tenant_id, entity_id, **kw)


class EmptyTypesMeanEveryType(InMemoryGraphStore):
    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, **kw: Any
    ) -> list[Neighbour]:
        if not kw.get("relationship_types"):
            kw["relationship_types"] = None
        return await super().neighbours(tenant_id, entity_id, **kw)


class NeighboursOrderedByIdOnly(InMemoryGraphStore):
    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, **kw: Any
    ) -> list[Neighbour]:
        found = await super().neighbours(tenant_id, entity_id, **kw)
        return sorted(found, key=lambda n: id_text(n.entity.id))


class NeighboursGoOneHopTooFar(InMemoryGraphStore):
    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, *, depth: int = 1, **kw: Any
    ) -> list[Neighbour]:
        return await super().neighbours(tenant_id, entity_id, depth=max(depth + 1, 0), **kw)


class NegativeDepthFindsNothing(InMemoryGraphStore):
    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, *, depth: int = 1, **kw: Any
    ) -> list[Neighbour]:
        return await super().neighbours(tenant_id, entity_id, depth=max(depth, 0), **kw)


class NeighboursOfAnUnknownIdRaise(InMemoryGraphStore):
    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, **kw: Any
    ) -> list[Neighbour]:
        if (tenant_id, entity_id) not in self._entities:
            raise KeyError(entity_id)
        return await super().neighbours(tenant_id, entity_id, **kw)


# -- the block form -----------------------------------------------------------------------------


class ExitSwallowsExceptions(InMemoryGraphStore):
    async def __aexit__(  # type: ignore[override]
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        await self.close()
        return True


class EnterReturnsNothing(InMemoryGraphStore):
    async def __aenter__(self) -> Any:
        return None


# -- boundaries ---------------------------------------------------------------------------------


class StartsWithARow(InMemoryGraphStore):
    """Not empty when handed over, as a store after an incomplete wipe would be."""

    def __init__(self) -> None:
        super().__init__()
        ghost = Entity(id=EntityId(uuid.uuid4()), type="Person", name="Left over")
        self._entities[(SUITE_TENANT, ghost.id)] = ghost


class LacksABatchRead(InMemoryGraphStore):
    find_by_blocking_keys = None  # type: ignore[assignment]


class EmptyBatchesRaise(InMemoryGraphStore):
    """An ``IN ()`` that the backend rejects."""

    async def get_entities(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, Entity]:
        if not entity_ids:
            raise InvalidArgumentError("syntax error at or near ')'")
        return await super().get_entities(tenant_id, entity_ids)


class AbsentIdsMapToNone(InMemoryGraphStore):
    """A left join carried into the result."""

    async def get_entities(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, Entity]:
        found: dict[EntityId, Any] = dict.fromkeys(entity_ids)
        found.update(await super().get_entities(tenant_id, entity_ids))
        return found


class GetEntityRaisesOnUnknownIds(InMemoryGraphStore):
    async def get_entity(self, tenant_id: TenantId, entity_id: EntityId) -> Entity | None:
        return self._entities[(tenant_id, entity_id)].model_copy(deep=True)


class ForgetsProvenance(InMemoryGraphStore):
    def _write_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        super()._write_entity(tenant_id, entity.model_copy(update={"provenance": Provenance()}))


class StoresEdgesBackwards(InMemoryGraphStore):
    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        swapped = [
            r.model_copy(update={"subject_id": r.object_id, "object_id": r.subject_id})
            for r in relationships
        ]
        await super().upsert_relationships(tenant_id, swapped)


class IgnoresLimit(InMemoryGraphStore):
    async def find_entities(self, tenant_id: TenantId, **kw: Any) -> list[Entity]:
        kw["limit"] = max(kw.get("limit", 100), 10**6)
        return await super().find_entities(tenant_id, **kw)


class UnknownCursorRestarts(InMemoryGraphStore):
    """Looks the cursor up instead of comparing ids, and starts over when it is gone."""

    async def find_entities(
        self, tenant_id: TenantId, *, after: EntityId | None = None, **kw: Any
    ) -> list[Entity]:
        if after is not None and (tenant_id, after) not in self._entities:
            after = None
        return await super().find_entities(tenant_id, after=after, **kw)


class FindByBlockingKeyInInsertionOrder(InMemoryGraphStore):
    async def find_by_blocking_key(self, tenant_id: TenantId, key: str) -> list[Entity]:
        return [
            entity.model_copy(deep=True)
            for (owner, _), entity in self._entities.items()
            if owner == tenant_id and key in entity.blocking_keys
        ]


class IndexesKeysAsAList(InMemoryGraphStore):
    """Appends to a list per key, so a replayed upsert indexes the entity twice."""

    def __init__(self) -> None:
        super().__init__()
        self._postings: dict[tuple[TenantId, str], list[EntityId]] = {}

    def _write_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        super()._write_entity(tenant_id, entity)
        for key in entity.blocking_keys:
            self._postings.setdefault((tenant_id, key), []).append(entity.id)

    def _indexed_under(
        self, tenant_id: TenantId, key: str, limit: int | None = None
    ) -> list[Entity]:
        ids = self._postings.get((tenant_id, key), [])
        return sorted(
            (self._entities[(tenant_id, entity_id)] for entity_id in ids),
            key=lambda entity: id_text(entity.id),
        )[:limit]


class RefusesAliasIdsOfAnyTenant(InMemoryGraphStore):
    def _refuse_alias_ids(self, tenant_id: TenantId, entity_ids: Iterable[EntityId]) -> None:
        taken = {alias_id for _, alias_id in self._aliases}
        if taken & set(entity_ids):
            raise InvalidArgumentError("that id is an alias")


class DeleteOfAnUnknownTenantRaises(InMemoryGraphStore):
    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        if not any(owner == tenant_id for owner, _ in self._entities):
            raise KeyError(tenant_id)
        return await super().delete_by_tenant(tenant_id)


class ClosesOnlyOnce(InMemoryGraphStore):
    def __init__(self) -> None:
        super().__init__()
        self._closed = False

    async def close(self) -> None:
        if self._closed:
            raise RuntimeError("already closed")
        self._closed = True


# -- rules every adapter agrees on (ADR 0023) ---------------------------------------------------


class ChecksTheAliasIdBeforeTheCanonical(InMemoryGraphStore):
    """The order the in-memory store used to check in: a live alias id before the canonical."""

    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        if (tenant_id, alias.alias_id) in self._entities:
            raise InvalidArgumentError(f"{alias.alias_id} is a live entity")
        await super().upsert_alias(tenant_id, alias)


class ChecksOnlyTheLastWritePerId(InMemoryGraphStore):
    """De-duplicates the batch by id before checking endpoints, as two SQL adapters did."""

    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        latest = {relationship.id: relationship for relationship in relationships}
        await super().upsert_relationships(tenant_id, list(latest.values()))


class SortsAttributeKeys(InMemoryGraphStore):
    """Serialises attributes with sorted keys, as the Neo4j adapter did."""

    def _write_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        ordered = json.loads(json.dumps(entity.attributes, sort_keys=True))
        super()._write_entity(tenant_id, entity.model_copy(update={"attributes": ordered}))


class IndexesKeysUpToABtreeEntry(InMemoryGraphStore):
    """A key index of at most 2,704 UTF-8 bytes (a B-tree entry): a longer key is stored
    with its entity but finds nothing."""

    def _indexed_under(
        self, tenant_id: TenantId, key: str, limit: int | None = None
    ) -> list[Entity]:
        if len(key.encode("utf-8")) > 2704:
            return []
        return super()._indexed_under(tenant_id, key, limit)


class CutsAttributeTextAtNul(InMemoryGraphStore):
    """Attribute text kept as C strings (a ``jsonb`` column refuses ``\\u0000``, so the NUL
    and what follows it are dropped), keys included."""

    def _write_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        cut = _cut_at_nul(entity.attributes)
        super()._write_entity(tenant_id, entity.model_copy(update={"attributes": cut}))


def _cut_at_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.split("\x00", 1)[0]
    if isinstance(value, list):
        return [_cut_at_nul(item) for item in value]
    if isinstance(value, dict):
        return {_cut_at_nul(key): _cut_at_nul(item) for key, item in value.items()}
    return value


class WalksAnyDepth(InMemoryGraphStore):
    """Bounds ``depth`` below only."""

    async def neighbours(
        self, tenant_id: TenantId, entity_id: EntityId, *, depth: int = 1, **kw: Any
    ) -> list[Neighbour]:
        return await super().neighbours(tenant_id, entity_id, depth=min(depth, 100), **kw)


class TakesAnyLimit(InMemoryGraphStore):
    """Bounds ``limit`` below only."""

    async def find_entities(self, tenant_id: TenantId, **kw: Any) -> list[Entity]:
        kw["limit"] = min(kw.get("limit", 100), 2**31 - 1)
        return await super().find_entities(tenant_id, **kw)


class MatchesNothingForUnstorableText(InMemoryGraphStore):
    """The in-memory store's old answer to a NUL key: no match, where PostgreSQL raised."""

    async def find_by_blocking_key(self, tenant_id: TenantId, key: str) -> list[Entity]:
        if "\x00" in key or "\ud800" in key:
            return []
        return await super().find_by_blocking_key(tenant_id, key)


# -- the table ----------------------------------------------------------------------------------


# -- repeats in lists (ADR 0028) --------------------------------------------------------------


class UnindexesEachListedKey(InMemoryGraphStore):
    """Keeps an entity's keys as given, as every graph store did before ADR 0028: a key
    listed twice is un-indexed twice, and the second removal raises ``KeyError``."""

    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        await self.upsert_entities(tenant_id, [entity])

    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        self._refuse_alias_ids(tenant_id, [entity.id for entity in entities])
        for entity in entities:
            self._write_entity(tenant_id, entity.model_copy(deep=True))


class ListsAnEntityPerListedKey(UnindexesEachListedKey):
    """A key row per listing (the PostgreSQL key table has no primary key; Neo4j made a key
    edge per listing): a key listed twice finds its entity twice."""

    def _unindex(self, tenant_id: TenantId, entity: Entity) -> None:
        distinct = entity.model_copy(update={"blocking_keys": tuple(set(entity.blocking_keys))})
        super()._unindex(tenant_id, distinct)

    def _indexed_under(
        self, tenant_id: TenantId, key: str, limit: int | None = None
    ) -> list[Entity]:
        found = super()._indexed_under(tenant_id, key, limit)
        return [entity for entity in found for listed in entity.blocking_keys if listed == key]


class KeepsRepeatedEntityEvidence(InMemoryGraphStore):
    """Stores an entity's provenance as given: a chunk id repeated past validation reads
    back twice, where the stores that validate what they read drop it."""

    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        await self.upsert_entities(tenant_id, [entity])

    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        await super().upsert_entities(tenant_id, entities)
        for entity in entities:
            stored = self._entities[(tenant_id, entity.id)]
            stored.__dict__["provenance"] = entity.provenance.model_copy()


class KeepsRepeatedRelationshipEvidence(InMemoryGraphStore):
    """Stores a relationship's provenance as given: its repeated chunk ids read back."""

    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        await super().upsert_relationships(tenant_id, relationships)
        for relationship in relationships:
            stored = self._relationships[(tenant_id, relationship.id)]
            stored.__dict__["provenance"] = relationship.provenance.model_copy()


class ListsAnAliasPerWrite(InMemoryGraphStore):
    """Appends to the canonical's alias list on every write, so a replayed alias is listed
    once per write."""

    def __init__(self) -> None:
        super().__init__()
        self._written: dict[tuple[TenantId, EntityId], list[EntityId]] = {}

    def _write_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        super()._write_alias(tenant_id, alias)
        self._written.setdefault((tenant_id, alias.canonical_id), []).append(alias.alias_id)

    async def find_aliases(self, tenant_id: TenantId, canonical_id: EntityId) -> list[Alias]:
        live = {
            alias.alias_id: alias for alias in await super().find_aliases(tenant_id, canonical_id)
        }
        listed = [live[i] for i in self._written.get((tenant_id, canonical_id), []) if i in live]
        return sorted(listed, key=lambda alias: id_text(alias.alias_id))


class FindsARepeatedKeyTwice(InMemoryGraphStore):
    """Reads the given keys as a list (``unnest`` without ``DISTINCT``): a key given twice
    lists its entities twice."""

    async def find_by_blocking_keys(
        self, tenant_id: TenantId, keys: Collection[str], *, limit_per_key: int | None = None
    ) -> dict[str, list[Entity]]:
        found: dict[str, list[Entity]] = {}
        for key in keys:
            once = await super().find_by_blocking_keys(
                tenant_id, [key], limit_per_key=limit_per_key
            )
            if key in once:
                found.setdefault(key, []).extend(once[key])
        return found


@dataclass(frozen=True)
class Case:
    mutant: type[InMemoryGraphStore]
    caught_by: tuple[str, ...]


READS = tuple(read_methods(GraphStore))

CASES: tuple[Case, ...] = (
    Case(NeighboursLimitPerDepth, ("test_neighbours_limit_keeps_the_first_in_order",)),
    Case(AmongMeansEitherEnd, ("test_get_relationships_among_keeps_edges_with_both_ends_given",)),
    Case(AmongDropsSelfLoops, ("test_get_relationships_among_keeps_edges_with_both_ends_given",)),
    Case(GetEntityReturnsTheStoredObject, ("test_get_entity_returns_copies",)),
    Case(GetEntitiesReturnsStoredObjects, ("test_get_entities_returns_copies",)),
    Case(FindEntitiesCopiesShallowly, ("test_find_entities_returns_copies",)),
    Case(FindByBlockingKeyReturnsStoredObjects, ("test_find_by_blocking_key_returns_copies",)),
    Case(FindByBlockingKeysReturnsStoredObjects, ("test_find_by_blocking_keys_returns_copies",)),
    Case(
        LimitsBlockingKeysOverall,
        ("test_find_by_blocking_keys_limit_keeps_the_smallest_ids_of_each_key",),
    ),
    Case(
        IgnoresLimitPerKey,
        ("test_find_by_blocking_keys_limit_keeps_the_smallest_ids_of_each_key",),
    ),
    Case(
        SlicesByAnyLimitPerKey,
        ("test_find_by_blocking_keys_refuses_a_limit_outside_one_to_max_limit",),
    ),
    Case(FindAliasesReturnsStoredObjects, ("test_find_aliases_returns_copies",)),
    Case(ResolveCachesItsAnswer, ("test_resolve_entity_ids_returns_copies",)),
    Case(GetRelationshipReturnsTheStoredObject, ("test_get_relationship_returns_copies",)),
    Case(GetRelationshipsForReturnsStoredObjects, ("test_get_relationships_for_returns_copies",)),
    Case(NeighboursCarryStoredEntities, ("test_neighbours_returns_copies",)),
    Case(KeepsTheCallersEntity, ("test_upsert_entity_keeps_no_reference_to_the_callers_object",)),
    Case(
        KeepsTheCallersEntities,
        ("test_upsert_entities_keeps_no_reference_to_the_callers_objects",),
    ),
    Case(KeepsTheCallersAlias, ("test_upsert_alias_keeps_no_reference_to_the_callers_object",)),
    Case(
        KeepsTheCallersRelationships,
        (
            "test_upsert_relationship_keeps_no_reference_to_the_callers_object",
            "test_upsert_relationships_keeps_no_reference_to_the_callers_objects",
        ),
    ),
    *(Case(ignores_the_tenant(read), (f"test_{read}_never_crosses_tenants",)) for read in READS),
    Case(
        ChecksEndpointsInAnyTenant, ("test_upsert_relationship_checks_endpoints_in_its_own_tenant",)
    ),
    Case(
        DeleteByTenantDeletesEveryone,
        (
            "test_delete_by_tenant_leaves_other_tenants_intact",
            "test_tenants_never_see_each_others_rows",
        ),
    ),
    Case(SharesOneGraphAcrossInstances, ("test_entity_writes_are_idempotent_and_last_write_wins",)),
    Case(
        AcceptsDanglingEdges,
        (
            "test_upsert_relationship_with_an_absent_endpoint_raises",
            "test_upsert_relationships_is_all_or_nothing",
            "test_an_alias_id_is_not_an_entity",
        ),
    ),
    Case(WritesEdgesOneByOne, ("test_upsert_relationships_is_all_or_nothing",)),
    Case(WritesEntitiesOneByOne, ("test_upsert_entities_with_an_alias_id_writes_nothing",)),
    Case(
        FirstEntityWriteWins,
        (
            "test_upsert_entity_is_last_write_wins",
            "test_upsert_entities_writes_every_entity",
            "test_entity_writes_are_idempotent_and_last_write_wins",
        ),
    ),
    Case(
        FirstEdgeWriteWins,
        (
            "test_upsert_relationship_is_last_write_wins",
            "test_upsert_relationships_writes_every_edge",
            "test_relationship_writes_are_idempotent_and_last_write_wins",
        ),
    ),
    Case(DropsAttributes, ("test_an_upserted_entity_and_edge_read_back_equal_from_every_read",)),
    Case(
        FindEntitiesInInsertionOrder,
        (
            "test_find_entities_orders_by_id_text",
            "test_find_entities_pages_through_everything_in_id_order",
        ),
    ),
    Case(
        FindEntitiesAfterIsInclusive,
        (
            "test_find_entities_resumes_strictly_after_the_cursor",
            "test_find_entities_pages_combine_the_type_filter_and_the_cursor",
            "test_find_entities_pages_through_everything_in_id_order",
        ),
    ),
    Case(
        FindEntitiesCutsBeforeFiltering,
        ("test_find_entities_pages_combine_the_type_filter_and_the_cursor",),
    ),
    Case(NegativeLimitFindsNothing, ("test_find_entities_with_a_negative_limit_raises",)),
    Case(TypeFilterIgnoresCase, ("test_find_entities_filters_by_exact_type",)),
    Case(
        FindAliasesInInsertionOrder,
        ("test_find_aliases_lists_the_aliases_of_one_canonical_by_alias_id",),
    ),
    Case(
        GetRelationshipsForInInsertionOrder,
        ("test_get_relationships_for_lists_each_touching_edge_once",),
    ),
    Case(
        GetRelationshipsForRepeatsSharedEdges,
        (
            "test_get_relationships_for_lists_each_touching_edge_once",
            "test_relationship_writes_are_idempotent_and_last_write_wins",
        ),
    ),
    Case(
        KeepsStaleBlockingKeys,
        (
            "test_re_upserting_an_entity_replaces_its_blocking_keys",
            "test_upsert_entities_replaces_blocking_keys_too",
            "test_blocking_key_reads_follow_the_latest_keys",
        ),
    ),
    Case(
        EdgeIndexKeepsOldEndpoints,
        (
            "test_upsert_relationship_is_last_write_wins",
            "test_relationship_writes_are_idempotent_and_last_write_wins",
        ),
    ),
    Case(
        EdgeIndexIgnoresDeletes,
        ("test_delete_relationship_reports_whether_there_was_one",),
    ),
    Case(AliasIndexKeepsOldCanonicals, ("test_upsert_alias_is_last_write_wins",)),
    Case(
        ListsKeysWithNoEntities,
        ("test_find_by_blocking_keys_groups_by_key_and_omits_empty_keys",),
    ),
    Case(
        ResolvesUnknownIdsToThemselves,
        (
            "test_resolve_entity_ids_maps_entities_aliases_and_omits_unknown_ids",
            "test_aliases_resolve_to_their_latest_canonical",
        ),
    ),
    Case(
        AcceptsAnyCanonical,
        (
            "test_upsert_alias_of_an_absent_canonical_raises",
            "test_upsert_alias_to_an_alias_raises",
            "test_upsert_alias_checks_the_canonical_in_its_own_tenant",
        ),
    ),
    Case(
        AliasesLiveEntities,
        (
            "test_upsert_alias_whose_id_is_a_live_entity_raises",
            "test_upsert_alias_to_itself_raises",
        ),
    ),
    Case(
        StoresEntitiesOnAliasIds,
        (
            "test_upsert_entity_whose_id_is_an_alias_raises",
            "test_upsert_entities_with_an_alias_id_writes_nothing",
        ),
    ),
    Case(
        FirstAliasWriteWins,
        ("test_upsert_alias_is_last_write_wins", "test_aliases_resolve_to_their_latest_canonical"),
    ),
    Case(
        RemoveAliasAlwaysSaysYes,
        (
            "test_remove_alias_reports_whether_there_was_one",
            "test_remove_alias_of_an_entity_id_removes_nothing",
            "test_deletes_never_cross_tenants",
        ),
    ),
    Case(
        DeleteRelationshipAlwaysSaysYes,
        (
            "test_delete_relationship_reports_whether_there_was_one",
            "test_deletes_never_cross_tenants",
        ),
    ),
    Case(
        DeleteByTenantKeepsAliases,
        ("test_delete_by_tenant_removes_everything_and_counts_entities",),
    ),
    Case(
        DeleteByTenantCountsEveryRow,
        ("test_delete_by_tenant_removes_everything_and_counts_entities",),
    ),
    Case(
        DeleteEntitiesIgnoresTheTenant,
        (
            "test_delete_entities_never_crosses_tenants",
            "test_delete_entities_leaves_exactly_what_did_not_hang_on_them",
        ),
    ),
    Case(
        DeleteEntitiesLeavesEdges,
        (
            "test_delete_entities_removes_every_relationship_touching_it",
            "test_delete_entities_never_crosses_tenants",
            "test_a_deleted_entity_id_can_be_upserted_again",
            "test_delete_entities_leaves_exactly_what_did_not_hang_on_them",
        ),
    ),
    Case(
        DeleteEntitiesLeavesEdgesIntoThem,
        ("test_delete_entities_removes_every_relationship_touching_it",),
    ),
    Case(DeleteEntitiesLeavesBlockingKeys, ("test_a_deleted_entity_id_can_be_upserted_again",)),
    Case(
        DeleteEntitiesLeavesKeyCopies,
        (
            "test_delete_entities_removes_its_blocking_keys",
            "test_delete_entities_never_crosses_tenants",
            "test_delete_entities_leaves_exactly_what_did_not_hang_on_them",
        ),
    ),
    Case(
        DeleteEntitiesDeletesNothing,
        (
            "test_delete_entities_removes_the_entity_from_every_entity_read",
            "test_delete_entities_is_idempotent",
            "test_delete_entities_leaves_exactly_what_did_not_hang_on_them",
        ),
    ),
    Case(
        DeleteEntitiesLeavesAliases,
        (
            "test_delete_entities_removes_the_aliases_pointing_at_it",
            "test_a_deleted_entity_id_can_be_upserted_again",
            "test_delete_entities_never_crosses_tenants",
            "test_delete_entities_leaves_exactly_what_did_not_hang_on_them",
        ),
    ),
    Case(DeleteEntitiesRemovesAliasIds, ("test_delete_entities_ignores_alias_ids",)),
    Case(
        DeleteEntitiesCountsEveryIdGiven,
        (
            "test_delete_entities_counts_each_removed_entity_once",
            "test_delete_entities_is_idempotent",
            "test_delete_entities_of_no_ids_is_zero",
            "test_delete_entities_ignores_alias_ids",
        ),
    ),
    Case(DeleteEntitiesCountsDuplicates, ("test_delete_entities_counts_each_removed_entity_once",)),
    Case(DeleteEntitiesOfNothingRaises, ("test_delete_entities_of_no_ids_is_zero",)),
    Case(
        NeighboursRevisit,
        (
            "test_neighbours_report_each_entity_once_at_its_smallest_depth",
            "test_neighbours_exclude_the_start_on_a_cycle",
        ),
    ),
    Case(
        NeighboursFilterTheFirstHopOnly,
        ("test_neighbours_filter_by_relationship_type_at_every_hop",),
    ),
    Case(
        NeighboursIgnoreDirection,
        (
            "test_neighbours_follow_the_requested_direction",
            "test_neighbours_keep_the_direction_at_every_hop",
        ),
    ),
    Case(UnknownDirectionMeansBoth, ("test_neighbours_with_an_unknown_direction_raise",)),
    Case(
        EmptyTypesMeanEveryType,
        ("test_neighbours_with_no_relationship_types_match_nothing",),
    ),
    Case(NeighboursOrderedByIdOnly, ("test_neighbours_order_by_depth_then_id_text",)),
    Case(
        NeighboursGoOneHopTooFar,
        (
            "test_neighbours_stop_at_depth",
            "test_neighbours_at_depth_zero_are_empty",
            "test_neighbours_match_a_breadth_first_search",
        ),
    ),
    Case(NegativeDepthFindsNothing, ("test_neighbours_with_a_negative_depth_raise",)),
    Case(
        NeighboursOfAnUnknownIdRaise,
        (
            "test_neighbours_of_an_unknown_id_are_empty",
            "test_neighbours_match_a_breadth_first_search",
        ),
    ),
    Case(
        ChecksTheAliasIdBeforeTheCanonical,
        ("test_upsert_alias_checks_the_canonical_before_the_alias_id",),
    ),
    Case(
        ChecksOnlyTheLastWritePerId,
        ("test_upsert_relationships_checks_every_element_of_the_batch",),
    ),
    Case(
        MatchesNothingForUnstorableText,
        ("test_text_arguments_no_store_can_hold_are_refused",),
    ),
    Case(SortsAttributeKeys, ("test_attributes_keep_the_order_they_were_written_in",)),
    Case(IndexesKeysUpToABtreeEntry, ("test_keys_of_a_very_long_name_are_stored_and_found",)),
    Case(
        CutsAttributeTextAtNul,
        ("test_attribute_values_the_models_accept_come_back_equal",),
    ),
    Case(WalksAnyDepth, ("test_neighbours_deeper_than_the_maximum_raise",)),
    Case(TakesAnyLimit, ("test_find_entities_with_a_limit_past_the_maximum_raises",)),
    Case(StartsWithARow, ("test_a_new_store_is_empty",)),
    Case(LacksABatchRead, ("test_the_store_is_a_graph_store",)),
    Case(EmptyBatchesRaise, ("test_batch_calls_with_nothing_in_them",)),
    Case(AbsentIdsMapToNone, ("test_get_entities_returns_present_ids_and_omits_absent_ones",)),
    Case(GetEntityRaisesOnUnknownIds, ("test_get_entity_of_an_unknown_id_is_none",)),
    Case(ForgetsProvenance, ("test_get_entity_reads_back_what_was_upserted",)),
    Case(StoresEdgesBackwards, ("test_get_relationship_reads_back_what_was_upserted",)),
    Case(IgnoresLimit, ("test_find_entities_stops_at_limit",)),
    Case(UnknownCursorRestarts, ("test_find_entities_resumes_after_a_cursor_that_does_not_exist",)),
    Case(
        FindByBlockingKeyInInsertionOrder,
        ("test_find_by_blocking_key_returns_the_entities_indexed_under_it",),
    ),
    Case(IndexesKeysAsAList, ("test_upsert_entity_twice_is_the_same_as_once",)),
    Case(
        UnindexesEachListedKey,
        ("test_a_key_listed_twice_is_indexed_once_and_every_later_write_works",),
    ),
    Case(
        ListsAnEntityPerListedKey,
        ("test_a_key_listed_twice_is_indexed_once_and_every_later_write_works",),
    ),
    Case(
        KeepsRepeatedEntityEvidence,
        ("test_provenance_naming_a_chunk_twice_reads_back_naming_it_once",),
    ),
    Case(
        KeepsRepeatedRelationshipEvidence,
        ("test_evidence_naming_a_chunk_twice_reads_back_naming_it_once",),
    ),
    Case(ListsAnAliasPerWrite, ("test_an_alias_written_twice_is_one_alias",)),
    Case(
        FindsARepeatedKeyTwice,
        (
            "test_an_id_key_or_type_given_twice_means_it_once",
            "test_a_key_listed_twice_is_indexed_once_and_every_later_write_works",
        ),
    ),
    Case(RefusesAliasIdsOfAnyTenant, ("test_ids_taken_in_one_tenant_are_free_in_another",)),
    Case(DeleteOfAnUnknownTenantRaises, ("test_delete_by_tenant_of_an_empty_tenant_is_zero",)),
    Case(ClosesOnlyOnce, ("test_close_is_safe_to_call_twice",)),
    Case(ExitSwallowsExceptions, ("test_the_block_form_never_suppresses_an_exception",)),
    Case(EnterReturnsNothing, ("test_the_block_form_binds_the_store",)),
    *(
        Case(mutant, (name,))
        for mutant, name in lifecycle_mutants(InMemoryGraphStore).items()
        if name == "test_the_block_form_closes_the_store_once"
    ),
)


def suite_for(adapter: Callable[[], GraphStore]) -> GraphStoreCompliance:
    """The suite, unchanged but for its adapter."""

    class Subject(GraphStoreCompliance):
        async def new_store(self) -> GraphStore:
            return adapter()

    return Subject()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.mutant.__name__)
def test_the_suite_catches_the_mutant(case: Case) -> None:
    """Every test named for the mutant fails on it."""
    suite = suite_for(case.mutant)
    survived = [name for name in case.caught_by if run_suite_test(suite, name) is None]
    assert survived == [], f"{case.mutant.__name__} passed {survived}"


def test_the_catching_tests_pass_on_the_unbroken_adapter() -> None:
    """The same tests, run the same way, pass on InMemoryGraphStore: the harness can pass."""
    suite = suite_for(InMemoryGraphStore)
    names = sorted({name for case in CASES for name in case.caught_by})
    failures = {name: repr(failure) for name in names if (failure := run_suite_test(suite, name))}
    assert failures == {}


def test_every_named_test_is_a_suite_test() -> None:
    """Each row names tests the suite has, so a rename in the suite fails here by name."""
    names = {name for case in CASES for name in case.caught_by}
    assert {name for name in names if not hasattr(GraphStoreCompliance, name)} == set()


def test_every_read_method_has_a_tenant_mutant_and_a_copy_mutant() -> None:
    """Each read's two isolation tests are seen failing on a mutant, not merely present."""
    named = {name for case in CASES for name in case.caught_by}
    pattern = re.compile(r"test_(\w+)_(returns_copies|never_crosses_tenants)")
    watched = {match.groups() for name in named if (match := pattern.fullmatch(name))}
    expected = {
        (read, kind) for read in READS for kind in ("returns_copies", "never_crosses_tenants")
    }
    assert expected - watched == set()


def test_every_case_is_named_by_a_mutant() -> None:
    """A new suite case arrives with its mutant (the guard is tested in the memory store)."""
    cases = {name for name in dir(GraphStoreCompliance) if name.startswith("test_")}
    named = {name for case in CASES for name in case.caught_by}
    assert cases - named == {"test_the_suite_is_run_unchanged"}
