"""The server's own tables in the graph's PostgreSQL: API keys, jobs and one signal.

``{prefix}api_keys`` holds one row per key (its Argon2id hash, never the secret);
``{prefix}jobs`` one row per job with its input as JSON, its progress and its lease;
``{prefix}signals`` one counter that every tenant erasure and key revocation raises, which
each server process watches to drop what it holds in memory (ADR 0042; it names no tenant).
All sit beside the graph's tables, so one database backup holds the graph, who may read it
and the work still to do.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from redstring.domain.ids import TenantId
from redstring.postgres.pool import NamesOnlyStore
from redstring.serve.jobs import Job, JobStore, StoredJob
from redstring.serve.keys import ApiKey, KeyStore
from redstring.serve.signal import Signal

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = ["PostgresJobStore", "PostgresKeyStore", "PostgresSignal", "ServerTables"]


class ServerTables(NamesOnlyStore):
    """The two tables, their names checked once; ``ensure_schema`` creates both."""

    LONGEST_SUFFIX = "jobs_unfinished_idx"

    def __init__(self, pool: Any, *, prefix: str = "redstring_", schema: str = "public") -> None:
        super().__init__(pool, prefix=prefix, schema=schema)
        self.keys = self._names.table("api_keys")
        self.jobs = self._names.table("jobs")
        self.unfinished = self._names.index("jobs_unfinished_idx")
        self.signals = self._names.table("signals")

    @property
    def pool(self) -> Any:
        """The pool the tables are reached through."""
        return self._pool

    async def ensure_schema(self) -> None:
        """Create the tables if missing; safe to run concurrently."""
        async with self._schema_transaction() as conn:
            await conn.execute(
                f"""
                CREATE TABLE IF NOT EXISTS {self.keys} (
                    key_id text PRIMARY KEY,
                    tenant_id text,
                    name text NOT NULL,
                    key_hash text NOT NULL,
                    created_at timestamptz NOT NULL,
                    revoked_at timestamptz
                )
                """
            )
            await conn.execute(
                f"""
                CREATE TABLE IF NOT EXISTS {self.jobs} (
                    job_id text PRIMARY KEY,
                    tenant_id text NOT NULL,
                    job jsonb NOT NULL,
                    payload json NOT NULL,
                    finished boolean NOT NULL DEFAULT false,
                    owner text,
                    lease_until timestamptz
                )
                """
            )
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS {self.unfinished} ON {self.jobs} (job_id) "
                "WHERE NOT finished"
            )
            # A job's input is kept as written (json): jsonb cannot hold a NUL a document's
            # metadata may carry. Tables made before held it as jsonb.
            kind = await conn.fetchval(
                "SELECT data_type FROM information_schema.columns WHERE table_schema = $1 "
                "AND table_name = $2 AND column_name = 'payload'",
                self._names.schema,
                self._names.prefix + "jobs",
            )
            if kind == "jsonb":
                await conn.execute(
                    f"ALTER TABLE {self.jobs} ALTER COLUMN payload TYPE json USING payload::json"
                )
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {self.signals} "
                "(name text PRIMARY KEY, value bigint NOT NULL)"
            )


def _key(row: Any) -> ApiKey:
    return ApiKey(
        key_id=row["key_id"],
        tenant=None if row["tenant_id"] is None else TenantId(row["tenant_id"]),
        name=row["name"],
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
    )


class PostgresKeyStore(KeyStore):
    """API keys in ``{prefix}api_keys``, shared by every server process on the database."""

    def __init__(
        self,
        tables: ServerTables,
        *,
        hasher: PasswordHasher | None = None,
        remember_seconds: float = 300.0,
    ) -> None:
        super().__init__(hasher=hasher, remember_seconds=remember_seconds)
        self._tables = tables

    async def ensure_schema(self) -> None:
        await self._tables.ensure_schema()

    async def _insert(self, record: ApiKey, key_hash: str) -> None:
        await self._tables.pool.execute(
            f"INSERT INTO {self._tables.keys} "
            "(key_id, tenant_id, name, key_hash, created_at) VALUES ($1, $2, $3, $4, $5)",
            record.key_id,
            record.tenant,
            record.name,
            key_hash,
            record.created_at,
        )

    async def _row(self, key_id: str) -> tuple[ApiKey, str] | None:
        row = await self._tables.pool.fetchrow(
            f"SELECT * FROM {self._tables.keys} WHERE key_id = $1", key_id
        )
        return None if row is None else (_key(row), row["key_hash"])

    async def _rows(self) -> list[ApiKey]:
        rows = await self._tables.pool.fetch(f"SELECT * FROM {self._tables.keys}")
        return [_key(row) for row in rows]

    async def _revoke(self, key_id: str, at: datetime) -> ApiKey | None:
        row = await self._tables.pool.fetchrow(
            f"UPDATE {self._tables.keys} SET revoked_at = coalesce(revoked_at, $2) "
            "WHERE key_id = $1 RETURNING *",
            key_id,
            at,
        )
        return None if row is None else _key(row)

    async def _delete_tenant(self, tenant: TenantId) -> list[str]:
        rows = await self._tables.pool.fetch(
            f"DELETE FROM {self._tables.keys} WHERE tenant_id = $1 RETURNING key_id", tenant
        )
        return [row["key_id"] for row in rows]


class PostgresJobStore(JobStore):
    """Jobs in ``{prefix}jobs``; a claim is one conditional UPDATE, so two servers never
    both take the same job."""

    def __init__(self, tables: ServerTables) -> None:
        self._tables = tables

    async def ensure_schema(self) -> None:
        await self._tables.ensure_schema()

    async def create(self, stored: StoredJob) -> None:
        job = stored.job
        await self._tables.pool.execute(
            f"INSERT INTO {self._tables.jobs} (job_id, tenant_id, job, payload) "
            "VALUES ($1, $2, $3::jsonb, $4::json)",
            job.job_id,
            job.tenant,
            job.model_dump_json(),
            json.dumps(stored.payload),
        )

    async def get(self, tenant: TenantId, job_id: str) -> Job | None:
        row = await self._tables.pool.fetchrow(
            f"SELECT job FROM {self._tables.jobs} WHERE job_id = $1 AND tenant_id = $2",
            job_id,
            tenant,
        )
        return None if row is None else Job.model_validate_json(row["job"])

    async def update(self, job: Job, *, owner: str, lease_until: datetime) -> bool:
        status = await self._tables.pool.execute(
            f"UPDATE {self._tables.jobs} SET job = $3::jsonb, finished = $4, lease_until = $5 "
            "WHERE job_id = $1 AND owner = $2",
            job.job_id,
            owner,
            job.model_dump_json(),
            job.state in {"succeeded", "failed"},
            lease_until,
        )
        return bool(status.endswith(" 1"))

    async def claim(
        self, job_id: str, *, owner: str, now: datetime, lease_until: datetime
    ) -> StoredJob | None:
        row = await self._tables.pool.fetchrow(
            f"UPDATE {self._tables.jobs} SET owner = $2, lease_until = $4, "
            "job = jsonb_set(job, '{attempts}', to_jsonb(coalesce((job->>'attempts')::int, 0) + 1))"
            " WHERE job_id = $1 AND NOT finished AND (lease_until IS NULL OR lease_until <= $3)"
            " RETURNING job, payload",
            job_id,
            owner,
            now,
            lease_until,
        )
        if row is None:
            return None
        return StoredJob(
            Job.model_validate_json(row["job"]), json.loads(row["payload"]), owner, lease_until
        )

    async def unfinished(self) -> list[str]:
        rows = await self._tables.pool.fetch(
            f"SELECT job_id FROM {self._tables.jobs} WHERE NOT finished "
            "ORDER BY job->>'created_at', job_id"
        )
        return [row["job_id"] for row in rows]

    async def delete_tenant(self, tenant: TenantId) -> int:
        status = await self._tables.pool.execute(
            f"DELETE FROM {self._tables.jobs} WHERE tenant_id = $1", tenant
        )
        return int(status.rsplit(" ", 1)[-1])

    async def exists(self, job_id: str) -> bool:
        found = await self._tables.pool.fetchval(
            f"SELECT 1 FROM {self._tables.jobs} WHERE job_id = $1", job_id
        )
        return found is not None


class PostgresSignal(Signal):
    """The counter in ``{prefix}signals``, shared by every server on the database."""

    NAME = "forget"

    def __init__(self, tables: ServerTables) -> None:
        self._tables = tables

    async def bump(self) -> int:
        value: int = await self._tables.pool.fetchval(
            f"INSERT INTO {self._tables.signals} (name, value) VALUES ($1, 1) "
            "ON CONFLICT (name) DO UPDATE SET value = "
            f"{self._tables.signals}.value + 1 RETURNING value",
            self.NAME,
        )
        return value

    async def current(self) -> int:
        value: int | None = await self._tables.pool.fetchval(
            f"SELECT value FROM {self._tables.signals} WHERE name = $1", self.NAME
        )
        return value or 0
