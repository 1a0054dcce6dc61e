"""PostgresStore's lifetime: a handed pool stays open, a created one closes once, even on failure.

``asyncpg.create_pool`` is replaced by a counting fake, so no server is needed; the same
rules are exercised against a real pool by each adapter's integration specifics.
"""

from __future__ import annotations

from typing import Any

import pytest

from redstring.chunks.adapters.postgres import PostgresChunkStore
from redstring.domain.errors import InvalidArgumentError
from redstring.eventlog.adapters.postgres import PostgresEventLog
from redstring.graph.adapters.postgres import PostgresGraphStore
from redstring.postgres import pool as pool_module
from redstring.postgres.pool import PostgresStore, affected
from redstring.vector.adapters.pgvector import PgVectorStore


class FakePool:
    """Counts ``close`` calls; nothing else on it may be used."""

    def __init__(self) -> None:
        self.closes = 0

    async def close(self) -> None:
        self.closes += 1


class Probe(PostgresStore):
    """A store whose schema step is scripted."""

    LONGEST_SUFFIX = "things_idx"
    schema_error: BaseException | None = None

    def __init__(self, pool: Any) -> None:
        super().__init__(pool, prefix="rs_")
        self.schema_calls = 0

    async def ensure_schema(self) -> None:
        self.schema_calls += 1
        if self.schema_error is not None:
            raise self.schema_error


@pytest.fixture
def created(monkeypatch: pytest.MonkeyPatch) -> list[FakePool]:
    """Every pool ``create_pool`` handed out, in order."""
    pools: list[FakePool] = []

    async def create_pool(dsn: str, **options: Any) -> FakePool:
        assert dsn == "postgresql://example/db"
        assert options == {"min_size": 2, "max_size": 3}
        pools.append(FakePool())
        return pools[-1]

    monkeypatch.setattr(pool_module.asyncpg, "create_pool", create_pool)
    return pools


async def _connect(*, create_schema: bool = True) -> Probe:
    return await Probe._connect(
        Probe,
        "postgresql://example/db",
        min_size=2,
        max_size=3,
        create_schema=create_schema,
    )


async def test_a_handed_pool_is_never_closed() -> None:
    """close twice and two blocks (one failing) leave a pool the store did not create open."""
    handed = FakePool()
    store = Probe(handed)
    await store.close()
    await store.close()
    async with store as bound:
        assert bound is store

    async def body() -> None:
        async with store:
            raise RuntimeError("body failed")

    with pytest.raises(RuntimeError, match="body failed"):
        await body()
    assert handed.closes == 0


async def test_a_created_pool_is_owned_and_closed_once(created: list[FakePool]) -> None:
    """The store from _connect ran ensure_schema, and closing it twice closes the pool once."""
    store = await _connect()
    assert store.schema_calls == 1
    await store.close()
    await store.close()
    assert [pool.closes for pool in created] == [1]


async def test_the_block_closes_an_owned_pool_and_never_suppresses(
    created: list[FakePool],
) -> None:
    """Leaving the block closes the pool; the body's exception still propagates."""
    store = await _connect()

    async def body() -> None:
        async with store as bound:
            assert bound is store
            raise RuntimeError("body failed")

    with pytest.raises(RuntimeError, match="body failed"):
        await body()
    assert [pool.closes for pool in created] == [1]


@pytest.mark.parametrize("error", [RuntimeError("schema failed"), KeyboardInterrupt()])
async def test_a_failed_schema_closes_the_new_pool_and_reraises(
    created: list[FakePool], monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    """Even a BaseException during ensure_schema closes the pool before propagating."""
    monkeypatch.setattr(Probe, "schema_error", error)
    with pytest.raises(type(error)):
        await _connect()
    assert [pool.closes for pool in created] == [1]


async def test_create_schema_false_skips_the_schema(created: list[FakePool]) -> None:
    """``create_schema=False`` builds the owning store without touching the schema."""
    store = await _connect(create_schema=False)
    assert store.schema_calls == 0
    await store.close()
    assert [pool.closes for pool in created] == [1]


ADAPTER_CONNECTS: dict[str, Any] = {
    "PgVectorStore": lambda **names: PgVectorStore.connect(
        "postgresql://example/db", dimension=8, min_size=2, max_size=3, **names
    ),
    "PostgresChunkStore": lambda **names: PostgresChunkStore.connect(
        "postgresql://example/db", min_size=2, max_size=3, **names
    ),
    "PostgresEventLog": lambda **names: PostgresEventLog.connect(
        "postgresql://example/db", min_size=2, max_size=3, **names
    ),
    "PostgresGraphStore": lambda **names: PostgresGraphStore.connect(
        "postgresql://example/db", min_size=2, max_size=3, **names
    ),
}


@pytest.mark.parametrize("adapter", sorted(ADAPTER_CONNECTS))
async def test_each_adapter_connect_owns_its_pool(created: list[FakePool], adapter: str) -> None:
    """Every adapter's connect returns a store of its own class that closes its pool once."""
    store = await ADAPTER_CONNECTS[adapter](create_schema=False)
    assert type(store).__name__ == adapter
    await store.close()
    await store.close()
    assert [pool.closes for pool in created] == [1]


@pytest.mark.parametrize("adapter", sorted(ADAPTER_CONNECTS))
async def test_each_adapter_connect_closes_the_pool_when_a_name_is_refused(
    created: list[FakePool], adapter: str
) -> None:
    """A refused name raises from connect with the pool it had just created closed."""
    with pytest.raises(InvalidArgumentError, match="invalid table prefix"):
        await ADAPTER_CONNECTS[adapter](prefix="Bad-Prefix")
    assert [pool.closes for pool in created] == [1]


@pytest.mark.parametrize(("tag", "rows"), [("DELETE 0", 0), ("DELETE 3", 3), ("INSERT 0 12", 12)])
def test_affected_reads_the_row_count_of_a_command_tag(tag: str, rows: int) -> None:
    """The count is the tag's last field (INSERT carries an OID field before it)."""
    assert affected(tag) == rows
