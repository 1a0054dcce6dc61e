"""Neo4jGraphStore: the GraphStore port on Neo4j 5 through the official async driver.

The graph is stored as a graph. Every node carries ``tenant_id`` and is keyed on
``(tenant_id, id)`` by a uniqueness constraint (see :meth:`Neo4jGraphStore.ensure_schema`):

* ``(:Entity {tenant_id, id, type, name, blocking_keys, attributes_json, provenance_json})``
* ``(:Entity)-[:RELATES {tenant_id, id, type, attributes_json, provenance_json}]->(:Entity)``
* ``(:Alias {tenant_id, id, name})-[:ALIAS_OF]->(:Entity)``
* ``(:BlockingKey {tenant_id, key})-[:INDEXES]->(:Entity)``: keys are nodes, so a candidate
  lookup is an index seek on the key followed by an expansion.

Entity and relationship *types* are properties under the generic ``Entity`` label and
``RELATES`` relationship type, never labels or relationship types of their own. Types come
from users, and Cypher cannot take a label or a relationship type as a parameter, so the
alternative is text interpolation; with types as properties every user value travels as a
parameter and no query text depends on user input. ``attributes`` and ``provenance`` are
nested JSON, which Neo4j properties cannot hold, so they are stored as JSON text.

Each port method is one Cypher query in one managed transaction, so every batch write is
all-or-nothing and every batch read is one round trip.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Mapping, Sequence
from types import TracebackType
from typing import Any, LiteralString, Self

from neo4j import AsyncDriver, AsyncGraphDatabase, Auth, EagerResult, RoutingControl

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, RelationshipId, TenantId, id_text
from redstring.domain.models import Alias, Entity, Neighbour, Provenance, Relationship, key_set
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import (
    MAX_LIMIT,
    Direction,
    validate_limit,
    validate_limit_per_key,
    validate_traversal,
)
from redstring.ports.text_arguments import checks_text_arguments

DEFAULT_DATABASE = "neo4j"

SCHEMA: tuple[LiteralString, ...] = (
    "CREATE CONSTRAINT redstring_entity_key IF NOT EXISTS "
    "FOR (e:Entity) REQUIRE (e.tenant_id, e.id) IS UNIQUE",
    "CREATE CONSTRAINT redstring_alias_key IF NOT EXISTS "
    "FOR (a:Alias) REQUIRE (a.tenant_id, a.id) IS UNIQUE",
    "CREATE CONSTRAINT redstring_blocking_key_key IF NOT EXISTS "
    "FOR (k:BlockingKey) REQUIRE (k.tenant_id, k.key) IS UNIQUE",
    "CREATE CONSTRAINT redstring_relates_key IF NOT EXISTS "
    "FOR ()-[r:RELATES]-() REQUIRE (r.tenant_id, r.id) IS UNIQUE",
    "CREATE INDEX redstring_entity_type IF NOT EXISTS "
    "FOR (e:Entity) ON (e.tenant_id, e.type, e.id)",
)
"""The constraints and indexes :meth:`Neo4jGraphStore.ensure_schema` creates (Community-safe)."""

# A map projection of an :Entity node, read back by _entity().
_ENTITY: LiteralString = "{.id, .type, .name, .blocking_keys, .attributes_json, .provenance_json}"

# A map projection of a :RELATES edge bound to `r`, read back by _relationship().
_RELATIONSHIP: LiteralString = (
    "{.id, .type, .attributes_json, .provenance_json, "
    "subject_id: startNode(r).id, object_id: endNode(r).id}"
)

_UPSERT_ENTITIES: LiteralString = """
UNWIND $rows AS row
OPTIONAL MATCH (a:Alias {tenant_id: $tenant_id, id: row.id})
WITH collect(a.id) AS aliased
CALL (aliased) {
  WITH aliased WHERE size(aliased) = 0
  UNWIND $rows AS row
  MERGE (e:Entity {tenant_id: $tenant_id, id: row.id})
  SET e += row.properties
  WITH e, row
  CALL (e) {
    OPTIONAL MATCH (:BlockingKey)-[old:INDEXES]->(e)
    DELETE old
  }
  CALL (e, row) {
    UNWIND row.properties.blocking_keys AS key
    MERGE (k:BlockingKey {tenant_id: $tenant_id, key: key})
    CREATE (k)-[:INDEXES]->(e)
  }
}
RETURN aliased
"""

_UPSERT_RELATIONSHIPS: LiteralString = """
UNWIND $endpoints AS endpoint
OPTIONAL MATCH (e:Entity {tenant_id: $tenant_id, id: endpoint})
WITH collect(CASE WHEN e IS NULL THEN endpoint END) AS missing
CALL (missing) {
  WITH missing WHERE size(missing) = 0
  UNWIND $rows AS row
  MATCH (s:Entity {tenant_id: $tenant_id, id: row.subject_id})
  MATCH (o:Entity {tenant_id: $tenant_id, id: row.object_id})
  OPTIONAL MATCH ()-[old:RELATES {tenant_id: $tenant_id, id: row.id}]->()
  DELETE old
  CREATE (s)-[r:RELATES {tenant_id: $tenant_id, id: row.id}]->(o)
  SET r += row.properties
}
RETURN missing
"""

_UPSERT_ALIAS: LiteralString = """
OPTIONAL MATCH (c:Entity {tenant_id: $tenant_id, id: $canonical_id})
OPTIONAL MATCH (live:Entity {tenant_id: $tenant_id, id: $alias_id})
CALL (c, live) {
  WITH c, live WHERE c IS NOT NULL AND live IS NULL
  MERGE (a:Alias {tenant_id: $tenant_id, id: $alias_id})
  SET a.name = $name
  WITH a, c
  CALL (a) {
    OPTIONAL MATCH (a)-[old:ALIAS_OF]->()
    DELETE old
  }
  CREATE (a)-[:ALIAS_OF]->(c)
}
RETURN c IS NOT NULL AS canonical_exists, live IS NOT NULL AS alias_is_live
"""

# DETACH DELETE takes each entity's RELATES edges (either end) and the INDEXES edges from its
# key nodes; its Alias nodes are deleted first, and Alias nodes of other entities stay put.
# Key nodes a deletion leaves unlinked stay too, as after an upsert that drops a key.
_DELETE_ENTITIES: LiteralString = """
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, id: id})
OPTIONAL MATCH (a:Alias {tenant_id: $tenant_id})-[:ALIAS_OF]->(e)
WITH e, collect(a) AS aliases
FOREACH (a IN aliases | DETACH DELETE a)
DETACH DELETE e
RETURN count(*) AS removed
"""

# One hop of a neighbours() path, by (direction, filtered by relationship type).
_HOP: dict[tuple[str, bool], LiteralString] = {
    ("out", False): "()-[r:RELATES]->()",
    ("in", False): "()<-[r:RELATES]-()",
    ("both", False): "()-[r:RELATES]-()",
    ("out", True): "()-[r:RELATES WHERE r.type IN $types]->()",
    ("in", True): "()<-[r:RELATES WHERE r.type IN $types]-()",
    ("both", True): "()-[r:RELATES WHERE r.type IN $types]-()",
}


@checks_text_arguments()
class Neo4jGraphStore:
    """A tenant-scoped GraphStore on Neo4j 5 (Community or Enterprise).

    Built on a driver you own, ``Neo4jGraphStore(driver)`` never closes it; built by
    :meth:`connect`, the store owns its driver and ``close()`` releases it. ``close()`` is
    safe to call twice, and ``async with`` binds the store and closes it on exit without
    suppressing exceptions. Call :meth:`ensure_schema` once per database before relying on
    uniqueness or on the indexes that keep lookups fast.
    """

    def __init__(self, driver: AsyncDriver, *, database: str = DEFAULT_DATABASE) -> None:
        self._driver = driver
        self._database = database
        self._owns_driver = False
        self._closed = False

    @classmethod
    async def connect(
        cls,
        uri: str,
        auth: tuple[str, str] | Auth | None,
        *,
        database: str = DEFAULT_DATABASE,
    ) -> Self:
        """Open a driver to ``uri``, check the server answers, and return a store owning it.

        Raises the driver's connection error (after closing the driver) when the server is
        unreachable or refuses ``auth``; pass ``auth=None`` for a server without auth.
        """
        driver = AsyncGraphDatabase.driver(uri, auth=auth)
        try:
            await driver.verify_connectivity()
        except BaseException:
            await driver.close()
            raise
        store = cls(driver, database=database)
        store._owns_driver = True
        return store

    async def ensure_schema(self) -> None:
        """Create the uniqueness constraints and indexes of :data:`SCHEMA`; idempotent.

        Only constraints Neo4j Community supports are used: composite uniqueness on
        ``(tenant_id, id)`` for nodes and relationships, none of the Enterprise-only node
        key, existence or property-type constraints.
        """
        for statement in SCHEMA:
            await self._run(statement, {})

    async def close(self) -> None:
        """Close the driver if this store opened it (via :meth:`connect`). Safe twice."""
        if self._owns_driver and not self._closed:
            self._closed = True
            await self._driver.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- entities ------------------------------------------------------------------------

    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        """Insert or replace ``entity`` and its blocking-key links; see :meth:`upsert_entities`."""
        await self.upsert_entities(tenant_id, [entity])

    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        """Insert or replace every entity in one query; the last duplicate id wins.

        Raises :class:`InvalidArgumentError` (a ``ValueError``), writing nothing, when any id
        is an alias of the tenant.
        """
        latest = {entity.id: entity for entity in entities}
        if not latest:
            return
        rows = [
            {"id": id_text(entity.id), "properties": _entity_properties(entity)}
            for entity in latest.values()
        ]
        result = await self._run(_UPSERT_ENTITIES, {"tenant_id": tenant_id, "rows": rows})
        aliased = sorted(result.records[0]["aliased"])
        if aliased:
            raise InvalidArgumentError(
                f"tenant {tenant_id!r} holds {', '.join(aliased)} as an alias of another "
                "entity: upsert the canonical entity, or remove the alias first"
            )

    async def get_entity(self, tenant_id: TenantId, entity_id: EntityId) -> Entity | None:
        """The tenant's entity ``entity_id``, or ``None``."""
        found = await self.get_entities(tenant_id, [entity_id])
        return found.get(entity_id)

    async def get_entities(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, Entity]:
        """The tenant's entities among ``entity_ids`` (absent ids omitted), in one query."""
        if not entity_ids:
            return {}
        result = await self._read(
            "UNWIND $ids AS id MATCH (e:Entity {tenant_id: $tenant_id, id: id}) "
            "RETURN e" + _ENTITY + " AS entity",
            {"tenant_id": tenant_id, "ids": sorted({id_text(i) for i in entity_ids})},
        )
        entities = (_entity(record["entity"]) for record in result.records)
        return {entity.id: entity for entity in entities}

    async def find_entities(
        self,
        tenant_id: TenantId,
        *,
        entity_type: str | None = None,
        limit: int = 100,
        after: EntityId | None = None,
    ) -> list[Entity]:
        """Up to ``limit`` entities ascending by id text, strictly after ``after`` if given.

        Raises :class:`InvalidArgumentError` for a negative ``limit``.
        """
        validate_limit(limit)
        if limit == 0:
            return []
        # Ordering by the whole index key (all but id are fixed by equality, so the order is
        # the id order) lets the planner read the index in order and stop at `limit`;
        # `IS NOT NULL` is what makes a composite index usable without a range on id.
        where: LiteralString = "e.id > $after" if after is not None else "e.id IS NOT NULL"
        order: LiteralString = "e.tenant_id, e.id"
        if entity_type is not None:
            where += " AND e.type = $entity_type"
            order = "e.tenant_id, e.type, e.id"
        result = await self._read(
            "MATCH (e:Entity) WHERE e.tenant_id = $tenant_id AND " + where + " "
            "RETURN e" + _ENTITY + " AS entity ORDER BY " + order + " LIMIT $limit",
            {
                "tenant_id": tenant_id,
                "after": id_text(after) if after is not None else None,
                "entity_type": entity_type,
                "limit": limit,
            },
        )
        return [_entity(record["entity"]) for record in result.records]

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        """Remove the tenant's live entities among ``entity_ids``; returns how many.

        One query in one transaction: each entity goes with its edges (either end), its
        blocking-key links and the Alias nodes pointing at it. Alias ids and absent ids match
        no ``:Entity`` node and are ignored.
        """
        if not entity_ids:
            return 0
        result = await self._run(
            _DELETE_ENTITIES,
            {"tenant_id": tenant_id, "ids": sorted({id_text(i) for i in entity_ids})},
        )
        return int(result.records[0]["removed"])

    # -- aliases -------------------------------------------------------------------------

    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        """Point ``alias.alias_id`` at ``alias.canonical_id``; the last write wins.

        Raises :class:`MissingEntityError` when the canonical entity is absent and
        :class:`InvalidArgumentError` when the alias id is the canonical id or a live entity.
        """
        if alias.alias_id == alias.canonical_id:
            raise InvalidArgumentError(
                f"alias {alias.alias_id} cannot point at itself: an alias names another entity"
            )
        result = await self._run(
            _UPSERT_ALIAS,
            {
                "tenant_id": tenant_id,
                "alias_id": id_text(alias.alias_id),
                "canonical_id": id_text(alias.canonical_id),
                "name": alias.name,
            },
        )
        record = result.records[0]
        if not record["canonical_exists"]:
            raise MissingEntityError([alias.canonical_id], tenant_id=tenant_id)
        if record["alias_is_live"]:
            raise InvalidArgumentError(
                f"tenant {tenant_id!r} holds a live entity {alias.alias_id}: an alias id must "
                "not be an entity's id"
            )

    async def remove_alias(self, tenant_id: TenantId, alias_id: EntityId) -> bool:
        """Forget an alias; ``False`` when there was none."""
        result = await self._run(
            "MATCH (a:Alias {tenant_id: $tenant_id, id: $alias_id}) "
            "DETACH DELETE a RETURN count(*) AS removed",
            {"tenant_id": tenant_id, "alias_id": id_text(alias_id)},
        )
        return bool(result.records[0]["removed"])

    async def find_aliases(self, tenant_id: TenantId, canonical_id: EntityId) -> list[Alias]:
        """Aliases pointing at ``canonical_id``, ascending by alias id text."""
        result = await self._read(
            "MATCH (a:Alias)-[:ALIAS_OF]->(c:Entity {tenant_id: $tenant_id, id: $canonical_id}) "
            "WHERE a.tenant_id = $tenant_id "
            "RETURN a.id AS alias_id, a.name AS name ORDER BY a.id",
            {"tenant_id": tenant_id, "canonical_id": id_text(canonical_id)},
        )
        return [
            Alias(
                alias_id=_entity_id(record["alias_id"]),
                canonical_id=canonical_id,
                name=record["name"],
            )
            for record in result.records
        ]

    async def resolve_entity_ids(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, EntityId]:
        """Map each id to the live entity it denotes (itself, or an alias's canonical entity).

        Ids that denote nothing are omitted. One query.
        """
        if not entity_ids:
            return {}
        result = await self._read(
            """
            UNWIND $ids AS id
            OPTIONAL MATCH (e:Entity {tenant_id: $tenant_id, id: id})
            OPTIONAL MATCH (:Alias {tenant_id: $tenant_id, id: id})-[:ALIAS_OF]->(c:Entity)
            WITH id, coalesce(e.id, c.id) AS target
            WHERE target IS NOT NULL
            RETURN id, target
            """,
            {"tenant_id": tenant_id, "ids": sorted({id_text(i) for i in entity_ids})},
        )
        return {_entity_id(record["id"]): _entity_id(record["target"]) for record in result.records}

    # -- blocking keys -------------------------------------------------------------------

    async def find_by_blocking_key(self, tenant_id: TenantId, key: str) -> list[Entity]:
        """Entities indexed under ``key``, ascending by id text."""
        found = await self.find_by_blocking_keys(tenant_id, [key])
        return found.get(key, [])

    async def find_by_blocking_keys(
        self,
        tenant_id: TenantId,
        keys: Collection[str],
        *,
        limit_per_key: int | None = None,
    ) -> dict[str, list[Entity]]:
        """For each key with at least one entity, those entities ascending by id; one query.

        Each key runs its own ``CALL`` subquery ordered by id text with ``LIMIT``, so the
        limit applies per key; without one the subquery's limit is ``MAX_LIMIT``.
        """
        validate_limit_per_key(limit_per_key)
        if not keys:
            return {}
        result = await self._read(
            "UNWIND $keys AS key "
            "CALL (key) { "
            "MATCH (:BlockingKey {tenant_id: $tenant_id, key: key})-[:INDEXES]->(e:Entity) "
            "WITH e ORDER BY e.id LIMIT $limit "
            "RETURN collect(e" + _ENTITY + ") AS entities } "
            "WITH key, entities WHERE size(entities) > 0 "
            "RETURN key, entities",
            {
                "tenant_id": tenant_id,
                "keys": sorted(set(keys)),
                "limit": MAX_LIMIT if limit_per_key is None else limit_per_key,
            },
        )
        return {
            record["key"]: [_entity(entity) for entity in record["entities"]]
            for record in result.records
        }

    # -- relationships -------------------------------------------------------------------

    async def upsert_relationship(self, tenant_id: TenantId, relationship: Relationship) -> None:
        """Insert or replace an edge; :class:`MissingEntityError` if an endpoint is absent."""
        await self.upsert_relationships(tenant_id, [relationship])

    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        """Insert or replace every edge in one query, all or nothing; the last duplicate wins.

        Raises :class:`MissingEntityError` naming every absent endpoint, having written
        nothing, when any endpoint is not an entity of the tenant.
        """
        latest = {relationship.id: relationship for relationship in relationships}
        if not latest:
            return
        # Every element's endpoints, not only the last write per id: all or nothing.
        endpoints = sorted(
            {id_text(r.subject_id) for r in relationships}
            | {id_text(r.object_id) for r in relationships}
        )
        rows = [
            {
                "id": id_text(r.id),
                "subject_id": id_text(r.subject_id),
                "object_id": id_text(r.object_id),
                "properties": {
                    "type": r.type,
                    "attributes_json": _dump_json(r.attributes),
                    "provenance_json": r.provenance.model_dump_json(),
                },
            }
            for r in latest.values()
        ]
        result = await self._run(
            _UPSERT_RELATIONSHIPS,
            {"tenant_id": tenant_id, "rows": rows, "endpoints": endpoints},
        )
        missing = sorted(result.records[0]["missing"])
        if missing:
            raise MissingEntityError([_entity_id(value) for value in missing], tenant_id=tenant_id)

    async def get_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> Relationship | None:
        """The edge ``relationship_id``, or ``None``."""
        result = await self._read(
            "MATCH ()-[r:RELATES {tenant_id: $tenant_id, id: $id}]->() "
            "RETURN r" + _RELATIONSHIP + " AS relationship",
            {"tenant_id": tenant_id, "id": id_text(relationship_id)},
        )
        if not result.records:
            return None
        return _relationship(result.records[0]["relationship"])

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        """Every edge touching any of ``entity_ids`` (``among``: with both ends in them),
        each once, ascending by id; one query."""
        if not entity_ids:
            return []
        other = " WHERE other.id IN $ids" if among else ""
        result = await self._read(
            "UNWIND $ids AS id "
            "MATCH (:Entity {tenant_id: $tenant_id, id: id})-[r:RELATES]-(other)"
            + other
            + " WITH DISTINCT r "
            "RETURN r" + _RELATIONSHIP + " AS relationship ORDER BY r.id",
            {"tenant_id": tenant_id, "ids": sorted({id_text(i) for i in entity_ids})},
        )
        return [_relationship(record["relationship"]) for record in result.records]

    async def delete_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> bool:
        """Remove an edge; ``False`` when it was not there."""
        result = await self._run(
            "MATCH ()-[r:RELATES {tenant_id: $tenant_id, id: $id}]->() "
            "DELETE r RETURN count(*) AS removed",
            {"tenant_id": tenant_id, "id": id_text(relationship_id)},
        )
        return bool(result.records[0]["removed"])

    # -- traversal -----------------------------------------------------------------------

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
        """Entities within ``depth`` hops, each once at its smallest depth, by (depth, id);
        the first ``limit`` of them (a ``LIMIT`` in the query).

        One query: Neo4j's shortest-path search expands breadth-first from the start entity
        and stops at ``depth``, so each entity is reached once rather than once per path.
        Raises :class:`InvalidArgumentError` for a negative depth or an unknown direction.
        """
        validate_traversal(depth, direction)
        if limit is not None:
            validate_limit(limit)
        if depth == 0 or (relationship_types is not None and not relationship_types):
            return []
        hop = _HOP[direction, relationship_types is not None]
        # The quantifier bound cannot be a parameter; `depth` is a validated int and `hop`
        # comes from the fixed table above, so nothing a caller supplies reaches the text.
        query = (
            "MATCH (s:Entity {tenant_id: $tenant_id, id: $id}) "
            "MATCH p = ANY SHORTEST (s)(" + hop + "){1," + str(int(depth)) + "}(n) WHERE n <> s "
            "RETURN length(p) AS depth, n"
            + _ENTITY
            + " AS entity ORDER BY depth, n.id"
            + ("" if limit is None else " LIMIT $limit")
        )
        result = await self._read(
            query,
            {
                "tenant_id": tenant_id,
                "id": id_text(entity_id),
                "types": sorted(set(relationship_types or ())),
                "limit": limit,
            },
        )
        return [
            Neighbour(entity=_entity(record["entity"]), depth=record["depth"])
            for record in result.records
        ]

    # -- tenants -------------------------------------------------------------------------

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Delete every entity, alias, blocking key and edge of the tenant; entities removed.

        One transaction, so a failure leaves the tenant whole.
        """
        result = await self._run(
            """
            CALL () {
              MATCH (n:Entity) WHERE n.tenant_id = $tenant_id AND n.id IS NOT NULL
              RETURN n, 1 AS entity
              UNION ALL
              MATCH (n:Alias) WHERE n.tenant_id = $tenant_id AND n.id IS NOT NULL
              RETURN n, 0 AS entity
              UNION ALL
              MATCH (n:BlockingKey) WHERE n.tenant_id = $tenant_id AND n.key IS NOT NULL
              RETURN n, 0 AS entity
            }
            DETACH DELETE n
            RETURN sum(entity) AS removed
            """,
            {"tenant_id": tenant_id},
        )
        return int(result.records[0]["removed"])

    # -- plumbing ------------------------------------------------------------------------

    async def _run(self, query: LiteralString, parameters: dict[str, Any]) -> EagerResult:
        result: EagerResult = await self._driver.execute_query(
            query, parameters, routing_=RoutingControl.WRITE, database_=self._database
        )
        return result

    async def _read(self, query: LiteralString, parameters: dict[str, Any]) -> EagerResult:
        result: EagerResult = await self._driver.execute_query(
            query, parameters, routing_=RoutingControl.READ, database_=self._database
        )
        return result


def _entity_properties(entity: Entity) -> dict[str, Any]:
    return {
        "type": entity.type,
        "name": entity.name,
        # Each key once, as the model holds them, even past validation (ADR 0028).
        "blocking_keys": list(key_set(entity.blocking_keys)),
        "attributes_json": _dump_json(entity.attributes),
        "provenance_json": entity.provenance.model_dump_json(),
    }


def _dump_json(value: object) -> str:
    # ensure_ascii=False keeps non-ASCII readable in the database; Neo4j strings are Unicode.
    # Keys keep the caller's order, as on every other backend (ADR 0023).
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _entity(row: Mapping[str, Any]) -> Entity:
    return Entity(
        id=_entity_id(row["id"]),
        type=row["type"],
        name=row["name"],
        blocking_keys=tuple(row["blocking_keys"] or ()),
        attributes=json.loads(row["attributes_json"]),
        provenance=Provenance.model_validate_json(row["provenance_json"]),
    )


def _relationship(row: Mapping[str, Any]) -> Relationship:
    return Relationship(
        id=RelationshipId(uuid.UUID(row["id"])),
        type=row["type"],
        subject_id=_entity_id(row["subject_id"]),
        object_id=_entity_id(row["object_id"]),
        attributes=json.loads(row["attributes_json"]),
        provenance=Provenance.model_validate_json(row["provenance_json"]),
    )


def _entity_id(text: str) -> EntityId:
    return EntityId(uuid.UUID(text))
