"""The in-process GraphStore: dictionaries keyed on ``(tenant_id, id)``, with indexes.

It is the reference the other adapters are read against, so it is exactly as strict as the
port (``redstring.ports.graph_store``) and no more forgiving: dangling edges raise, batches
validate everything before writing anything, and every model crosses the boundary as a deep
copy in both directions. It runs ``GraphStoreCompliance`` unchanged.

It is also the fastest backend, so no read scans a tenant: blocking keys, edges by endpoint
(out and in) and aliases by canonical id each have an index keyed on ``(tenant_id, ...)``
that every write keeps in step through ``_write_entity`` / ``_write_edge`` / ``_write_alias``
and their removals. See ``docs/benchmarks.md`` for what the indexes bought.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Self, TypeVar

from pydantic import BaseModel

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, RelationshipId, TenantId, distinct, id_text
from redstring.domain.models import Alias, Entity, Neighbour, Relationship, key_set
from redstring.domain.portable import json_copy
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import (
    Direction,
    validate_limit,
    validate_limit_per_key,
    validate_traversal,
)
from redstring.ports.text_arguments import checks_text_arguments


@checks_text_arguments()
class InMemoryGraphStore:
    """A GraphStore held in this process; nothing survives the interpreter.

    Every key is ``(tenant_id, id)`` with both parts compared, so two tenants may hold the same
    entity or relationship id independently. Reads and writes copy models deeply. ``close`` and
    the block form are honest no-ops: the store owns nothing to release and stays usable after
    its own ``async with`` block.
    """

    def __init__(self) -> None:
        self._entities: dict[tuple[TenantId, EntityId], Entity] = {}
        self._aliases: dict[tuple[TenantId, EntityId], Alias] = {}
        self._relationships: dict[tuple[TenantId, RelationshipId], Relationship] = {}
        self._blocking: dict[tuple[TenantId, str], set[EntityId]] = {}
        # Edge ids by endpoint: subject -> outgoing, object -> incoming. Ids, not edges, so
        # an edge replaced in ``_relationships`` under the same id is seen through the index.
        self._outgoing: dict[tuple[TenantId, EntityId], set[RelationshipId]] = {}
        self._incoming: dict[tuple[TenantId, EntityId], set[RelationshipId]] = {}
        self._aliases_of: dict[tuple[TenantId, EntityId], set[EntityId]] = {}

    # -- lifetime ---------------------------------------------------------------------------

    async def close(self) -> None:
        """Release nothing: the dictionaries belong to the interpreter. Safe to call twice."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- entities ---------------------------------------------------------------------------

    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        """Insert or replace ``entity`` and re-index its blocking keys.

        Raises ``ValueError`` when ``entity.id`` is currently an alias of the tenant.
        """
        self._refuse_alias_ids(tenant_id, [entity.id])
        self._write_entity(tenant_id, _stored(entity))

    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        """Insert or replace every entity, or none when any id is an alias; last duplicate wins."""
        self._refuse_alias_ids(tenant_id, [entity.id for entity in entities])
        copies = [_stored(entity) for entity in entities]
        for entity in copies:
            self._write_entity(tenant_id, entity)

    async def get_entity(self, tenant_id: TenantId, entity_id: EntityId) -> Entity | None:
        """A copy of the tenant's entity ``entity_id``, or ``None``."""
        stored = self._entities.get((tenant_id, entity_id))
        return None if stored is None else _copy(stored)

    async def get_entities(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, Entity]:
        """Copies of the tenant's entities among ``entity_ids``; absent ids are omitted."""
        found: dict[EntityId, Entity] = {}
        for entity_id in set(entity_ids):
            stored = self._entities.get((tenant_id, entity_id))
            if stored is not None:
                found[entity_id] = _copy(stored)
        return found

    async def find_entities(
        self,
        tenant_id: TenantId,
        *,
        entity_type: str | None = None,
        limit: int = 100,
        after: EntityId | None = None,
    ) -> list[Entity]:
        """Up to ``limit`` copies ascending by id text, strictly after ``after`` when given."""
        validate_limit(limit)
        cursor = None if after is None else id_text(after)
        matching = [
            entity
            for (owner, _), entity in self._entities.items()
            if owner == tenant_id
            and (entity_type is None or entity.type == entity_type)
            and (cursor is None or id_text(entity.id) > cursor)
        ]
        return _copies(_by_id_text(matching)[:limit])

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        """Remove the tenant's live entities among ``entity_ids``; returns how many.

        Their index entries, every edge touching them and every alias pointing at them go too;
        alias ids and absent ids are ignored. Nothing can fail midway, so it is all or nothing.
        """
        doomed = {entity_id for entity_id in entity_ids if (tenant_id, entity_id) in self._entities}
        for entity_id in doomed:
            self._unindex(tenant_id, self._entities.pop((tenant_id, entity_id)))
            for edge_id in list(self._edge_ids_touching(tenant_id, entity_id)):
                self._drop_edge(tenant_id, edge_id)
            for alias_id in list(self._aliases_of.get((tenant_id, entity_id), ())):
                self._drop_alias(tenant_id, alias_id)
        return len(doomed)

    # -- blocking keys ----------------------------------------------------------------------

    async def find_by_blocking_key(self, tenant_id: TenantId, key: str) -> list[Entity]:
        """Copies of the entities indexed under ``key``, ascending by id text."""
        return _copies(self._indexed_under(tenant_id, key))

    async def find_by_blocking_keys(
        self,
        tenant_id: TenantId,
        keys: Collection[str],
        *,
        limit_per_key: int | None = None,
    ) -> dict[str, list[Entity]]:
        """For each key holding at least one entity, copies of those entities by id text.

        With ``limit_per_key`` only the first that many ids of each key are chosen, before any
        copying, so a broad key costs a selection, not a deep copy of its whole bucket.
        """
        validate_limit_per_key(limit_per_key)
        found: dict[str, list[Entity]] = {}
        for key in set(keys):
            indexed = self._indexed_under(tenant_id, key, limit_per_key)
            if indexed:
                found[key] = _copies(indexed)
        return found

    # -- aliases ----------------------------------------------------------------------------

    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        """Record that ``alias.alias_id`` resolves to ``alias.canonical_id``; last write wins.

        In the port's order: ``ValueError`` for a self-alias, then
        :class:`MissingEntityError` for an absent canonical, then ``ValueError`` for an alias
        id that is a live entity.
        """
        if alias.alias_id == alias.canonical_id:
            raise InvalidArgumentError(
                f"alias {alias.alias_id} points at itself: an alias must name a different, "
                "live canonical entity"
            )
        self._require_entities(tenant_id, [alias.canonical_id])
        if (tenant_id, alias.alias_id) in self._entities:
            raise InvalidArgumentError(
                f"alias id {alias.alias_id} is a live entity of tenant {tenant_id!r}: only an "
                "id that is not an entity can become an alias"
            )
        self._write_alias(tenant_id, alias.model_copy(deep=True))

    async def remove_alias(self, tenant_id: TenantId, alias_id: EntityId) -> bool:
        """Forget the alias ``alias_id``; ``False`` when the tenant had none."""
        return self._drop_alias(tenant_id, alias_id)

    async def find_aliases(self, tenant_id: TenantId, canonical_id: EntityId) -> list[Alias]:
        """Copies of the aliases pointing at ``canonical_id``, ascending by alias id text."""
        pointing = [
            self._aliases[(tenant_id, alias_id)]
            for alias_id in self._aliases_of.get((tenant_id, canonical_id), ())
        ]
        pointing.sort(key=lambda alias: id_text(alias.alias_id))
        return [alias.model_copy(deep=True) for alias in pointing]

    async def resolve_entity_ids(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, EntityId]:
        """Each id to the live entity it denotes: itself, or its alias's canonical id."""
        resolved: dict[EntityId, EntityId] = {}
        for entity_id in set(entity_ids):
            if (tenant_id, entity_id) in self._entities:
                resolved[entity_id] = entity_id
            elif (alias := self._aliases.get((tenant_id, entity_id))) is not None:
                resolved[entity_id] = alias.canonical_id
        return resolved

    # -- relationships ----------------------------------------------------------------------

    async def upsert_relationship(self, tenant_id: TenantId, relationship: Relationship) -> None:
        """Insert or replace an edge; :class:`MissingEntityError` when an endpoint is absent."""
        await self.upsert_relationships(tenant_id, [relationship])

    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        """Insert or replace every edge, or none when any endpoint is absent; last id wins."""
        # First pass: decide the whole batch before the second pass writes any of it.
        endpoints = [
            endpoint
            for relationship in relationships
            for endpoint in (relationship.subject_id, relationship.object_id)
        ]
        self._require_entities(tenant_id, endpoints)
        copies = [_stored(relationship) for relationship in relationships]
        for relationship in copies:
            self._write_edge(tenant_id, relationship)

    async def get_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> Relationship | None:
        """A copy of the edge ``relationship_id``, or ``None``."""
        stored = self._relationships.get((tenant_id, relationship_id))
        return None if stored is None else _copy(stored)

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        """Copies of every edge touching any of ``entity_ids`` (``among``: with both ends in
        them), each once, by id text; only the edges returned are copied."""
        wanted = set(entity_ids)
        edges = self._relationships
        if among:
            # An edge among them leaves one of them: its subject's outgoing set holds it once.
            touching = [
                edge
                for entity_id in wanted
                for edge_id in self._outgoing.get((tenant_id, entity_id), ())
                if (edge := edges[(tenant_id, edge_id)]).object_id in wanted
            ]
        else:
            edge_ids = {
                edge_id
                for entity_id in wanted
                for edge_id in self._edge_ids_touching(tenant_id, entity_id)
            }
            touching = [edges[(tenant_id, edge_id)] for edge_id in edge_ids]
        touching.sort(key=lambda relationship: id_text(relationship.id))
        return [_copy(relationship) for relationship in touching]

    async def delete_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> bool:
        """Remove the edge; ``False`` when the tenant had no such edge."""
        return self._drop_edge(tenant_id, relationship_id)

    # -- traversal --------------------------------------------------------------------------

    async def neighbours(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        depth: int = 1,
        direction: Direction = "both",
        relationship_types: Collection[str] | None = None,
        limit: int | None = None,
    ) -> list[Neighbour]:
        """Entities within ``depth`` hops, each once at its smallest depth, by (depth, id text);
        the first ``limit`` of them, of which only those are copied.

        Breadth-first over the endpoint indexes, so a hop costs the edges of the frontier, not
        of the tenant, and the first level that reaches an entity is its smallest depth. The
        start is excluded even when a cycle leads back to it.
        """
        validate_traversal(depth, direction)
        if limit is not None:
            validate_limit(limit)
        if depth == 0 or (tenant_id, entity_id) not in self._entities:
            return []
        types = None if relationship_types is None else frozenset(relationship_types)
        reached: dict[EntityId, int] = {entity_id: 0}
        frontier = {entity_id}
        for level in range(1, depth + 1):
            frontier = {
                step
                for step in self._steps(tenant_id, frontier, direction, types)
                if step not in reached
            }
            if not frontier:
                break
            reached.update(dict.fromkeys(frontier, level))
        del reached[entity_id]
        ordered = sorted(reached.items(), key=lambda item: (item[1], id_text(item[0])))
        if limit is not None:
            ordered = ordered[:limit]
        return [
            Neighbour(entity=_copy(self._entities[(tenant_id, reached_id)]), depth=level)
            for reached_id, level in ordered
        ]

    # -- tenancy ----------------------------------------------------------------------------

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Delete the tenant's entities, aliases, keys and edges; returns entities removed."""
        removed = 0
        for key in [key for key in self._entities if key[0] == tenant_id]:
            del self._entities[key]
            removed += 1
        for alias_key in [key for key in self._aliases if key[0] == tenant_id]:
            del self._aliases[alias_key]
        for edge_key in [key for key in self._relationships if key[0] == tenant_id]:
            del self._relationships[edge_key]
        for index_key in [key for key in self._blocking if key[0] == tenant_id]:
            del self._blocking[index_key]
        for index in (self._outgoing, self._incoming, self._aliases_of):
            for endpoint_key in [key for key in index if key[0] == tenant_id]:
                del index[endpoint_key]
        return removed

    # -- self-check -------------------------------------------------------------------------

    def index_problems(self) -> list[str]:
        """How the indexes and rows break the store's rules; ``[]`` when they keep them.

        The key, endpoint and alias indexes are rebuilt from the rows and compared with the
        ones the writes kept in step, and the rows are checked against the port: no dangling
        edge or alias, no alias id that is an entity, each key and evidence chunk once. A
        half-applied update is named here instead of passing silently. For tests; it reads
        the whole store.
        """
        problems: list[str] = []
        blocking: dict[tuple[TenantId, str], set[EntityId]] = {}
        for (tenant_id, entity_id), entity in self._entities.items():
            if entity.id != entity_id:
                problems.append(f"entity row {entity_id} holds entity {entity.id}")
            if entity.blocking_keys != key_set(entity.blocking_keys):
                problems.append(f"entity {entity_id} holds keys {entity.blocking_keys!r}")
            if len(distinct(entity.provenance.chunk_ids)) != len(entity.provenance.chunk_ids):
                problems.append(f"entity {entity_id} names an evidence chunk twice")
            if (tenant_id, entity_id) in self._aliases:
                problems.append(f"{entity_id} is both an entity and an alias of {tenant_id!r}")
            for key in entity.blocking_keys:
                blocking.setdefault((tenant_id, key), set()).add(entity_id)
        outgoing: dict[tuple[TenantId, EntityId], set[RelationshipId]] = {}
        incoming: dict[tuple[TenantId, EntityId], set[RelationshipId]] = {}
        for (tenant_id, edge_id), edge in self._relationships.items():
            if edge.id != edge_id:
                problems.append(f"relationship row {edge_id} holds relationship {edge.id}")
            if len(distinct(edge.provenance.chunk_ids)) != len(edge.provenance.chunk_ids):
                problems.append(f"relationship {edge_id} names an evidence chunk twice")
            for end in (edge.subject_id, edge.object_id):
                if (tenant_id, end) not in self._entities:
                    problems.append(f"relationship {edge_id} dangles: no entity {end}")
            outgoing.setdefault((tenant_id, edge.subject_id), set()).add(edge_id)
            incoming.setdefault((tenant_id, edge.object_id), set()).add(edge_id)
        aliases_of: dict[tuple[TenantId, EntityId], set[EntityId]] = {}
        for (tenant_id, alias_id), alias in self._aliases.items():
            if alias.alias_id != alias_id:
                problems.append(f"alias row {alias_id} holds alias {alias.alias_id}")
            if (tenant_id, alias.canonical_id) not in self._entities:
                problems.append(f"alias {alias_id} dangles: no entity {alias.canonical_id}")
            aliases_of.setdefault((tenant_id, alias.canonical_id), set()).add(alias_id)
        problems += _index_difference("blocking-key", self._blocking, blocking)
        problems += _index_difference("outgoing-edge", self._outgoing, outgoing)
        problems += _index_difference("incoming-edge", self._incoming, incoming)
        problems += _index_difference("alias", self._aliases_of, aliases_of)
        return problems

    # -- internals --------------------------------------------------------------------------

    def _write_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        previous = self._entities.get((tenant_id, entity.id))
        if previous is not None:
            self._unindex(tenant_id, previous)
        for key in entity.blocking_keys:
            self._blocking.setdefault((tenant_id, key), set()).add(entity.id)
        self._entities[(tenant_id, entity.id)] = entity

    def _unindex(self, tenant_id: TenantId, entity: Entity) -> None:
        """Drop ``entity`` from the index entries of the keys it was stored with."""
        for key in entity.blocking_keys:
            indexed = self._blocking[(tenant_id, key)]
            indexed.discard(entity.id)
            if not indexed:
                del self._blocking[(tenant_id, key)]

    def _indexed_under(
        self, tenant_id: TenantId, key: str, limit: int | None = None
    ) -> list[Entity]:
        """The stored (not copied) entities under ``key``, the first ``limit`` by id text."""
        ids = self._blocking.get((tenant_id, key), set())
        if limit is not None and limit < len(ids):
            ids = set(heapq.nsmallest(limit, ids, key=id_text))
        return _by_id_text([self._entities[(tenant_id, entity_id)] for entity_id in ids])

    def _write_edge(self, tenant_id: TenantId, edge: Relationship) -> None:
        self._drop_edge(tenant_id, edge.id)
        self._relationships[(tenant_id, edge.id)] = edge
        self._outgoing.setdefault((tenant_id, edge.subject_id), set()).add(edge.id)
        self._incoming.setdefault((tenant_id, edge.object_id), set()).add(edge.id)

    def _drop_edge(self, tenant_id: TenantId, edge_id: RelationshipId) -> bool:
        edge = self._relationships.pop((tenant_id, edge_id), None)
        if edge is None:
            return False
        _unlist(self._outgoing, (tenant_id, edge.subject_id), edge_id)
        _unlist(self._incoming, (tenant_id, edge.object_id), edge_id)
        return True

    def _edge_ids_touching(self, tenant_id: TenantId, entity_id: EntityId) -> set[RelationshipId]:
        """Ids of the edges with ``entity_id`` at either end (a self-loop once)."""
        key = (tenant_id, entity_id)
        return self._outgoing.get(key, set()) | self._incoming.get(key, set())

    def _steps(
        self,
        tenant_id: TenantId,
        frontier: set[EntityId],
        direction: Direction,
        types: frozenset[str] | None,
    ) -> Iterator[EntityId]:
        """Every entity one edge of an allowed type away from the frontier, along ``direction``."""
        for entity_id in frontier:
            if direction != "in":
                for edge_id in self._outgoing.get((tenant_id, entity_id), ()):
                    edge = self._relationships[(tenant_id, edge_id)]
                    if types is None or edge.type in types:
                        yield edge.object_id
            if direction != "out":
                for edge_id in self._incoming.get((tenant_id, entity_id), ()):
                    edge = self._relationships[(tenant_id, edge_id)]
                    if types is None or edge.type in types:
                        yield edge.subject_id

    def _write_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        self._drop_alias(tenant_id, alias.alias_id)
        self._aliases[(tenant_id, alias.alias_id)] = alias
        self._aliases_of.setdefault((tenant_id, alias.canonical_id), set()).add(alias.alias_id)

    def _drop_alias(self, tenant_id: TenantId, alias_id: EntityId) -> bool:
        alias = self._aliases.pop((tenant_id, alias_id), None)
        if alias is None:
            return False
        _unlist(self._aliases_of, (tenant_id, alias.canonical_id), alias_id)
        return True

    def _refuse_alias_ids(self, tenant_id: TenantId, entity_ids: Iterable[EntityId]) -> None:
        for entity_id in entity_ids:
            alias = self._aliases.get((tenant_id, entity_id))
            if alias is not None:
                raise InvalidArgumentError(
                    f"entity id {entity_id} is an alias of {alias.canonical_id} in tenant "
                    f"{tenant_id!r}: remove the alias before storing an entity under that id"
                )

    def _require_entities(self, tenant_id: TenantId, entity_ids: Iterable[EntityId]) -> None:
        missing = {
            entity_id for entity_id in entity_ids if (tenant_id, entity_id) not in self._entities
        }
        if missing:
            raise MissingEntityError(sorted(missing, key=id_text), tenant_id=tenant_id)


