"""PostgresGraphStore: the GraphStore port on PostgreSQL, through asyncpg.

Four tables, all keyed on ``(tenant_id, id)``: entities, blocking keys (one row per key of an
entity), aliases and relationships. Relationships and aliases carry composite foreign keys to
``(tenant_id, id)`` of the entity table, so a dangling edge cannot be committed even by a
writer that skipped this class's own check, and an edge can never point into another tenant.

Ids are stored as ``uuid``. PostgreSQL compares uuids bytewise (unsigned, big-endian), which
is exactly the order of their canonical lowercase hyphenated text, so ``ORDER BY id`` is the
port's total order and an index on the native type serves it.

Entity writes take a tenant-wide *shared* advisory lock and alias writes an *exclusive* one,
so "an id is never both a live entity and an alias" holds under concurrency while entity
writers do not wait for one another.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

import asyncpg

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.models import Alias, Entity, Neighbour, Provenance, Relationship, key_set
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import (
    Direction,
    validate_limit,
    validate_limit_per_key,
    validate_traversal,
)
from redstring.ports.text_arguments import checks_text_arguments
from redstring.postgres.locks import lock_for_transaction
from redstring.postgres.pool import NamesOnlyStore, affected

__all__ = ["PostgresGraphStore"]

_INDEXED_CHARS = 200
"""How many leading characters of a blocking key the B-tree index holds (entries are ~2.7 kB
at most, and a key derived from a long name can be longer)."""


_DELETE_ATTEMPTS = 3
"""How often ``delete_entities`` runs its transaction when a concurrent edge write to a doomed
entity makes the foreign keys refuse it."""


_ENTITY_COLUMNS = "e.id, e.type, e.name, e.attributes, e.blocking_keys, e.provenance"
_RELATIONSHIP_COLUMNS = "r.id, r.type, r.subject_id, r.object_id, r.attributes, r.provenance"


def _entity(row: Any) -> Entity:
    return Entity(
        id=EntityId(row["id"]),
        type=row["type"],
        name=row["name"],
        attributes=json.loads(row["attributes"]),
        blocking_keys=tuple(row["blocking_keys"]),
        provenance=Provenance.model_validate_json(row["provenance"]),
    )


def _relationship(row: Any) -> Relationship:
    return Relationship(
        id=RelationshipId(row["id"]),
        type=row["type"],
        subject_id=EntityId(row["subject_id"]),
        object_id=EntityId(row["object_id"]),
        attributes=json.loads(row["attributes"]),
        provenance=Provenance.model_validate_json(row["provenance"]),
    )


def _json(value: Any) -> str:
    return json.dumps(value, allow_nan=False)


@checks_text_arguments()
class PostgresGraphStore(NamesOnlyStore):
    """Every tenant's entities, aliases, blocking keys and relationships in four tables.

    Build it over a pool you own (``close`` then leaves the pool open) or let :meth:`connect`
    create and own one. Call :meth:`ensure_schema` once before use; it is idempotent. Every
    batch write is one transaction and every batch read one statement.
    """

    LONGEST_SUFFIX = "relationships_subject_idx"

    def __init__(
        self, pool: asyncpg.Pool, *, prefix: str = "redstring_", schema: str = "public"
    ) -> None:
        super().__init__(pool, prefix=prefix, schema=schema)
        self._entities = self._names.table("entities")
        self._keys = self._names.table("blocking_keys")
        self._aliases = self._names.table("aliases")
        self._relationships = self._names.table("relationships")

    @property
    def tables(self) -> tuple[str, str, str, str]:
        """The quoted entity, blocking-key, alias and relationship table names."""
        return self._entities, self._keys, self._aliases, self._relationships

    async def ensure_schema(self) -> None:
        """Create the tables and indexes if missing; safe to run concurrently."""
        index = self._names.index
        statements = (
            f"""
            CREATE TABLE IF NOT EXISTS {self._entities} (
                tenant_id text COLLATE "C" NOT NULL,
                id uuid NOT NULL,
                type text COLLATE "C" NOT NULL,
                name text NOT NULL,
                attributes json NOT NULL,
                blocking_keys text[] COLLATE "C" NOT NULL,
                provenance json NOT NULL,
                PRIMARY KEY (tenant_id, id)
            )
            """,
            f"""
            CREATE TABLE IF NOT EXISTS {self._keys} (
                tenant_id text COLLATE "C" NOT NULL,
                key text COLLATE "C" NOT NULL,
                entity_id uuid NOT NULL
            )
            """,
            f"""
            CREATE TABLE IF NOT EXISTS {self._aliases} (
                tenant_id text COLLATE "C" NOT NULL,
                alias_id uuid NOT NULL,
                canonical_id uuid NOT NULL,
                name text,
                PRIMARY KEY (tenant_id, alias_id),
                FOREIGN KEY (tenant_id, canonical_id) REFERENCES {self._entities} (tenant_id, id)
            )
            """,
            f"""
            CREATE TABLE IF NOT EXISTS {self._relationships} (
                tenant_id text COLLATE "C" NOT NULL,
                id uuid NOT NULL,
                type text COLLATE "C" NOT NULL,
                subject_id uuid NOT NULL,
                object_id uuid NOT NULL,
                attributes json NOT NULL,
                provenance json NOT NULL,
                PRIMARY KEY (tenant_id, id),
                FOREIGN KEY (tenant_id, subject_id) REFERENCES {self._entities} (tenant_id, id),
                FOREIGN KEY (tenant_id, object_id) REFERENCES {self._entities} (tenant_id, id)
            )
            """,
            f"CREATE INDEX IF NOT EXISTS {index('entities_type_idx')} "
            f"ON {self._entities} (tenant_id, type, id)",
            # Entity id last: a key's first ids come off the index in order, so a per-key
            # limit stops early (ADR 0025). It replaces the index that lacked entity_id.
            f"DROP INDEX IF EXISTS {index('blocking_keys_key_idx')}",
            f"CREATE INDEX IF NOT EXISTS {index('blocking_keys_by_key_idx')} "
            f"ON {self._keys} (tenant_id, left(key, {_INDEXED_CHARS}), entity_id)",
            f"CREATE INDEX IF NOT EXISTS {index('blocking_keys_entity_idx')} "
            f"ON {self._keys} (tenant_id, entity_id)",
            f"CREATE INDEX IF NOT EXISTS {index('aliases_canonical_idx')} "
            f"ON {self._aliases} (tenant_id, canonical_id)",
            f"CREATE INDEX IF NOT EXISTS {index('relationships_subject_idx')} "
            f"ON {self._relationships} (tenant_id, subject_id)",
            f"CREATE INDEX IF NOT EXISTS {index('relationships_object_idx')} "
            f"ON {self._relationships} (tenant_id, object_id)",
        )
        async with self._schema_transaction() as conn:
            for statement in statements:
                await conn.execute(statement)

    async def _lock_tenant(self, conn: Any, tenant_id: TenantId, *, exclusive: bool) -> None:
        await lock_for_transaction(conn, f"{self._entities}\x1f{tenant_id}", shared=not exclusive)

    # --- entities -----------------------------------------------------------------------

    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        """Insert or replace ``entity`` and its blocking keys.

        Raises :class:`InvalidArgumentError` (a ``ValueError``) when its id is an alias.
        """
        await self.upsert_entities(tenant_id, [entity])

    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        """Insert or replace every entity in one transaction; the last duplicate id wins.

        Raises :class:`InvalidArgumentError` and writes nothing when any id is an alias.
        """
        latest = {entity.id: entity for entity in entities}
        if not latest:
            return
        batch = list(latest.values())
        ids = [entity.id for entity in batch]
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_tenant(conn, tenant_id, exclusive=False)
            aliased = await conn.fetch(
                f"SELECT alias_id FROM {self._aliases} "
                "WHERE tenant_id = $1 AND alias_id = ANY($2::uuid[]) ORDER BY alias_id",
                tenant_id,
                ids,
            )
            if aliased:
                shown = ", ".join(str(row["alias_id"]) for row in aliased)
                raise InvalidArgumentError(
                    f"tenant {tenant_id!r} holds {shown} as an alias: an alias id cannot become "
                    "an entity; remove the alias first or write its canonical entity"
                )
            await conn.execute(
                f"""
                INSERT INTO {self._entities}
                    (tenant_id, id, type, name, attributes, blocking_keys, provenance)
                SELECT $1, r.id, r.type, r.name, r.attributes::json,
                       ARRAY(SELECT json_array_elements_text(r.keys::json)), r.provenance::json
                FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[],
                            $7::text[]) AS r(id, type, name, attributes, keys, provenance)
                ON CONFLICT (tenant_id, id) DO UPDATE
                SET type = EXCLUDED.type, name = EXCLUDED.name,
                    attributes = EXCLUDED.attributes, blocking_keys = EXCLUDED.blocking_keys,
                    provenance = EXCLUDED.provenance
                """,
                tenant_id,
                ids,
                [entity.type for entity in batch],
                [entity.name for entity in batch],
                [_json(entity.attributes) for entity in batch],
                [_json(list(key_set(entity.blocking_keys))) for entity in batch],
                [entity.provenance.model_dump_json() for entity in batch],
            )
            await conn.execute(
                f"DELETE FROM {self._keys} WHERE tenant_id = $1 AND entity_id = ANY($2::uuid[])",
                tenant_id,
                ids,
            )
            # Each key once, as the model holds them, even past validation (ADR 0028).
            pairs = [(entity.id, key) for entity in batch for key in key_set(entity.blocking_keys)]
            if pairs:
                await conn.execute(
                    f"INSERT INTO {self._keys} (tenant_id, entity_id, key) "
                    "SELECT $1, r.entity_id, r.key "
                    "FROM unnest($2::uuid[], $3::text[]) AS r(entity_id, key)",
                    tenant_id,
                    [entity_id for entity_id, _ in pairs],
                    [key for _, key in pairs],
                )

    async def get_entity(self, tenant_id: TenantId, entity_id: EntityId) -> Entity | None:
        """The tenant's entity (a new object on every call), or ``None``."""
        row = await self._pool.fetchrow(
            f"SELECT {_ENTITY_COLUMNS} FROM {self._entities} AS e "
            "WHERE e.tenant_id = $1 AND e.id = $2",
            tenant_id,
            entity_id,
        )
        return None if row is None else _entity(row)

    async def get_entities(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, Entity]:
        """The tenant's entities among ``entity_ids`` (absent ids omitted), in one query."""
        if not entity_ids:
            return {}
        rows = await self._pool.fetch(
            f"SELECT {_ENTITY_COLUMNS} FROM {self._entities} AS e "
            "WHERE e.tenant_id = $1 AND e.id = ANY($2::uuid[]) ORDER BY e.id",
            tenant_id,
            list(set(entity_ids)),
        )
        return {entity.id: entity for entity in map(_entity, rows)}

    async def find_entities(
        self,
        tenant_id: TenantId,
        *,
        entity_type: str | None = None,
        limit: int = 100,
        after: EntityId | None = None,
    ) -> list[Entity]:
        """Up to ``limit`` entities ascending by id, strictly after ``after`` if given.

        ``after`` need not exist. Raises ``ValueError`` for a negative limit.
        """
        validate_limit(limit)
        if limit == 0:
            return []
        rows = await self._pool.fetch(
            f"SELECT {_ENTITY_COLUMNS} FROM {self._entities} AS e "
            "WHERE e.tenant_id = $1 AND ($2::text IS NULL OR e.type = $2) "
            "AND ($3::uuid IS NULL OR e.id > $3) ORDER BY e.id LIMIT $4",
            tenant_id,
            entity_type,
            after,
            limit,
        )
        return [_entity(row) for row in rows]

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        """Remove the tenant's live entities among ``entity_ids``; returns how many.

        One statement in one transaction deletes their edges (either end), the aliases
        pointing at them, their blocking keys and then the entities, so the foreign keys hold
        and a failure removes nothing. Alias ids and absent ids match no entity row and are
        ignored. Holds the tenant's shared lock, so an alias write waits and then sees the
        canonical gone.
        """
        wanted = sorted(set(entity_ids), key=str)
        if not wanted:
            return 0
        statement = f"""
            WITH edges AS (
                DELETE FROM {self._relationships}
                WHERE tenant_id = $1
                  AND (subject_id = ANY($2::uuid[]) OR object_id = ANY($2::uuid[]))
            ), aliases AS (
                DELETE FROM {self._aliases} WHERE tenant_id = $1 AND canonical_id = ANY($2::uuid[])
            ), keys AS (
                DELETE FROM {self._keys} WHERE tenant_id = $1 AND entity_id = ANY($2::uuid[])
            ), gone AS (
                DELETE FROM {self._entities} WHERE tenant_id = $1 AND id = ANY($2::uuid[])
                RETURNING id
            )
            SELECT count(*) AS removed FROM gone
            """
        for _retry in range(_DELETE_ATTEMPTS - 1):
            try:
                return await self._delete_entities_once(tenant_id, wanted, statement)
            except asyncpg.ForeignKeyViolationError:
                # An edge written concurrently to a doomed entity, after this statement's
                # snapshot: the transaction rolled back whole, so running it again is safe.
                continue
        return await self._delete_entities_once(tenant_id, wanted, statement)

    async def _delete_entities_once(
        self, tenant_id: TenantId, wanted: list[EntityId], statement: str
    ) -> int:
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_tenant(conn, tenant_id, exclusive=False)
            removed: int = await conn.fetchval(statement, tenant_id, wanted)
        return removed

    # --- aliases ------------------------------------------------------------------------

    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        """Record that ``alias.alias_id`` resolves to ``alias.canonical_id``; last write wins.

        Raises :class:`MissingEntityError` when the canonical entity is absent and
        :class:`InvalidArgumentError` when the alias id is the canonical id or a live entity.
        """
        if alias.alias_id == alias.canonical_id:
            raise InvalidArgumentError(
                f"alias {alias.alias_id} cannot resolve to itself: an alias names another entity"
            )
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_tenant(conn, tenant_id, exclusive=True)
            live = {
                row["id"]
                for row in await conn.fetch(
                    f"SELECT id FROM {self._entities} WHERE tenant_id = $1 "
                    "AND id = ANY($2::uuid[])",
                    tenant_id,
                    [alias.alias_id, alias.canonical_id],
                )
            }
            if alias.canonical_id not in live:
                raise MissingEntityError([alias.canonical_id], tenant_id=tenant_id)
            if alias.alias_id in live:
                raise InvalidArgumentError(
                    f"{alias.alias_id} is a live entity of tenant {tenant_id!r}: only an id "
                    "that is not an entity can become an alias"
                )
            await conn.execute(
                f"INSERT INTO {self._aliases} (tenant_id, alias_id, canonical_id, name) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, alias_id) DO UPDATE "
                "SET canonical_id = EXCLUDED.canonical_id, name = EXCLUDED.name",
                tenant_id,
                alias.alias_id,
                alias.canonical_id,
                alias.name,
            )

    async def remove_alias(self, tenant_id: TenantId, alias_id: EntityId) -> bool:
        """Forget an alias; ``False`` when there was none."""
        status = await self._pool.execute(
            f"DELETE FROM {self._aliases} WHERE tenant_id = $1 AND alias_id = $2",
            tenant_id,
            alias_id,
        )
        return affected(status) > 0

    async def find_aliases(self, tenant_id: TenantId, canonical_id: EntityId) -> list[Alias]:
        """Aliases pointing at ``canonical_id``, ascending by alias id (new objects)."""
        rows = await self._pool.fetch(
            f"SELECT alias_id, canonical_id, name FROM {self._aliases} "
            "WHERE tenant_id = $1 AND canonical_id = $2 ORDER BY alias_id",
            tenant_id,
            canonical_id,
        )
        return [
            Alias(
                alias_id=EntityId(row["alias_id"]),
                canonical_id=EntityId(row["canonical_id"]),
                name=row["name"],
            )
            for row in rows
        ]

    async def resolve_entity_ids(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, EntityId]:
        """Map each id to the live entity it denotes (itself, or an alias's canonical)."""
        if not entity_ids:
            return {}
        rows = await self._pool.fetch(
            f"""
            SELECT id AS given, id AS live FROM {self._entities}
            WHERE tenant_id = $1 AND id = ANY($2::uuid[])
            UNION ALL
            SELECT alias_id, canonical_id FROM {self._aliases}
            WHERE tenant_id = $1 AND alias_id = ANY($2::uuid[])
            """,
            tenant_id,
            list(set(entity_ids)),
        )
        return {EntityId(row["given"]): EntityId(row["live"]) for row in rows}

    # --- blocking keys ------------------------------------------------------------------

    async def find_by_blocking_key(self, tenant_id: TenantId, key: str) -> list[Entity]:
        """Entities indexed under ``key``, ascending by id (new objects)."""
        found = await self.find_by_blocking_keys(tenant_id, [key])
        return found.get(key, [])

    async def find_by_blocking_keys(
        self,
        tenant_id: TenantId,
        keys: Collection[str],
        *,
        limit_per_key: int | None = None,
    ) -> dict[str, list[Entity]]:
        """For each key with an entity, its entities ascending by id; one query for all keys.

        Each key's ids are read in a lateral subquery from the (tenant, key prefix, entity id)
        index with ``LIMIT limit_per_key`` (``LIMIT NULL`` is no limit), so a broad key costs
        at most ``limit_per_key`` rows and entities are joined only for the ids kept.
        """
        validate_limit_per_key(limit_per_key)
        wanted = sorted(set(keys))
        if not wanted:
            return {}
        rows = await self._pool.fetch(
            f"""
            SELECT w.key, {_ENTITY_COLUMNS}
            FROM unnest($2::text[], $3::text[]) AS w(key, prefix)
            CROSS JOIN LATERAL (
                SELECT k.entity_id FROM {self._keys} AS k
                WHERE k.tenant_id = $1
                  AND left(k.key, {_INDEXED_CHARS}) = w.prefix
                  AND k.key = w.key
                ORDER BY k.entity_id
                LIMIT $4::bigint
            ) AS top
            JOIN {self._entities} AS e ON e.tenant_id = $1 AND e.id = top.entity_id
            ORDER BY w.key, e.id
            """,
            tenant_id,
            wanted,
            [key[:_INDEXED_CHARS] for key in wanted],
            limit_per_key,
        )
        found: dict[str, list[Entity]] = {}
        for row in rows:
            found.setdefault(row["key"], []).append(_entity(row))
        return found

    # --- relationships ------------------------------------------------------------------

    async def upsert_relationship(self, tenant_id: TenantId, relationship: Relationship) -> None:
        """Insert or replace an edge; :class:`MissingEntityError` if an endpoint is absent."""
        await self.upsert_relationships(tenant_id, [relationship])

    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        """Insert or replace every edge in one transaction, all or nothing.

        Raises :class:`MissingEntityError` naming every absent endpoint, having written nothing.
        """
        latest = {relationship.id: relationship for relationship in relationships}
        if not latest:
            return
        batch = list(latest.values())
        # Every element's endpoints, not only the last write per id: all or nothing.
        endpoints = {r.subject_id for r in relationships} | {r.object_id for r in relationships}
        async with self._pool.acquire() as conn, conn.transaction():
            present = {
                row["id"]
                for row in await conn.fetch(
                    f"SELECT id FROM {self._entities} WHERE tenant_id = $1 "
                    "AND id = ANY($2::uuid[])",
                    tenant_id,
                    list(endpoints),
                )
            }
            missing = sorted(endpoints - present, key=str)
            if missing:
                raise MissingEntityError(missing, tenant_id=tenant_id)
            try:
                await conn.execute(
                    f"""
                    INSERT INTO {self._relationships}
                        (tenant_id, id, type, subject_id, object_id, attributes, provenance)
                    SELECT $1, r.id, r.type, r.subject_id, r.object_id, r.attributes::json,
                           r.provenance::json
                    FROM unnest($2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::text[],
                                $7::text[])
                         AS r(id, type, subject_id, object_id, attributes, provenance)
                    ON CONFLICT (tenant_id, id) DO UPDATE
                    SET type = EXCLUDED.type, subject_id = EXCLUDED.subject_id,
                        object_id = EXCLUDED.object_id, attributes = EXCLUDED.attributes,
                        provenance = EXCLUDED.provenance
                    """,
                    tenant_id,
                    [r.id for r in batch],
                    [r.type for r in batch],
                    [r.subject_id for r in batch],
                    [r.object_id for r in batch],
                    [_json(r.attributes) for r in batch],
                    [r.provenance.model_dump_json() for r in batch],
                )
            except asyncpg.ForeignKeyViolationError:
                # Only a concurrent delete_by_tenant or delete_entities can remove an
                # endpoint after the check.
                raise MissingEntityError(sorted(endpoints, key=str), tenant_id=tenant_id) from None

    async def get_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> Relationship | None:
        """The edge (a new object on every call), or ``None``."""
        row = await self._pool.fetchrow(
            f"SELECT {_RELATIONSHIP_COLUMNS} FROM {self._relationships} AS r "
            "WHERE r.tenant_id = $1 AND r.id = $2",
            tenant_id,
            relationship_id,
        )
        return None if row is None else _relationship(row)

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        """Every edge touching any of ``entity_ids`` (``among``: with both ends in them),
        each once, ascending by id; one query."""
        if not entity_ids:
            return []
        ends = "AND" if among else "OR"
        rows = await self._pool.fetch(
            f"SELECT {_RELATIONSHIP_COLUMNS} FROM {self._relationships} AS r "
            "WHERE r.tenant_id = $1 "
            f"AND (r.subject_id = ANY($2::uuid[]) {ends} r.object_id = ANY($2::uuid[])) "
            "ORDER BY r.id",
            tenant_id,
            list(set(entity_ids)),
        )
        return [_relationship(row) for row in rows]

    async def delete_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> bool:
        """Remove an edge; ``False`` when it was not there."""
        status = await self._pool.execute(
            f"DELETE FROM {self._relationships} WHERE tenant_id = $1 AND id = $2",
            tenant_id,
            relationship_id,
        )
        return affected(status) > 0

    # --- traversal ----------------------------------------------------------------------

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
        the first ``limit`` of them (a ``LIMIT`` in the statement).

        One recursive query whose rows are whole levels: each carries its frontier and every
        id reached so far, so a level adds only new ids and the walk ends at the first level
        that adds none, however large ``depth`` is (a walk over (id, depth) rows cannot
        remember earlier levels and ran all ``depth`` levels on any cycle). The start entity
        is excluded; ``depth=0``, an unknown start and ``relationship_types=[]`` yield ``[]``.
        Raises ``InvalidArgumentError`` for a depth outside ``0..MAX_DEPTH`` or an unknown
        direction.
        """
        validate_traversal(depth, direction)
        if limit is not None:
            validate_limit(limit)
        if depth == 0 or (relationship_types is not None and not relationship_types):
            return []
        arguments: list[Any] = [tenant_id, entity_id, depth]
        type_filter = ""
        if relationship_types is not None:
            arguments.append(sorted(set(relationship_types)))
            type_filter = "AND r.type = ANY($4::text[])"
        steps = []
        if direction in ("out", "both"):
            steps.append(
                f"SELECT r.object_id AS id FROM {self._relationships} AS r "
                f"WHERE r.tenant_id = $1 AND r.subject_id = f.id {type_filter}"
            )
        if direction in ("in", "both"):
            steps.append(
                f"SELECT r.subject_id AS id FROM {self._relationships} AS r "
                f"WHERE r.tenant_id = $1 AND r.object_id = f.id {type_filter}"
            )
        # One parameterised edge lookup per frontier id (OFFSET 0 keeps the planner from
        # turning it into a hash join that scans the tenant's edges), and NOT IN over a
        # subquery is a hashed anti-join, so a level costs its edges plus the ids seen so far.
        rows = await self._pool.fetch(
            f"""
            WITH RECURSIVE walk(depth, frontier, seen) AS (
                SELECT 0, ARRAY[e.id], ARRAY[e.id] FROM {self._entities} AS e
                WHERE e.tenant_id = $1 AND e.id = $2
              UNION ALL
                SELECT walk.depth + 1, step.ids, walk.seen || step.ids
                FROM walk CROSS JOIN LATERAL (
                    SELECT array_agg(DISTINCT hop.id) AS ids
                    FROM unnest(walk.frontier) AS f(id)
                    CROSS JOIN LATERAL ({" UNION ALL ".join(steps)} OFFSET 0) AS hop
                    WHERE hop.id NOT IN (SELECT unnest(walk.seen))
                ) AS step
                WHERE walk.depth < $3 AND step.ids IS NOT NULL
            )
            SELECT walk.depth AS reached_depth, {_ENTITY_COLUMNS}
            FROM walk CROSS JOIN LATERAL unnest(walk.frontier) AS reached(id)
            JOIN {self._entities} AS e ON e.tenant_id = $1 AND e.id = reached.id
            WHERE walk.depth > 0
            ORDER BY walk.depth, e.id
            {"" if limit is None else f"LIMIT {int(limit)}"}
            """,
            *arguments,
        )
        return [Neighbour(entity=_entity(row), depth=row["reached_depth"]) for row in rows]

    # --- tenancy ------------------------------------------------------------------------

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Delete every entity, alias, key and edge of the tenant; returns entities removed."""
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_tenant(conn, tenant_id, exclusive=True)
            for table in (self._relationships, self._aliases, self._keys):
                await conn.execute(f"DELETE FROM {table} WHERE tenant_id = $1", tenant_id)
            status = await conn.execute(
                f"DELETE FROM {self._entities} WHERE tenant_id = $1", tenant_id
            )
        return affected(status)
