"""PgVectorStore against a real PostgreSQL + pgvector: the compliance suite, then specifics."""

from __future__ import annotations

import json
import uuid
from typing import Any

import asyncpg
import pytest

from redstring.domain.errors import DimensionMismatchError, InvalidArgumentError, ZeroVectorError
from redstring.domain.ids import EntityId, TenantId, id_text
from redstring.domain.vector import VectorRecord
from redstring.ports.vector_store import VectorStore
from redstring.testing import VectorStoreCompliance
from redstring.vector.adapters.pgvector import PgVectorStore
from tests.integration.postgres.plans import RecordingPool, plan_nodes

pytestmark = pytest.mark.integration

DIMENSION = VectorStoreCompliance.DIMENSION
PREFIX = "rs_test_"
TENANT = TenantId("tenant-a")
OTHER_TENANT = TenantId("tenant-b")

_schema_ready = False


async def _truncate(pool: asyncpg.Pool) -> None:
    """Empty the test table: a test affordance, deliberately not an adapter method."""
    await pool.execute(f'DELETE FROM "public"."{PREFIX}vectors"')


@pytest.fixture
async def vector_pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """The test's pool, with the schema created once per session and the table emptied."""
    global _schema_ready
    if not _schema_ready:
        await PgVectorStore(pool, dimension=DIMENSION, prefix=PREFIX).ensure_schema()
        _schema_ready = True
    await _truncate(pool)
    return pool


class TestPgVectorStore(VectorStoreCompliance):
    """The shared suite, unchanged, against pgvector."""

    @pytest.fixture(autouse=True)
    def _pool(self, vector_pool: asyncpg.Pool) -> None:
        self._shared_pool = vector_pool

    async def new_store(self) -> VectorStore:
        await _truncate(self._shared_pool)
        return PgVectorStore(self._shared_pool, dimension=self.DIMENSION, prefix=PREFIX)

    async def dispose(self, store: VectorStore) -> None:
        assert isinstance(store, PgVectorStore)
        await store.close()


def _record(vector: list[float], *, entity_id: EntityId | None = None, **metadata: Any) -> Any:
    return VectorRecord(
        entity_id=EntityId(uuid.uuid4()) if entity_id is None else entity_id,
        vector=vector,
        metadata=metadata,
    )


def _axis(index: int, dimension: int = DIMENSION) -> list[float]:
    return [1.0 if i == index else 0.0 for i in range(dimension)]