def _by_id_text(entities: Iterable[Entity]) -> list[Entity]:
    return sorted(entities, key=lambda entity: id_text(entity.id))


def _copies(entities: Iterable[Entity]) -> list[Entity]:
    return [_copy(entity) for entity in entities]


_Key = TypeVar("_Key")
_Member = TypeVar("_Member")
_Stored = TypeVar("_Stored", Entity, Relationship)


def _unlist(index: dict[_Key, set[_Member]], key: _Key, member: _Member) -> None:
    """Take ``member`` out of ``index[key]``, dropping the entry once it is empty."""
    members = index.get(key)
    if members is not None:
        members.discard(member)
        if not members:
            del index[key]


def _copy(model: _Stored) -> _Stored:
    """A deep copy of an entity or edge at a fifth of ``model_copy(deep=True)``'s cost.

    Every field but ``attributes`` and ``provenance`` is immutable (ids, strings, tuples),
    so a shallow copy shares them safely; ``provenance`` holds only immutable fields, so a
    shallow copy of it is a deep one; ``attributes`` is JSON, copied by :func:`json_copy`.
    Copying is most of the cost of a read here (a query reads a thousand edges on a dense
    graph), which is why this is neither ``deepcopy`` nor ``copy.copy``: each model is made
    the way pydantic's own ``__copy__`` makes it, without its generic per-attribute copies.
    """
    fields = model.__dict__.copy()
    fields["attributes"] = json_copy(model.attributes)
    fields["provenance"] = _shallow(model.provenance)
    return _built(model, fields)


