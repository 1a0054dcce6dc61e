"""InMemoryVectorStore: the compliance suite unchanged, plus what the suite cannot see."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from redstring.domain.errors import DimensionMismatchError, InvalidArgumentError
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports.vector_store import VectorStore
from redstring.testing.strategies import random_entity_id
from redstring.testing.vector_store import VectorStoreCompliance
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.index_checks import IndexDisagreementError, checking_indexes

TENANT = TenantId("tenant-a")


class TestMemoryVectorStore(VectorStoreCompliance):
    """The suite unchanged, on a store that checks its records and matrices after every call
    (``tests.index_checks``), property cases included."""

    async def new_store(self) -> VectorStore:
        return checking_indexes(InMemoryVectorStore)(dimension=self.DIMENSION)


class TestMemoryVectorStoreThroughTheMatrix(VectorStoreCompliance):
    """Every tenant searched through numpy's matrix product, however small."""

    async def new_store(self) -> VectorStore:
        return checking_indexes(InMemoryVectorStore)(
            dimension=self.DIMENSION, vectorised=True, vectorise_from=1
        )


class TestMemoryVectorStoreInPurePython(VectorStoreCompliance):
    """No numpy: the plain scan, as an install without the embeddings extra runs it."""

    async def new_store(self) -> VectorStore:
        return InMemoryVectorStore(dimension=self.DIMENSION, vectorised=False)


class TestTheMatrixAnswersLikeTheScan:
    """Same records, same queries: the matrix path returns the scan's matches and scores."""

    @pytest.mark.parametrize("seed", range(5))
    async def test_search_results_are_identical(self, seed: int) -> None:
        rng = random.Random(seed)
        matrix = InMemoryVectorStore(dimension=6, vectorised=True, vectorise_from=1)
        scan = InMemoryVectorStore(dimension=6, vectorised=False)
        # Few distinct directions, so many exact ties straddle the k-th place.
        directions = [[rng.choice([-1.0, 0.0, 0.5, 1.0]) for _ in range(6)] for _ in range(9)]
        directions = [d for d in directions if any(d)]
        for number in range(300):
            record = VectorRecord(
                entity_id=random_entity_id(),
                vector=[x * rng.choice([1.0, 2.5, 1e-3]) for x in rng.choice(directions)],
                metadata={"entity_type": rng.choice(["Person", "Place"])} if number % 3 else {},
            )
            for store in (matrix, scan):
                await store.upsert(TENANT, record)
        await matrix.upsert(
            TenantId("other"), VectorRecord(entity_id=random_entity_id(), vector=[1.0] * 6)
        )
        await scan.upsert(
            TenantId("other"), VectorRecord(entity_id=random_entity_id(), vector=[1.0] * 6)
        )
        ids = [record.entity_id for record in await scan.search(TENANT, [1.0] * 6, k=1000)]
        for _ in range(20):
            # Writes between searches: a moved vector and a deleted record must show at once.
            moved = VectorRecord(entity_id=rng.choice(ids), vector=rng.choice(directions))
            gone = rng.choice(ids)
            for store in (matrix, scan):
                await store.upsert(TENANT, moved)
                await store.delete(TENANT, gone)
            query = [rng.uniform(-1, 1) for _ in range(6)]
            options = {
                "k": rng.choice([0, 1, 5, 40, 400]),
                "entity_types": rng.choice([None, ["Person"], []]),
                "min_score": rng.choice([None, 0.5, 0.9]),
            }
            assert await matrix.search(TENANT, query, **options) == await scan.search(
                TENANT, query, **options
            )


class TestDimensionIsComparedByValue:
    """Two boundaries the suite, fixed at dimension 8, cannot see.

    CPython caches ints only up to 256, so ``len(vector) is not dimension`` is accidentally
    right at 8 and rejects every correct vector at 768; and dimension 1 is legal but drawn
    by nothing else.
    """

    async def test_a_correct_length_write_works_at_dimension_768(self) -> None:
        """A 768-component vector is accepted, found and read back by a 768-wide store."""
        store = InMemoryVectorStore(dimension=768)
        record = VectorRecord(entity_id=random_entity_id(), vector=[0.5] * 768)
        await store.upsert(TENANT, record)
        await store.upsert_many(TENANT, [record])
        assert await store.get(TENANT, record.entity_id) == record
        [match] = await store.search(TENANT, [0.5] * 768, k=1)
        assert match.entity_id == record.entity_id
        with pytest.raises(DimensionMismatchError, match="767"):
            await store.search(TENANT, [0.5] * 767, k=1)

    async def test_dimension_one_works(self) -> None:
        """At dimension 1 a vector is a sign: same sign scores 1.0 and the opposite 0.0."""
        store = InMemoryVectorStore(dimension=1)
        up = VectorRecord(entity_id=random_entity_id(), vector=[2.0])
        down = VectorRecord(entity_id=random_entity_id(), vector=[-3.0])
        await store.upsert_many(TENANT, [down, up])
        found = await store.search(TENANT, [1.0], k=2)
        assert [(match.entity_id, match.score) for match in found] == [
            (up.entity_id, 1.0),
            (down.entity_id, 0.0),
        ]
        with pytest.raises(DimensionMismatchError):
            await store.upsert(TENANT, VectorRecord(entity_id=random_entity_id(), vector=[]))


