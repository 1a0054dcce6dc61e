"""PostgresEventLog against a real PostgreSQL: the compliance suite, then specifics."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.events import NewEvent
from redstring.domain.ids import TenantId, new_event_id
from redstring.eventlog.adapters.postgres import PostgresEventLog
from redstring.ports.errors import ConcurrencyConflictError
from redstring.ports.event_log import EventLog
from redstring.testing import EventLogCompliance

pytestmark = pytest.mark.integration

PREFIX = "rs_test_"
TENANT = TenantId("tenant-a")
STREAM = "entity-1"

_schema_ready = False


async def _truncate(pool: asyncpg.Pool) -> None:
    """Empty the test tables: a test affordance, deliberately not an adapter method."""
    await pool.execute(f'DELETE FROM "public"."{PREFIX}events"')
    await pool.execute(f'DELETE FROM "public"."{PREFIX}checkpoints"')


@pytest.fixture
async def events_pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """The test's pool, with the schema created once per session and the table emptied."""
    global _schema_ready
    if not _schema_ready:
        await PostgresEventLog(pool, prefix=PREFIX).ensure_schema()
        _schema_ready = True
    await _truncate(pool)
    return pool


class TestPostgresEventLog(EventLogCompliance):
    """The shared suite, unchanged, against PostgreSQL."""

    @pytest.fixture(autouse=True)
    def _pool(self, events_pool: asyncpg.Pool) -> None:
        self._shared_pool = events_pool

    async def new_store(self) -> EventLog:
        await _truncate(self._shared_pool)
        return PostgresEventLog(self._shared_pool, prefix=PREFIX)

    async def dispose(self, store: EventLog) -> None:
        assert isinstance(store, PostgresEventLog)
        await store.close()


def _event(**payload: object) -> NewEvent:
    return NewEvent(event_id=new_event_id(), type="Noted", payload=dict(payload))