_S = TypeVar("_S", bound=BaseModel)


def _shallow(model: _S) -> _S:
    return _built(model, model.__dict__.copy())


def _built(model: _S, fields: dict[str, object]) -> _S:
    """A model of ``model``'s class holding ``fields``, set as pydantic sets a copy's."""
    if model.__pydantic_extra__ is not None or model.__pydantic_private__ is not None:
        clone = copy.copy(model)  # not reachable with redstring's models (extra="forbid")
        object.__setattr__(clone, "__dict__", fields)
        return clone
    cls = type(model)
    clone = cls.__new__(cls)
    object.__setattr__(clone, "__dict__", fields)
    object.__setattr__(clone, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    object.__setattr__(clone, "__pydantic_extra__", None)
    object.__setattr__(clone, "__pydantic_private__", None)
    return clone


def _index_difference(
    name: str, held: Mapping[_Key, set[_Member]], rebuilt: Mapping[_Key, set[_Member]]
) -> list[str]:
    """A problem naming where an index differs from the one its rows imply, if it does."""
    differing = sorted(
        str(key) for key in held.keys() | rebuilt.keys() if held.get(key) != rebuilt.get(key)
    )
    return [f"the {name} index differs from the rows at {differing}"] if differing else []


def _stored(model: _Stored) -> _Stored:
    """The copy of ``model`` this store keeps: its lists as validation holds them (ADR 0028).

    A list set with ``model_copy(update=...)`` skips validation; holding it as given would
    index an entity under one key twice, and the second removal would fail.
    """
    clone = _copy(model)
    if isinstance(clone, Entity):
        clone.__dict__["blocking_keys"] = key_set(model.blocking_keys)
    clone.provenance.__dict__["chunk_ids"] = distinct(model.provenance.chunk_ids)
    return clone
