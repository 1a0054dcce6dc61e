"""InMemoryChunkStore: the compliance suite unchanged, plus what the port leaves open."""

from __future__ import annotations

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import SourceId, TenantId
from redstring.ports.chunk_store import ChunkStore
from redstring.testing.chunk_store import ChunkStoreCompliance

TENANT = TenantId("tenant-a")
SOURCE = SourceId("guide.md")


def _chunk(text: str, index: int = 0) -> StoredChunk:
    return StoredChunk(id=chunk_id(SOURCE, text), source_id=SOURCE, chunk_index=index, text=text)


class TestMemoryChunkStore(ChunkStoreCompliance):
    async def new_store(self) -> ChunkStore:
        return InMemoryChunkStore()


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