class TestMemoryVectorStoreSpecifics:
    """Behaviour of this adapter that the port leaves to each adapter."""

    async def test_two_stores_share_nothing(self) -> None:
        """A write to one store is invisible in another: ``new_store()`` relies on it."""
        first = InMemoryVectorStore(dimension=2)
        second = InMemoryVectorStore(dimension=2)
        record = VectorRecord(entity_id=random_entity_id(), vector=[1.0, 0.0])
        await first.upsert(TENANT, record)
        assert await second.get(TENANT, record.entity_id) is None
        assert await second.search(TENANT, [1.0, 0.0]) == []

    async def test_reads_hand_out_a_new_object_each_time(self) -> None:
        """``get`` never returns the object it stores, nor the one it was given."""
        store = InMemoryVectorStore(dimension=2)
        record = VectorRecord(entity_id=random_entity_id(), vector=[1.0, 0.0], metadata={"a": [1]})
        await store.upsert(TENANT, record)
        first = await store.get(TENANT, record.entity_id)
        second = await store.get(TENANT, record.entity_id)
        assert first == second == record
        assert first is not second
        assert first is not record
        assert first is not None
        assert second is not None
        assert first.metadata["a"] is not second.metadata["a"]

    @pytest.mark.parametrize("dimension", [0, -3])
    def test_a_dimension_below_one_is_refused(self, dimension: int) -> None:
        """A store that could hold no direction at all is a construction error."""
        with pytest.raises(InvalidArgumentError, match=str(dimension)):
            InMemoryVectorStore(dimension=dimension)

    async def test_close_keeps_the_data(self) -> None:
        """Closing releases nothing it does not own: the store still answers afterwards."""
        store = InMemoryVectorStore(dimension=2)
        record = VectorRecord(entity_id=random_entity_id(), vector=[1.0, 0.0])
        async with store as bound:
            await bound.upsert(TENANT, record)
        await store.close()
        assert await store.get(TENANT, record.entity_id) == record

    @pytest.mark.parametrize("seed", range(8))
    async def test_near_duplicates_are_ordered_by_their_exact_scores(self, seed: int) -> None:
        """Vectors a thousandth apart score alike in float32; the exact rescoring still
        picks and orders them as the scan does (with no error margin this fails)."""
        rng = random.Random(seed)
        base = [rng.uniform(-1, 1) for _ in range(16)]
        matrix = InMemoryVectorStore(dimension=16, vectorised=True, vectorise_from=1)
        scan = InMemoryVectorStore(dimension=16, vectorised=False)
        for _ in range(200):
            record = VectorRecord(
                entity_id=random_entity_id(), vector=[x + rng.gauss(0, 1e-3) for x in base]
            )
            for store in (matrix, scan):
                await store.upsert(TENANT, record)
        for k in (1, 3, 10):
            query = [x + rng.gauss(0, 1e-3) for x in base]
            assert await matrix.search(TENANT, query, k=k) == await scan.search(TENANT, query, k=k)


class _WritesBehindTheMatrix(InMemoryVectorStore):
    """Replaces a record without counting the write, so a cached matrix still claims to be
    current: search scores the old vector."""

    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        for record in records:
            key = (tenant_id, record.entity_id)
            if key in self._records:
                dict.__setitem__(self._records, key, record.model_copy(deep=True))
            else:
                await super().upsert_many(tenant_id, [record])


class TestTheIndexCheck:
    """``index_problems`` (run after every call of the suite above) sees what it is for."""

    @staticmethod
    async def _rewrite_after_a_search(adapter: type[InMemoryVectorStore]) -> InMemoryVectorStore:
        """A record searched through a matrix, then replaced; returns the store."""
        store = checking_indexes(adapter)(dimension=2, vectorised=True, vectorise_from=1)
        entity = random_entity_id()
        await store.upsert(TENANT, VectorRecord(entity_id=entity, vector=[1.0, 0.0]))
        await store.search(TENANT, [1.0, 0.0])
        await store.upsert(TENANT, VectorRecord(entity_id=entity, vector=[0.0, 1.0]))
        return store

    async def test_it_names_a_matrix_that_claims_to_be_current(self) -> None:
        """A write the matrix never heard of fails at the write, not at a wrong score."""
        with pytest.raises(IndexDisagreementError, match=r"after upsert.*holds other records"):
            await self._rewrite_after_a_search(_WritesBehindTheMatrix)

    async def test_the_intact_store_passes_the_same_calls(self) -> None:
        """The control: the same calls on the unbroken store raise nothing."""
        store = await self._rewrite_after_a_search(InMemoryVectorStore)
        assert store.index_problems() == []
