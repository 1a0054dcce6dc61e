"""Every Postgres adapter sends its schema and prefix through the shared identifier check.

Table names cannot be SQL parameters, so they are interpolated; ``redstring.postgres.names``
holds the one check (its own tests are in ``tests/unit/postgres/``). This gate proves each
adapter actually routes both arguments through it, and leaves room for its own longest
derived name. Constructing an adapter sends no SQL, so no backend is needed.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from redstring.chunks.adapters.postgres import PostgresChunkStore
from redstring.domain.errors import InvalidArgumentError
from redstring.eventlog.adapters.postgres import PostgresEventLog
from redstring.graph.adapters.postgres import PostgresGraphStore
from redstring.vector.adapters.pgvector import PgVectorStore

POOL: Any = object()
"""Never used: construction only validates and remembers the pool."""

CLASSES: dict[str, Any] = {
    "PgVectorStore": PgVectorStore,
    "PostgresChunkStore": PostgresChunkStore,
    "PostgresEventLog": PostgresEventLog,
    "PostgresGraphStore": PostgresGraphStore,
}
BUILDERS: dict[str, Callable[..., Any]] = {
    "PgVectorStore": lambda pool=POOL, **names: PgVectorStore(pool, dimension=8, **names),
    "PostgresChunkStore": lambda pool=POOL, **names: PostgresChunkStore(pool, **names),
    "PostgresEventLog": lambda pool=POOL, **names: PostgresEventLog(pool, **names),
    "PostgresGraphStore": lambda pool=POOL, **names: PostgresGraphStore(pool, **names),
}

INJECTIONS = [
    '"; DROP TABLE x; --',
    'public"."other',
    "x; DELETE FROM y",
    "x' OR '1'='1",
    "x\x00y",
    "redstring_ --",
]


@pytest.mark.parametrize("adapter", sorted(BUILDERS))
@pytest.mark.parametrize("attempt", INJECTIONS)
@pytest.mark.parametrize("argument", ["prefix", "schema"])
def test_an_injection_attempt_is_refused(adapter: str, attempt: str, argument: str) -> None:
    """Quotes, semicolons, spaces and NUL never reach SQL through a name argument."""
    shown = re.escape(repr(attempt))
    with pytest.raises(InvalidArgumentError, match=f"invalid (table prefix|schema name) {shown}"):
        BUILDERS[adapter](**{argument: attempt})


@pytest.mark.parametrize("adapter", sorted(BUILDERS))
def test_plain_names_are_accepted(adapter: str) -> None:
    """The defaults and an ordinary custom schema and prefix build an adapter."""
    assert BUILDERS[adapter]() is not None
    assert BUILDERS[adapter](prefix="kg_", schema="tenant_data_2") is not None


@pytest.mark.parametrize("adapter", sorted(BUILDERS))
def test_a_prefix_leaves_room_for_the_longest_derived_name(adapter: str) -> None:
    """A prefix that would push an index name past 63 characters is refused up front, where
    PostgreSQL would silently truncate the name and two indexes could collide."""
    with pytest.raises(InvalidArgumentError, match="at most"):
        BUILDERS[adapter](prefix="p" * 41)
    BUILDERS[adapter](prefix="p" * 30)


class SchemaRecorder:
    """A pool whose one connection records every statement. ``fetchval`` answers what a
    fresh database would: the vector column's dimension (8, as built here), else false."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    async def execute(self, query: str, *args: Any) -> str:
        self.statements.append(query)
        return "OK"

    async def fetchval(self, query: str, *args: Any) -> int | bool:
        self.statements.append(query)
        return 8 if "atttypmod" in query else False

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        yield

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[SchemaRecorder]:
        yield self


@pytest.mark.parametrize("adapter", sorted(BUILDERS))
async def test_every_name_the_schema_creates_fits_at_the_longest_prefix(adapter: str) -> None:
    """With the longest prefix the adapter accepts, every quoted name its ``ensure_schema``
    sends still fits 63 characters: LONGEST_SUFFIX really is the longest suffix."""
    recorder = SchemaRecorder()
    longest = "p" * (63 - len(CLASSES[adapter].LONGEST_SUFFIX))
    store = BUILDERS[adapter](recorder, prefix=longest, schema="s" * 63)
    await store.ensure_schema()
    names = {name for query in recorder.statements for name in re.findall(r'"([^"]+)"', query)}
    derived = {name for name in names if name.startswith(longest)}
    assert derived, recorder.statements
    assert max(map(len, names)) <= 63, sorted(names, key=len)[-1]
