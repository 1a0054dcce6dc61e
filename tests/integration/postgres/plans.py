"""Reading what an adapter sent to PostgreSQL, so a test can EXPLAIN the adapter's own SQL.

Writing the statement again in a test would check a copy; recording it checks the real one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg


class _Recording:
    """Records each ``fetch``/``fetchrow``/``fetchval`` it forwards to ``self._pool``."""

    _pool: Any
    statements: list[tuple[str, tuple[Any, ...]]]

    async def fetch(self, query: str, *args: Any) -> Any:
        self.statements.append((query, args))
        return await self._pool.fetch(query, *args)

    async def fetchrow(self, query: str, *args: Any) -> Any:
        self.statements.append((query, args))
        return await self._pool.fetchrow(query, *args)

    async def fetchval(self, query: str, *args: Any) -> Any:
        self.statements.append((query, args))
        return await self._pool.fetchval(query, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


class _RecordingConnection(_Recording):
    def __init__(self, conn: Any, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        self._pool = conn
        self.statements = statements


class RecordingPool(_Recording):
    """Wraps a pool and records each ``fetch``/``fetchrow``/``fetchval`` it forwards, on the
    pool itself or on a connection acquired from it."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self.statements = []

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[Any]:
        async with self._pool.acquire() as conn:
            yield _RecordingConnection(conn, self.statements)


def plan_nodes(plan: Any) -> Iterator[dict[str, Any]]:
    """Every node of an ``EXPLAIN (FORMAT JSON)`` plan, depth first."""
    stack = [entry["Plan"] for entry in plan]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.get("Plans", []))
