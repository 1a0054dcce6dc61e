"""Every Postgres adapter accepts only plain lowercase identifiers for its schema and prefix.

Table names cannot be SQL parameters, so they are interpolated; the four adapters each carry
their own copy of the check (they live in packages that may not import each other), and this
one test keeps the four copies in agreement. Constructing an adapter sends no SQL, so no
backend is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from redstring.chunks.adapters.postgres import PostgresChunkStore
from redstring.domain.errors import InvalidArgumentError
from redstring.eventlog.adapters.postgres import PostgresEventLog
from redstring.graph.adapters.postgres import PostgresGraphStore
from redstring.vector.adapters.pgvector import PgVectorStore

POOL: Any = object()
"""Never used: construction only validates and remembers the pool."""

BUILDERS: dict[str, Callable[..., Any]] = {
    "PgVectorStore": lambda **names: PgVectorStore(POOL, dimension=8, **names),
    "PostgresChunkStore": lambda **names: PostgresChunkStore(POOL, **names),
    "PostgresEventLog": lambda **names: PostgresEventLog(POOL, **names),
    "PostgresGraphStore": lambda **names: PostgresGraphStore(POOL, **names),
}

BAD_NAMES = [
    "",
    "Upper",
    "has-dash",
    "has space",
    '"; DROP TABLE x; --',
    "9starts_with_digit",
    "ünïcode",
    "x" * 64,
]


@pytest.mark.parametrize("adapter", sorted(BUILDERS))
@pytest.mark.parametrize("bad", BAD_NAMES)
@pytest.mark.parametrize("argument", ["prefix", "schema"])
def test_a_name_needing_quotes_is_refused(adapter: str, bad: str, argument: str) -> None:
    """Anything but ``[a-z_][a-z0-9_]*`` within PostgreSQL's 63 characters is refused."""
    with pytest.raises(InvalidArgumentError, match=f"invalid (table prefix|schema name) {bad!r}"):
        BUILDERS[adapter](**{argument: bad})


@pytest.mark.parametrize("adapter", sorted(BUILDERS))
def test_plain_names_are_accepted(adapter: str) -> None:
    """The defaults and an ordinary custom schema and prefix build an adapter."""
    BUILDERS[adapter]()
    assert BUILDERS[adapter](prefix="kg_", schema="tenant_data_2") is not None


@pytest.mark.parametrize("adapter", sorted(BUILDERS))
def test_a_prefix_leaves_room_for_the_longest_derived_name(adapter: str) -> None:
    """A prefix that would push an index name past 63 characters is refused up front, where
    PostgreSQL would silently truncate the name and two indexes could collide."""
    with pytest.raises(InvalidArgumentError, match="at most"):
        BUILDERS[adapter](prefix="p" * 41)
    BUILDERS[adapter](prefix="p" * 30)