class _UntouchablePool:
    """A pool that fails any use: proves a check happened before SQL was sent."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the adapter used the pool ({name}) before validating")


class TestPgVectorStoreSpecifics:
    """What the port cannot specify: schema, encoding, ownership and query plans."""

    @pytest.fixture
    def store(self, vector_pool: asyncpg.Pool) -> PgVectorStore:
        return PgVectorStore(vector_pool, dimension=DIMENSION, prefix=PREFIX)

    async def test_schema_creation_is_idempotent(self, store: PgVectorStore) -> None:
        """ensure_schema twice (and concurrently with itself) keeps the data and one table."""
        record = _record(_axis(0))
        await store.upsert(TENANT, record)
        await store.ensure_schema()
        await store.ensure_schema()
        assert await store.get(TENANT, record.entity_id) == record

    async def test_a_table_of_another_dimension_is_refused(self, vector_pool: asyncpg.Pool) -> None:
        """A store built at 16 over the 8-wide table says so instead of failing on first write."""
        wrong = PgVectorStore(vector_pool, dimension=DIMENSION * 2, prefix=PREFIX)
        with pytest.raises(InvalidArgumentError, match=f"dimension {DIMENSION}, not 16"):
            await wrong.ensure_schema()

    async def test_float32_components_survive_exactly(self, store: PgVectorStore) -> None:
        """Negative, fractional, zero and large integral components come back bit-for-bit."""
        vector = [-1.5, 0.25, 0.0, 1024.0, -0.0625, 3.5, -7.0, 0.5]
        record = _record(vector)
        await store.upsert(TENANT, record)
        got = await store.get(TENANT, record.entity_id)
        assert got is not None
        assert got.vector == vector
        assert [type(component) for component in got.vector] == [float] * DIMENSION

    async def test_a_float64_component_is_narrowed_to_float32(self, store: PgVectorStore) -> None:
        """Storage is float4: 0.1 comes back as the float32 nearest to it, not as 0.1."""
        record = _record([0.1, *_axis(1)[1:]])
        await store.upsert(TENANT, record)
        got = await store.get(TENANT, record.entity_id)
        assert got is not None
        assert got.vector[0] == pytest.approx(0.1, rel=1e-7)
        assert got.vector[0] != 0.1

    async def test_metadata_text_survives_in_any_script(self, store: PgVectorStore) -> None:
        """Non-ASCII, quotes, backslashes and an escaped NUL inside JSON all round-trip."""
        metadata = {
            "entity_type": "Ort",
            "name": "Zürich 東京 naïve café",
            "quote": "she said \"hi\" \\ 'there'",
            "nul": "a\x00b",
            "nested": {"ß": [1, None, True, "ü"]},
        }
        record = _record(_axis(2), **metadata)
        await store.upsert(TENANT, record)
        assert await store.get(TENANT, record.entity_id) == record
        [match] = await store.search(TENANT, _axis(2), k=1, entity_types=["Ort"])
        assert match.metadata == metadata

    async def test_the_type_column_holds_what_entity_type_of_reads(
        self, store: PgVectorStore, vector_pool: asyncpg.Pool
    ) -> None:
        """A string type is stored in its own column; any other value is stored as NULL."""
        typed = _record(_axis(0), entity_type="Person")
        listed = _record(_axis(1), entity_type=["Person"])
        numbered = _record(_axis(2), entity_type=3)
        await store.upsert_many(TENANT, [typed, listed, numbered])
        rows = await vector_pool.fetch(
            f"SELECT entity_id, entity_type FROM {store.table} WHERE tenant_id = $1", TENANT
        )
        assert {row["entity_id"]: row["entity_type"] for row in rows} == {
            typed.entity_id: "Person",
            listed.entity_id: None,
            numbered.entity_id: None,
        }

    async def test_ties_order_by_uuid_bytes_which_is_id_text_order(
        self, store: PgVectorStore
    ) -> None:
        """Ids differing only where a signed byte or a letter digit would mislead still come
        back in canonical-text order, so ORDER BY the native uuid is the port's tie-break."""
        texts = [
            "00000000-0000-4000-8000-00000000000a",
            "00000000-0000-4000-8000-000000000009",
            "7fffffff-ffff-4fff-bfff-ffffffffffff",
            "80000000-0000-4000-8000-000000000000",
            "ffffffff-0000-4000-8000-000000000000",
        ]
        ids = [EntityId(uuid.UUID(text)) for text in texts]
        await store.upsert_many(TENANT, [_record(_axis(3), entity_id=i) for i in reversed(ids)])
        found = await store.search(TENANT, _axis(3), k=10)
        assert [match.entity_id for match in found] == sorted(ids, key=id_text)

    async def test_invalid_vectors_are_rejected_before_any_sql(self) -> None:
        """Dimension, zero-norm and negative-k errors are raised without touching the pool."""
        untouched = PgVectorStore(_UntouchablePool(), dimension=DIMENSION, prefix=PREFIX)
        with pytest.raises(DimensionMismatchError):
            await untouched.upsert(TENANT, _record([1.0] * (DIMENSION + 1)))
        with pytest.raises(ZeroVectorError):
            await untouched.upsert_many(TENANT, [_record([0.0] * DIMENSION)])
        with pytest.raises(DimensionMismatchError):
            await untouched.search(TENANT, [1.0], k=3)
        with pytest.raises(ZeroVectorError):
            await untouched.search(TENANT, [0.0] * DIMENSION, k=3)
        with pytest.raises(InvalidArgumentError, match="k must be between 0 and"):
            await untouched.search(TENANT, _axis(0), k=-1)

    async def test_there_is_no_ann_index_on_the_embedding(
        self, store: PgVectorStore, vector_pool: asyncpg.Pool
    ) -> None:
        """No HNSW or IVFFlat index (nor any index on the embedding) exists: an ANN index
        would truncate before the tenant filter. Adding one must be a decision, not a drive-by.
        """
        rows = await vector_pool.fetch(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' "
            "AND tablename = $1",
            f"{PREFIX}vectors",
        )
        definitions = {row["indexname"]: row["indexdef"] for row in rows}
        assert definitions, "the table has no indexes at all: is this the right table?"
        offending = {
            name: definition
            for name, definition in definitions.items()
            if "hnsw" in definition.lower()
            or "ivfflat" in definition.lower()
            or "embedding" in definition
        }
        assert offending == {}

    async def test_the_search_plan_filters_by_tenant_and_scans_no_embedding_index(
        self, vector_pool: asyncpg.Pool
    ) -> None:
        """EXPLAIN of the adapter's own search statement: the tenant is an index condition or
        a filter on the table scan, and no scan is ordered by the embedding (an ANN scan)."""
        recording = RecordingPool(vector_pool)
        store = PgVectorStore(recording, dimension=DIMENSION, prefix=PREFIX)
        await store.upsert_many(TENANT, [_record([float(i + 1), *_axis(0)[1:]]) for i in range(3)])
        await store.upsert_many(OTHER_TENANT, [_record(_axis(1))])
        recording.statements.clear()
        await store.search(TENANT, _axis(0), k=2, entity_types=["Person"], min_score=0.1)
        [(query, arguments)] = recording.statements
        for enable_seqscan in ("on", "off"):
            async with vector_pool.acquire() as conn:
                await conn.execute(f"SET enable_seqscan = {enable_seqscan}")
                plan = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {query}", *arguments)
                await conn.execute("RESET enable_seqscan")
            scans = [
                node
                for node in plan_nodes(json.loads(plan))
                if node.get("Relation Name") == f"{PREFIX}vectors"
            ]
            assert scans, plan
            for scan in scans:
                conditions = f"{scan.get('Index Cond', '')} {scan.get('Filter', '')}"
                assert "tenant_id" in conditions, scan
                assert "Order By" not in scan, scan
                assert "embedding" not in scan.get("Index Cond", ""), scan

    async def test_close_does_not_close_a_pool_it_does_not_own(
        self, vector_pool: asyncpg.Pool
    ) -> None:
        """Closing (twice, or by leaving a block) a store over an injected pool leaves it open."""
        store = PgVectorStore(vector_pool, dimension=DIMENSION, prefix=PREFIX)
        await store.close()
        await store.close()
        async with PgVectorStore(vector_pool, dimension=DIMENSION, prefix=PREFIX) as bound:
            assert isinstance(bound, PgVectorStore)
        assert await vector_pool.fetchval("SELECT 1") == 1
        assert await store.search(TENANT, _axis(0), k=1) == []

    async def test_connect_owns_its_pool_and_closes_it_once(
        self, postgres_dsn: str, vector_pool: asyncpg.Pool
    ) -> None:
        """A store from ``connect`` closes its own pool; a second close is safe."""
        store = await PgVectorStore.connect(postgres_dsn, dimension=DIMENSION, prefix=PREFIX)
        record = _record(_axis(4))
        await store.upsert(TENANT, record)
        assert await store.get(TENANT, record.entity_id) == record
        await store.close()
        await store.close()
        with pytest.raises(asyncpg.InterfaceError):
            await store.get(TENANT, record.entity_id)

    async def test_the_block_form_binds_the_store_closes_it_and_never_suppresses(
        self, postgres_dsn: str
    ) -> None:
        """``async with`` binds the store, closes its owned pool and lets exceptions through."""
        store = await PgVectorStore.connect(postgres_dsn, dimension=DIMENSION, prefix=PREFIX)

        async def body() -> None:
            async with store as bound:
                assert bound is store
                raise RuntimeError("body failed")

        with pytest.raises(RuntimeError, match="body failed"):
            await body()
        with pytest.raises(asyncpg.InterfaceError):
            await store.get(TENANT, EntityId(uuid.uuid4()))

    @pytest.mark.parametrize("dimension", [1, 768])
    async def test_dimensions_the_suite_cannot_see(
        self, vector_pool: asyncpg.Pool, dimension: int
    ) -> None:
        """Dimension 1 is legal, and a correct-length write at 768 is accepted (a length check
        by identity would pass at 8 and fail above 256)."""
        store = PgVectorStore(vector_pool, dimension=dimension, prefix=f"rs_test_d{dimension}_")
        await store.ensure_schema()
        record = _record(_axis(0, dimension))
        await store.upsert(TENANT, record)
        [match] = await store.search(TENANT, _axis(0, dimension), k=5)
        assert match.entity_id == record.entity_id
        assert match.score == pytest.approx(1.0, abs=1e-6)
        assert await store.delete_by_tenant(TENANT) == 1