class TestPostgresEventLogSpecifics:
    """What the port cannot specify: schema, encoding, ownership and real concurrency."""

    @pytest.fixture
    def log(self, events_pool: asyncpg.Pool) -> PostgresEventLog:
        return PostgresEventLog(events_pool, prefix=PREFIX)

    async def test_schema_creation_is_idempotent(self, log: PostgresEventLog) -> None:
        """ensure_schema again, even concurrently, keeps the tables, events and checkpoints."""
        stored = await log.append(TENANT, STREAM, [_event(n=1)])
        await log.save_checkpoint(TENANT, "graph", stored[0].position)
        await asyncio.gather(log.ensure_schema(), log.ensure_schema())
        assert await log.read(TENANT) == stored
        assert await log.checkpoint(TENANT, "graph") == stored[0].position

    async def test_a_checkpoint_beyond_bigint_is_refused_before_sql(
        self, log: PostgresEventLog
    ) -> None:
        """Positions are ``bigint``: one past the largest raises InvalidArgumentError naming it."""
        await log.save_checkpoint(TENANT, "graph", 2**63 - 1)
        with pytest.raises(InvalidArgumentError, match=str(2**63)):
            await log.save_checkpoint(TENANT, "graph", 2**63)
        assert await log.checkpoint(TENANT, "graph") == 2**63 - 1

    async def test_the_database_itself_refuses_a_negative_checkpoint(
        self, log: PostgresEventLog, events_pool: asyncpg.Pool
    ) -> None:
        """A writer bypassing the class still cannot store a negative position."""
        with pytest.raises(asyncpg.CheckViolationError):
            await events_pool.execute(
                f'INSERT INTO "public"."{PREFIX}checkpoints" (tenant_id, name, position) '
                "VALUES ($1, 'graph', -1)",
                TENANT,
            )

    async def test_an_invalid_stream_name_is_refused_before_sql(
        self, log: PostgresEventLog
    ) -> None:
        """The domain's stream rule (no NUL, no leading space) applies before anything is sent."""
        for stream in ("", " leading", "has\x00nul", "x" * 257):
            with pytest.raises(ValueError, match="stream"):
                await log.append(TENANT, stream, [_event()])
        assert await log.read(TENANT) == []

    async def test_a_batch_repeating_an_event_id_is_refused(self, log: PostgresEventLog) -> None:
        """One id twice in a batch is a caller's mistake, not a retry: ValueError, no write."""
        repeated = _event()
        with pytest.raises(ValueError, match="repeats event ids"):
            await log.append(TENANT, STREAM, [repeated, repeated])
        assert await log.stream_version(TENANT, STREAM) == 0

    async def test_an_event_id_stored_in_another_stream_is_refused(
        self, log: PostgresEventLog
    ) -> None:
        """An id belongs to one stream of a tenant: reusing it elsewhere raises, writes nothing."""
        first = _event()
        await log.append(TENANT, STREAM, [first])
        with pytest.raises(ValueError, match="another stream"):
            await log.append(TENANT, "entity-2", [first])
        assert await log.stream_version(TENANT, "entity-2") == 0

    async def test_concurrent_writers_expecting_one_version_let_exactly_one_win(
        self, log: PostgresEventLog
    ) -> None:
        """Eight connections append at expected_version=0 at once: one succeeds, seven conflict."""
        results = await asyncio.gather(
            *(log.append(TENANT, STREAM, [_event(n=n)], expected_version=0) for n in range(8)),
            return_exceptions=True,
        )
        won = [result for result in results if isinstance(result, list)]
        lost = [result for result in results if isinstance(result, ConcurrencyConflictError)]
        assert (len(won), len(lost)) == (1, 7)
        assert await log.read_stream(TENANT, STREAM) == won[0]

    async def test_concurrent_batches_of_one_tenant_never_interleave(
        self, log: PostgresEventLog
    ) -> None:
        """Positions of one tenant are handed out in commit order, batch by batch, so no other
        event lands inside a batch's range: a projection resuming after a position skips nothing.
        """
        batches = await asyncio.gather(
            *(log.append(TENANT, f"stream-{n}", [_event(i=i) for i in range(3)]) for n in range(8))
        )
        everything = [event.position for event in await log.read(TENANT)]
        assert everything == sorted(everything)
        for batch in batches:
            low, high = batch[0].position, batch[-1].position
            assert [p for p in everything if low <= p <= high] == [e.position for e in batch]

    async def test_a_later_position_is_never_visible_before_an_earlier_one(
        self, log: PostgresEventLog, events_pool: asyncpg.Pool
    ) -> None:
        """A writer that took a position and is slow to commit holds back later writers of the
        tenant, so a reader never sees position n+1 while n is still invisible (and a projection
        resuming after n+1 would never see n). A test-side trigger makes the first writer slow.
        """
        await events_pool.execute(
            "CREATE OR REPLACE FUNCTION rs_test_slow_insert() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN IF NEW.type = 'Slow' THEN PERFORM pg_sleep(1); END IF; "
            "RETURN NEW; END $$"
        )
        await events_pool.execute(
            f"CREATE TRIGGER rs_test_slow BEFORE INSERT ON {log.table} "
            "FOR EACH ROW EXECUTE FUNCTION rs_test_slow_insert()"
        )
        try:
            slow_append = asyncio.create_task(
                log.append(TENANT, "slow", [NewEvent(event_id=new_event_id(), type="Slow")])
            )
            await asyncio.sleep(0.3)
            [fast] = await log.append(TENANT, "fast", [_event()])
            visible = {event.event_id for event in await log.read(TENANT)}
            [slow] = await slow_append
        finally:
            await events_pool.execute(f"DROP TRIGGER IF EXISTS rs_test_slow ON {log.table}")
            await events_pool.execute("DROP FUNCTION IF EXISTS rs_test_slow_insert()")
        assert slow.position < fast.position, "the slow writer did not take its position first"
        assert slow.event_id in visible

    async def test_the_database_itself_refuses_a_duplicate_version(
        self, log: PostgresEventLog, events_pool: asyncpg.Pool
    ) -> None:
        """A writer bypassing the class still cannot commit a second event at one version."""
        await log.append(TENANT, STREAM, [_event()])
        with pytest.raises(asyncpg.UniqueViolationError):
            await events_pool.execute(
                f"INSERT INTO {log.table} (tenant_id, stream, stream_version, event_id, type, "
                "payload) VALUES ($1, $2, 1, $3, 'Forged', '{}')",
                TENANT,
                STREAM,
                new_event_id(),
            )

    async def test_close_does_not_close_a_pool_it_does_not_own(
        self, events_pool: asyncpg.Pool
    ) -> None:
        """Closing (twice, or by leaving a block) a log over an injected pool leaves it open."""
        log = PostgresEventLog(events_pool, prefix=PREFIX)
        await log.close()
        await log.close()
        async with PostgresEventLog(events_pool, prefix=PREFIX) as bound:
            assert isinstance(bound, PostgresEventLog)
        assert await events_pool.fetchval("SELECT 1") == 1
        assert await log.read(TENANT) == []

    async def test_connect_owns_its_pool_and_the_block_closes_it(self, postgres_dsn: str) -> None:
        """``connect`` makes the log own its pool; leaving a block closes it, exceptions pass."""
        log = await PostgresEventLog.connect(postgres_dsn, prefix=PREFIX)

        async def body() -> None:
            async with log as bound:
                assert bound is log
                assert await bound.read(TENANT) == []
                raise RuntimeError("body failed")

        with pytest.raises(RuntimeError, match="body failed"):
            await body()
        await log.close()
        with pytest.raises(asyncpg.InterfaceError):
            await log.read(TENANT)
