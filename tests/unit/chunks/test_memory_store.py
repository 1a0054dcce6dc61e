"""InMemoryChunkStore: the compliance suite unchanged, plus what the port leaves open."""

from __future__ import annotations

import uuid

import pytest

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import EntityId, SourceId, TenantId
from redstring.ports.chunk_store import ChunkStore
from redstring.testing.chunk_store import ChunkStoreCompliance
from tests.index_checks import IndexDisagreementError, checking_indexes
from tests.unit.chunks.test_suite_catches_mutants import (
    RemovalKeepsItsLength,
    UnindexesEachListing,
)

TENANT = TenantId("tenant-a")
SOURCE = SourceId("guide.md")


def _chunk(text: str, index: int = 0) -> StoredChunk:
    return StoredChunk(id=chunk_id(SOURCE, text), source_id=SOURCE, chunk_index=index, text=text)


class TestMemoryChunkStore(ChunkStoreCompliance):
    """The suite unchanged, on a store that checks its indexes against its rows after every
    call (``tests.index_checks``), so no case can pass over a half-applied update."""

    async def new_store(self) -> ChunkStore:
        return checking_indexes(InMemoryChunkStore)()


class TestMemoryChunkStoreSpecifics:
    """Behaviour of this adapter that the port leaves to each adapter."""

    async def test_two_stores_share_nothing(self) -> None:
        """A write to one store is invisible in another: ``new_store()`` relies on it."""
        first = InMemoryChunkStore()
        second = InMemoryChunkStore()
        chunk = _chunk("Only in the first store.")
        await first.upsert_many(TENANT, [chunk])
        assert await second.get(TENANT, chunk.id) is None
        assert await second.list_sources(TENANT) == {}

    async def test_reads_hand_out_a_new_object_each_time(self) -> None:
        """``get`` never returns the object it stores, nor the one it was given."""
        store = InMemoryChunkStore()
        chunk = _chunk("Copied both ways.")
        await store.upsert_many(TENANT, [chunk])
        first = await store.get(TENANT, chunk.id)
        second = await store.get(TENANT, chunk.id)
        assert first == second == chunk
        assert first is not second
        assert first is not chunk

    async def test_statistics_are_counted_at_write_time(self) -> None:
        """Token counts are taken when a chunk is written, so a query only adds them up."""
        store = InMemoryChunkStore()
        chunk = _chunk("Ada and Ada.")
        await store.upsert_many(TENANT, [chunk])
        [row] = store._rows.values()
        assert row.frequencies == {"ada": 2, "and": 1}
        assert row.length == 3

    async def test_close_keeps_the_data(self) -> None:
        """Closing releases nothing it does not own: the store still answers afterwards."""
        store = InMemoryChunkStore()
        chunk = _chunk("Still here.")
        async with store as bound:
            await bound.upsert_many(TENANT, [chunk])
        await store.close()
        assert await store.get(TENANT, chunk.id) == chunk


class TestTheIndexCheck:
    """``index_problems`` (run after every call of the suite above) sees what it is for."""

    @staticmethod
    def _repeating() -> StoredChunk:
        entity = EntityId(uuid.UUID(int=7, version=4))
        return _chunk("Ada met Ada.").model_copy(update={"entity_ids": (entity, entity)})

    async def test_it_fails_issue_28s_store_at_the_write_not_at_the_keyerror(self) -> None:
        """The store as issue 28 found it held a chunk naming an entity twice and raised
        ``KeyError`` at the next write, having popped the row. The check fails the first
        write already, and names the half-applied drop when it is reached."""
        store = checking_indexes(UnindexesEachListing)()
        with pytest.raises(IndexDisagreementError, match="names an entity twice"):
            await store.upsert_many(TENANT, [self._repeating()])
        with pytest.raises(IndexDisagreementError, match="total lengths") as caught:
            await store.upsert_many(TENANT, [self._repeating()])
        assert isinstance(caught.value.__context__, KeyError)

    async def test_it_names_an_index_a_silent_defect_left_stale(self) -> None:
        """A removal that keeps its length raises nothing itself; the check fails the call."""
        store = checking_indexes(RemovalKeepsItsLength)()
        await store.upsert_many(TENANT, [_chunk("Ada met Grace.")])
        with pytest.raises(IndexDisagreementError, match=r"after delete_by_source"):
            await store.delete_by_source(TENANT, SOURCE)

    async def test_the_intact_store_passes_the_same_calls(self) -> None:
        """The control: the same calls on the unbroken store raise nothing."""
        store = checking_indexes(InMemoryChunkStore)()
        for _ in range(2):
            await store.upsert_many(TENANT, [self._repeating(), _chunk("Ada met Grace.", 1)])
        assert await store.delete_by_source(TENANT, SOURCE) == 2
        assert store.index_problems() == []
