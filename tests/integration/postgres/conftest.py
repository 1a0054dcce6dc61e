"""The PostgreSQL every Postgres adapter test runs against: one server, one pool per test.

``scripts/test`` starts PostgreSQL 16 + pgvector from the ``pgserver`` package and exports
``REDSTRING_TEST_POSTGRES_DSN`` (any other server can be named the same way). The server is
probed once per session with real work; the pool is function-scoped because an asyncpg pool
belongs to the event loop that created it, and pytest-asyncio gives each test its own loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import asyncpg
import pytest

from tests.backends import backend_unavailable

DSN_VARIABLE = "REDSTRING_TEST_POSTGRES_DSN"


async def _probe(dsn: str) -> str | None:
    """``None`` when the server can store and return a vector, else what went wrong.

    A connect alone proves little: a server can ship the pgvector files and still be unable
    to store a vector until ``CREATE EXTENSION`` has run, so the probe does both.
    """
    try:
        conn = await asyncpg.connect(dsn, timeout=10)
    except (TimeoutError, OSError, asyncpg.PostgresError) as error:
        return f"cannot connect ({type(error).__name__}: {error})"
    try:
        await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        await conn.execute("CREATE TEMPORARY TABLE redstring_probe (v vector(3))")
        await conn.execute("INSERT INTO redstring_probe VALUES ('[1.5, -2, 0.25]')")
        back = await conn.fetchval("SELECT v::real[] FROM redstring_probe")
        if list(back) != [1.5, -2.0, 0.25]:
            return f"a vector did not round-trip: wrote [1.5, -2, 0.25], read {back}"
        return None
    except asyncpg.PostgresError as error:
        return f"cannot store a vector ({type(error).__name__}: {error})"
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def postgres_dsn() -> str:
    """The DSN of a server that has been proven to store vectors (skip or fail otherwise)."""
    dsn = os.environ.get(DSN_VARIABLE, "").strip()
    if not dsn:
        backend_unavailable("PostgreSQL", f"{DSN_VARIABLE} is not set")
    problem = asyncio.run(_probe(dsn))
    if problem is not None:
        backend_unavailable("PostgreSQL", f"at {DSN_VARIABLE}={dsn}: {problem}")
    return dsn


@pytest.fixture
async def pool(postgres_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool for this test only, closed by the fixture (adapters built over it never own it)."""
    created = await asyncpg.create_pool(postgres_dsn, min_size=1, max_size=4)
    try:
        yield created
    finally:
        await created.close()
