"""PostgresEventLog: the EventLog port on PostgreSQL, through asyncpg.

Two tables. In ``{prefix}events``, ``position`` is an identity column, so it only grows
across the whole log; ``(tenant_id, stream, stream_version)`` and ``(tenant_id, event_id)``
are unique, so neither a version gap nor a duplicated event can be committed even by a
writer that bypassed this class. ``{prefix}checkpoints`` holds one row per (tenant, name),
overwritten by an upsert.

Appends of one tenant are serialised by a transaction-level advisory lock. That is what makes
a tenant's positions become visible in the order they were assigned: without it, a writer
holding position 11 can commit before the one holding 10, and a projection that has read up
to 11 would never see 10. The lock is released only after the commit is visible, so a reader
resuming ``after`` its last position never skips an event. Tenants do not wait for each other.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import asyncpg

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.events import (
    NewEvent,
    StoredEvent,
    checkpoint_name,
    log_integer,
    stream_name,
)
from redstring.domain.ids import EventId, TenantId
from redstring.ports.errors import ConcurrencyConflictError
from redstring.ports.text_arguments import checks_text_arguments
from redstring.postgres.locks import lock_for_transaction
from redstring.postgres.pool import NamesOnlyStore, affected

__all__ = ["PostgresEventLog"]

_COLUMNS = "event_id, type, payload, stream, stream_version, position"


def _event(row: Any) -> StoredEvent:
    return StoredEvent(
        event_id=EventId(row["event_id"]),
        type=row["type"],
        payload=json.loads(row["payload"]),
        stream=row["stream"],
        stream_version=row["stream_version"],
        position=row["position"],
    )


@checks_text_arguments(skip=("stream", "name"))
class PostgresEventLog(NamesOnlyStore):
    """Every tenant's events in one append-only table, ordered by a global position.

    Build it over a pool you own (``close`` then leaves the pool open) or let :meth:`connect`
    create and own one. Call :meth:`ensure_schema` once before use; it is idempotent.
    """

    LONGEST_SUFFIX = "events_tenant_position_idx"

    def __init__(
        self, pool: asyncpg.Pool, *, prefix: str = "redstring_", schema: str = "public"
    ) -> None:
        super().__init__(pool, prefix=prefix, schema=schema)
        self._events = self._names.table("events")
        self._checkpoints = self._names.table("checkpoints")

    @property
    def table(self) -> str:
        """The quoted, schema-qualified table name (for operators and tests)."""
        return self._events

    async def ensure_schema(self) -> None:
        """Create the tables and indexes if missing; safe to run concurrently."""
        async with self._schema_transaction() as conn:
            await conn.execute(
                f"""
                CREATE TABLE IF NOT EXISTS {self._events} (
                    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    tenant_id text COLLATE "C" NOT NULL,
                    stream text COLLATE "C" NOT NULL,
                    stream_version integer NOT NULL CHECK (stream_version >= 1),
                    event_id uuid NOT NULL,
                    type text COLLATE "C" NOT NULL,
                    payload json NOT NULL,
                    UNIQUE (tenant_id, stream, stream_version),
                    UNIQUE (tenant_id, event_id)
                )
                """
            )
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS {self._names.index('events_tenant_position_idx')} "
                f"ON {self._events} (tenant_id, position)"
            )
            await conn.execute(
                f"""
                CREATE TABLE IF NOT EXISTS {self._checkpoints} (
                    tenant_id text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    position bigint NOT NULL CHECK (position >= 0),
                    PRIMARY KEY (tenant_id, name)
                )
                """
            )

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        """Append ``events`` to the tenant's ``stream`` in one transaction; returns them stored.

        Raises :class:`ConcurrencyConflictError` when ``expected_version`` is not the stream's
        version, and ``ValueError`` for an invalid stream name, a batch repeating an id, or a
        batch mixing stored and new ids. A batch whose ids are all stored in this stream
        returns the stored events and writes nothing.
        """
        # The port's order (ADR 0023): name, expected version, repeated ids, replay, conflict.
        stream_name(stream)
        if expected_version is not None:
            log_integer(expected_version, what="expected_version")
        ids = [event.event_id for event in events]
        if len(set(ids)) != len(ids):
            repeated = sorted({str(i) for i in ids if ids.count(i) > 1})
            raise InvalidArgumentError(
                f"the batch repeats event ids {repeated}: each event of a batch needs its own id"
            )
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_for_transaction(conn, f"{self._events}\x1f{tenant_id}")
            if ids:
                stored = await conn.fetch(
                    f"SELECT {_COLUMNS} FROM {self._events} "
                    "WHERE tenant_id = $1 AND event_id = ANY($2::uuid[])",
                    tenant_id,
                    ids,
                )
                if stored:
                    return _already_stored(stream, ids, [_event(row) for row in stored])
            version: int = await conn.fetchval(
                f"SELECT coalesce(max(stream_version), 0) FROM {self._events} "
                "WHERE tenant_id = $1 AND stream = $2",
                tenant_id,
                stream,
            )
            if expected_version is not None and expected_version != version:
                raise ConcurrencyConflictError(
                    stream=stream, expected=expected_version, actual=version
                )
            if not events:
                return []
            rows = await conn.fetch(
                f"""
                INSERT INTO {self._events}
                    (tenant_id, stream, stream_version, event_id, type, payload)
                SELECT $1, $2, $3 + r.ordinal, r.event_id, r.type, r.payload::json
                FROM unnest($4::uuid[], $5::text[], $6::text[]) WITH ORDINALITY
                     AS r(event_id, type, payload, ordinal)
                ORDER BY r.ordinal
                RETURNING {_COLUMNS}
                """,
                tenant_id,
                stream,
                version,
                ids,
                [event.type for event in events],
                [json.dumps(event.payload, allow_nan=False) for event in events],
            )
        return sorted((_event(row) for row in rows), key=lambda event: event.stream_version)

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """The tenant's events with position > ``after``, ascending, at most ``limit``."""
        log_integer(after, what="after")
        if limit is not None:
            log_integer(limit, what="limit")
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM {self._events} WHERE tenant_id = $1 AND position > $2 "
            "ORDER BY position LIMIT $3",
            tenant_id,
            after,
            limit,
        )
        return [_event(row) for row in rows]

    async def read_stream(
        self, tenant_id: TenantId, stream: str, *, after_version: int = 0
    ) -> list[StoredEvent]:
        """The stream's events with version > ``after_version``, ascending."""
        stream_name(stream)
        log_integer(after_version, what="after_version")
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM {self._events} "
            "WHERE tenant_id = $1 AND stream = $2 AND stream_version > $3::bigint "
            "ORDER BY stream_version",
            tenant_id,
            stream,
            after_version,
        )
        return [_event(row) for row in rows]

    async def stream_version(self, tenant_id: TenantId, stream: str) -> int:
        """How many events the tenant's stream holds (0 for a new stream)."""
        version: int = await self._pool.fetchval(
            f"SELECT coalesce(max(stream_version), 0) FROM {self._events} "
            "WHERE tenant_id = $1 AND stream = $2",
            tenant_id,
            stream_name(stream),
        )
        return version

    async def checkpoint(self, tenant_id: TenantId, name: str) -> int:
        """The position last saved under ``name`` for the tenant; 0 when none ever was."""
        position: int | None = await self._pool.fetchval(
            f"SELECT position FROM {self._checkpoints} WHERE tenant_id = $1 AND name = $2",
            tenant_id,
            checkpoint_name(name),
        )
        return 0 if position is None else position

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        """Remember ``position`` under ``name`` for the tenant in one upsert; last write wins.

        Raises :class:`InvalidArgumentError` for a bad name, or a position that is negative
        or beyond ``bigint``.
        """
        checkpoint_name(name)
        log_integer(position, what="checkpoint position")
        await self._pool.execute(
            f"INSERT INTO {self._checkpoints} (tenant_id, name, position) VALUES ($1, $2, $3) "
            "ON CONFLICT (tenant_id, name) DO UPDATE SET position = EXCLUDED.position",
            tenant_id,
            name,
            position,
        )

    async def tenants(self) -> list[TenantId]:
        """Every tenant with at least one event, in id order (C collation: code point order,
        as Python sorts)."""
        rows = await self._pool.fetch(
            f'SELECT DISTINCT tenant_id COLLATE "C" AS tenant_id FROM {self._events} '
            'ORDER BY tenant_id COLLATE "C"'
        )
        return [TenantId(row["tenant_id"]) for row in rows]

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Erase every event and checkpoint of the tenant in one transaction.

        Returns how many events were erased.
        """
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(f"DELETE FROM {self._checkpoints} WHERE tenant_id = $1", tenant_id)
            status = await conn.execute(
                f"DELETE FROM {self._events} WHERE tenant_id = $1", tenant_id
            )
        return affected(status)


def _already_stored(
    stream: str, ids: list[EventId], stored: list[StoredEvent]
) -> list[StoredEvent]:
    """The stored events of a replayed batch, in the batch's order; a partial replay raises."""
    by_id = {event.event_id: event for event in stored}
    elsewhere = sorted(str(event.event_id) for event in stored if event.stream != stream)
    if elsewhere:
        raise InvalidArgumentError(
            f"events {elsewhere} are already stored in another stream of this tenant, not "
            f"{stream!r}: an event id belongs to one stream"
        )
    if len(by_id) != len(ids):
        new = sorted(str(event_id) for event_id in ids if event_id not in by_id)
        raise InvalidArgumentError(
            f"the batch mixes stored events with new ones {new}: append the new events "
            "as their own batch"
        )
    return [by_id[event_id] for event_id in ids]
