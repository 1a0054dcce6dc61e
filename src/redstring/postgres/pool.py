"""PostgresStore: the pool, the table names and the lifetime every PostgreSQL adapter shares.

An adapter built over a pool the caller made leaves that pool open on ``close``; one made by
``connect`` owns its pool and closes it once. That is the port's ``AsyncClosable`` contract,
written here once instead of in each adapter.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, ClassVar, Self

import asyncpg

from redstring.postgres.locks import SCHEMA_LOCK, lock_for_transaction
from redstring.postgres.names import TableNames

__all__ = ["NamesOnlyStore", "PostgresStore", "affected", "create_pool"]


class PostgresStore(ABC):
    """Base class of the PostgreSQL adapters: a pool, validated names, ``close`` and the block.

    A subclass sets ``LONGEST_SUFFIX`` (the longest name it appends to its prefix) and writes
    ``ensure_schema`` inside :meth:`_schema_transaction`. Constructing one sends no SQL.
    Raises :class:`~redstring.domain.errors.InvalidArgumentError` for an unusable name.
    """

    LONGEST_SUFFIX: ClassVar[str]

    def __init__(
        self, pool: asyncpg.Pool, *, prefix: str = "redstring_", schema: str = "public"
    ) -> None:
        self._pool = pool
        self._names = TableNames.checked(
            schema=schema, prefix=prefix, longest_suffix=self.LONGEST_SUFFIX
        )
        self._owns_pool = False
        self._closed = False

    @classmethod
    async def _connect(
        cls,
        build: Callable[[asyncpg.Pool], Self],
        dsn: str,
        *,
        min_size: int,
        max_size: int,
        create_schema: bool,
    ) -> Self:
        """``build(pool)`` over a new pool for ``dsn`` that the store owns; ensure the schema.

        If building the store or its schema fails, the pool is closed before the error
        propagates, so a failed ``connect`` leaves no connection behind.
        """
        pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size)
        try:
            store = build(pool)
            store._owns_pool = True
            if create_schema:
                await store.ensure_schema()
        except BaseException:
            await pool.close()
            raise
        return store

    @abstractmethod
    async def ensure_schema(self) -> None:
        """Create what the store needs if missing; idempotent and safe to run concurrently."""

    @asynccontextmanager
    async def _schema_transaction(self) -> AsyncIterator[Any]:
        """A connection in a transaction holding the schema lock, the schema already created."""
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_for_transaction(conn, SCHEMA_LOCK)
            await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {self._names.quoted_schema}")
            yield conn

    async def close(self) -> None:
        """Close the pool if this store created it (``connect``); safe to call twice."""
        if self._owns_pool and not self._closed:
            self._closed = True
            await self._pool.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


class NamesOnlyStore(PostgresStore):
    """A PostgresStore whose constructor takes only the pool, the prefix and the schema.

    That is what lets one ``connect`` serve every such adapter; an adapter with more
    constructor arguments (``PgVectorStore``'s dimension) writes its own over ``_connect``.
    """

    @classmethod
    async def connect(
        cls,
        dsn: str,
        *,
        prefix: str = "redstring_",
        schema: str = "public",
        min_size: int = 1,
        max_size: int = 10,
        create_schema: bool = True,
    ) -> Self:
        """Build over a new pool for ``dsn`` that the store owns and closes; ensure the schema.

        ``create_schema=False`` skips :meth:`ensure_schema`. A failure closes the new pool
        before it propagates.
        """
        return await cls._connect(
            lambda pool: cls(pool, prefix=prefix, schema=schema),
            dsn,
            min_size=min_size,
            max_size=max_size,
            create_schema=create_schema,
        )


def affected(status: str) -> int:
    """The row count of a command tag such as ``DELETE 3``."""
    return int(status.rsplit(" ", 1)[-1])


async def create_pool(dsn: str, *, min_size: int = 1, max_size: int = 10) -> asyncpg.Pool:
    """A new asyncpg pool for ``dsn``; the caller owns it and closes it."""
    return await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size)
