"""PgVectorStore: the VectorStore port on PostgreSQL with pgvector, through asyncpg.

Search is exact: a sequential cosine scan of one tenant's rows, with every filter in the
``WHERE`` clause before ``LIMIT k``. There is deliberately no ANN (HNSW or IVFFlat) index on
the embedding: an approximate index orders and truncates inside the index scan before the
tenant filter is applied, so a tenant's search could come back short or wrong (ADR 0006).
The integration test ``test_there_is_no_ann_index_on_the_embedding`` makes adding one a
decision.

Vectors travel as ``real[]`` (float4) and are cast to ``vector`` in SQL, so no per-connection
type codec is needed and any pool works, including one the caller built. A float32
representable component survives exactly in both directions.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any, Self

import asyncpg

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorMatch, VectorRecord, validate_search, validate_vector
from redstring.ports.text_arguments import checks_text_arguments
from redstring.ports.vector_store import entity_type_of
from redstring.postgres.names import identifier
from redstring.postgres.pool import PostgresStore, affected

__all__ = ["PgVectorStore", "vector_tables"]


@checks_text_arguments()
class PgVectorStore(PostgresStore):
    """Exact cosine search over one ``vector(dimension)`` table shared by every tenant.

    Build it over a pool you own (``PgVectorStore(pool, dimension=384)``; ``close`` then leaves
    the pool open) or let :meth:`connect` create and own one. Call :meth:`ensure_schema` once
    before use; it is idempotent. Tables are ``{schema}.{prefix}vectors``; the dimension is
    part of the column type, so stores of different dimensions need different prefixes.
    """

    LONGEST_SUFFIX = "vectors_entity_type_idx"

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        dimension: int,
        prefix: str = "redstring_",
        schema: str = "public",
    ) -> None:
        if dimension < 1 or dimension > 16000:
            raise InvalidArgumentError(
                f"dimension must be between 1 and 16000 (pgvector's limit), got {dimension}"
            )
        super().__init__(pool, prefix=prefix, schema=schema)
        self._dimension = dimension
        self._table = self._names.table("vectors")

    @classmethod
    async def connect(
        cls,
        dsn: str,
        *,
        dimension: int,
        prefix: str = "redstring_",
        schema: str = "public",
        min_size: int = 1,
        max_size: int = 10,
        create_schema: bool = True,
    ) -> Self:
        """Create a pool for ``dsn`` that the store owns and closes; ensure the schema."""
        return await cls._connect(
            lambda pool: cls(pool, dimension=dimension, prefix=prefix, schema=schema),
            dsn,
            min_size=min_size,
            max_size=max_size,
            create_schema=create_schema,
        )

    @property
    def dimension(self) -> int:
        """The length of every vector this store holds."""
        return self._dimension

    @property
    def table(self) -> str:
        """The quoted, schema-qualified table name (for operators and tests)."""
        return self._table

    async def ensure_schema(self) -> None:
        """Create the extension, table and indexes if missing; safe to run concurrently.

        Raises :class:`InvalidArgumentError` when the table exists with another dimension.
        """
        async with self._schema_transaction() as conn:
            await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            await conn.execute(
                f"""
                CREATE TABLE IF NOT EXISTS {self._table} (
                    tenant_id text COLLATE "C" NOT NULL,
                    entity_id uuid NOT NULL,
                    embedding vector({self._dimension}) NOT NULL,
                    entity_type text COLLATE "C",
                    metadata json NOT NULL,
                    PRIMARY KEY (tenant_id, entity_id)
                )
                """
            )
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS {self._names.index('vectors_entity_type_idx')} "
                f"ON {self._table} (tenant_id, entity_type)"
            )
            stored = await conn.fetchval(
                "SELECT atttypmod FROM pg_attribute "
                "WHERE attrelid = $1::regclass AND attname = 'embedding'",
                self._table,
            )
        if stored != self._dimension:
            raise InvalidArgumentError(
                f"table {self._table} holds vectors of dimension {stored}, not {self._dimension}: "
                "use another prefix for a store of this dimension"
            )

    async def upsert(self, tenant_id: TenantId, record: VectorRecord) -> None:
        """Insert or replace the vector of ``record.entity_id`` for the tenant."""
        await self.upsert_many(tenant_id, [record])

    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        """Insert or replace every record in one transaction; validates all before writing."""
        for record in records:
            validate_vector(record.vector, dimension=self._dimension)
        latest = {record.entity_id: record for record in records}
        if not latest:
            return
        rows = [
            (
                tenant_id,
                record.entity_id,
                record.vector,
                entity_type_of(record.metadata),
                json.dumps(record.metadata, allow_nan=False),
            )
            for record in latest.values()
        ]
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.executemany(
                f"""
                INSERT INTO {self._table} (tenant_id, entity_id, embedding, entity_type, metadata)
                VALUES ($1, $2, $3::real[]::vector, $4, $5::json)
                ON CONFLICT (tenant_id, entity_id) DO UPDATE
                SET embedding = EXCLUDED.embedding,
                    entity_type = EXCLUDED.entity_type,
                    metadata = EXCLUDED.metadata
                """,
                rows,
            )

    async def get(self, tenant_id: TenantId, entity_id: EntityId) -> VectorRecord | None:
        """The stored record (a new object on every call), or ``None``."""
        row = await self._pool.fetchrow(
            f"SELECT embedding::real[] AS embedding, metadata "
            f"FROM {self._table} WHERE tenant_id = $1 AND entity_id = $2",
            tenant_id,
            entity_id,
        )
        if row is None:
            return None
        return VectorRecord(
            entity_id=entity_id,
            vector=list(row["embedding"]),
            metadata=json.loads(row["metadata"]),
        )

    async def search(
        self,
        tenant_id: TenantId,
        query: Sequence[float],
        *,
        k: int = 10,
        entity_types: Collection[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        """The ``k`` best matches, score descending, ties by ascending entity id.

        Score is ``1 - cosine_distance / 2``, i.e. ``(1 + cosine) / 2``. Tenant, type and
        ``min_score`` filters are in the ``WHERE`` clause, so they apply before ``LIMIT``.
        """
        validate_search(k, min_score)
        validate_vector(query, dimension=self._dimension)
        if k == 0 or (entity_types is not None and not entity_types):
            return []
        conditions = ["v.tenant_id = $1"]
        arguments: list[Any] = [tenant_id, list(query), k]
        if entity_types is not None:
            arguments.append(sorted(set(entity_types)))
            conditions.append(f"v.entity_type = ANY(${len(arguments)}::text[])")
        score_filter = ""
        if min_score is not None:
            arguments.append(min_score)
            score_filter = f"WHERE scored.score >= ${len(arguments)}"
        # OFFSET 0 keeps the subquery from being flattened, so the distance is computed once
        # per row rather than once for the filter and again for the ordering.
        rows = await self._pool.fetch(
            f"""
            SELECT scored.entity_id, scored.score, scored.metadata
            FROM (
                SELECT v.entity_id,
                       1 - (v.embedding <=> q.v) / 2 AS score,
                       v.metadata
                FROM {self._table} AS v, (SELECT $2::real[]::vector AS v) AS q
                WHERE {" AND ".join(conditions)}
                OFFSET 0
            ) AS scored
            {score_filter}
            ORDER BY scored.score DESC, scored.entity_id
            LIMIT $3
            """,
            *arguments,
        )
        return [
            VectorMatch(
                entity_id=EntityId(row["entity_id"]),
                score=float(row["score"]),
                metadata=json.loads(row["metadata"]),
            )
            for row in rows
        ]

    async def delete(self, tenant_id: TenantId, entity_id: EntityId) -> bool:
        """Remove one record; ``False`` when it was not there."""
        status = await self._pool.execute(
            f"DELETE FROM {self._table} WHERE tenant_id = $1 AND entity_id = $2",
            tenant_id,
            entity_id,
        )
        return affected(status) > 0

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Remove every record of the tenant; returns how many."""
        status = await self._pool.execute(
            f"DELETE FROM {self._table} WHERE tenant_id = $1", tenant_id
        )
        return affected(status)


async def vector_tables(pool: asyncpg.Pool, *, schema: str = "public") -> dict[str, int]:
    """Every table of ``schema`` shaped like a :class:`PgVectorStore`'s, by name, with its
    dimension: those with an ``embedding`` column of type ``vector(n)``.

    A store over one of them is ``PgVectorStore(pool, dimension=n, prefix=name[:-7])`` (the
    table is ``{prefix}vectors``). Lets a composition find the tables of other embedding
    models it must keep tenants' rows out of (ADR 0047).
    """
    rows = await pool.fetch(
        """
        SELECT c.relname AS name, a.atttypmod AS dimension
        FROM pg_attribute AS a
        JOIN pg_class AS c ON c.oid = a.attrelid
        JOIN pg_namespace AS n ON n.oid = c.relnamespace
        JOIN pg_type AS t ON t.oid = a.atttypid
        WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attname = 'embedding'
          AND t.typname = 'vector' AND NOT a.attisdropped AND c.relname LIKE '%vectors'
        ORDER BY c.relname
        """,
        identifier(schema, what="schema name"),
    )
    return {str(row["name"]): int(row["dimension"]) for row in rows if row["dimension"] > 0}
