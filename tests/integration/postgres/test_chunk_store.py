"""PostgresChunkStore against a real PostgreSQL: the compliance suite, then specifics."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import asyncpg
import pytest

from redstring.chunks.adapters.postgres import PostgresChunkStore
from redstring.domain.chunk_ranking import bm25, query_terms, term_frequencies
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import EntityId, SourceId, TenantId
from redstring.ports.chunk_store import ChunkStore
from redstring.testing import ChunkStoreCompliance
from tests.integration.postgres.plans import RecordingPool, plan_nodes

pytestmark = pytest.mark.integration

PREFIX = "rs_test_"
TENANT = TenantId("tenant-a")
OTHER_TENANT = TenantId("tenant-b")
SOURCE = SourceId("notes.md")

_schema_ready = False


async def _truncate(pool: asyncpg.Pool) -> None:
    """Empty the test tables: a test affordance, deliberately not an adapter method."""
    for table in ("chunk_terms", "chunks"):
        await pool.execute(f'DELETE FROM "public"."{PREFIX}{table}"')


@pytest.fixture
async def chunks_pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """The test's pool, with the schema created once per session and the tables emptied."""
    global _schema_ready
    if not _schema_ready:
        await PostgresChunkStore(pool, prefix=PREFIX).ensure_schema()
        _schema_ready = True
    await _truncate(pool)
    return pool


class TestPostgresChunkStore(ChunkStoreCompliance):
    """The shared suite, unchanged, against PostgreSQL."""

    @pytest.fixture(autouse=True)
    def _pool(self, chunks_pool: asyncpg.Pool) -> None:
        self._shared_pool = chunks_pool

    async def new_store(self) -> ChunkStore:
        await _truncate(self._shared_pool)
        return PostgresChunkStore(self._shared_pool, prefix=PREFIX)

    async def dispose(self, store: ChunkStore) -> None:
        assert isinstance(store, PostgresChunkStore)
        await store.close()


def _chunk(text: str, *, source: str = SOURCE, index: int = 0, **extra: Any) -> StoredChunk:
    return StoredChunk(
        id=chunk_id(source, text),
        source_id=SourceId(source),
        chunk_index=index,
        text=text,
        char_start=0,
        char_end=len(text),
        **extra,
    )


class TestPostgresChunkStoreSpecifics:
    """What the port cannot specify: schema, encoding, tokenisation, ownership and plans."""

    @pytest.fixture
    def store(self, chunks_pool: asyncpg.Pool) -> PostgresChunkStore:
        return PostgresChunkStore(chunks_pool, prefix=PREFIX)

    async def test_schema_creation_is_idempotent(self, store: PostgresChunkStore) -> None:
        """ensure_schema again, even concurrently, keeps both tables and their rows."""
        chunk = _chunk("Ada wrote the first program.")
        await store.upsert_many(TENANT, [chunk])
        await asyncio.gather(store.ensure_schema(), store.ensure_schema())
        assert await store.get(TENANT, chunk.id) == chunk
        stats = await store.lexical_candidates(TENANT, ["program"])
        assert stats.document_frequencies == {"program": 1}

    async def test_text_entities_and_metadata_survive_exactly(
        self, store: PostgresChunkStore
    ) -> None:
        """Text in any script with quotes and backslashes, ordered entity ids (duplicates kept)
        and JSON metadata holding an escaped NUL all come back unchanged."""
        first, second = EntityId(uuid.uuid4()), EntityId(uuid.uuid4())
        chunk = _chunk(
            "Zürich «東京» \"quoted\" \\ 'single'\n\tnaïve café — ﬁn",
            entity_ids=(second, first, second),
            metadata={"nul": "a\x00b", "big": 2**70, "float": 0.1, "nested": [{"ß": None}]},
        )
        await store.upsert_many(TENANT, [chunk])
        assert await store.get(TENANT, chunk.id) == chunk
        assert await store.get_by_entity(TENANT, first) == [chunk]

    async def test_term_statistics_follow_the_domain_tokeniser(
        self, store: PostgresChunkStore, chunks_pool: asyncpg.Pool
    ) -> None:
        """The term table holds exactly ``term_frequencies(text)``: casefolded Unicode words,
        underscores kept, no stemming and no stop words (PostgreSQL's parser would differ)."""
        text = "Café CAFÉ café's naïve_x 東京 running runs the THE Straße"
        chunk = _chunk(text)
        await store.upsert_many(TENANT, [chunk])
        _, terms = store.tables
        rows = await chunks_pool.fetch(
            f"SELECT term, frequency, chunk_length FROM {terms} WHERE tenant_id = $1", TENANT
        )
        expected = term_frequencies(text)
        assert {row["term"]: row["frequency"] for row in rows} == dict(expected)
        assert {row["chunk_length"] for row in rows} == {sum(expected.values())}
        stats = await store.lexical_candidates(TENANT, ["café", "strasse", "running", "the"])
        assert stats.document_frequencies == {"café": 1, "strasse": 1, "running": 1, "the": 1}
        [candidate] = stats.candidates
        assert candidate.term_frequencies == {"café": 3, "strasse": 1, "running": 1, "the": 2}
        assert candidate.length == sum(expected.values())

    async def test_term_rows_are_written_once_and_leave_with_their_chunk(
        self, store: PostgresChunkStore, chunks_pool: asyncpg.Pool
    ) -> None:
        """Re-upserting a chunk, even from eight writers at once, writes its term rows once;
        deleting or replacing its source removes exactly them, not the other tenant's."""
        text = "the river and the stone and the river."
        chunk = _chunk(text)
        await store.upsert_many(TENANT, [chunk])
        await store.upsert_many(TENANT, [chunk.model_copy(update={"chunk_index": 4})])
        fresh = _chunk("a second passage about the stone.", index=1)
        await asyncio.gather(*(store.upsert_many(TENANT, [fresh]) for _ in range(8)))
        await store.upsert_many(OTHER_TENANT, [chunk])
        _, terms = store.tables

        async def term_rows(tenant: TenantId) -> int:
            count: int = await chunks_pool.fetchval(
                f"SELECT count(*) FROM {terms} WHERE tenant_id = $1", tenant
            )
            return count

        expected = len(term_frequencies(text)) + len(term_frequencies(fresh.text))
        assert await term_rows(TENANT) == expected
        assert (await store.get(TENANT, chunk.id)).chunk_index == 4  # type: ignore[union-attr]
        await store.replace_source(TENANT, SOURCE, [fresh])
        assert await term_rows(TENANT) == len(term_frequencies(fresh.text))
        assert await store.delete_by_source(TENANT, SOURCE) == 1
        assert await term_rows(TENANT) == 0
        assert await term_rows(OTHER_TENANT) == len(term_frequencies(text))

    async def test_a_token_longer_than_an_index_entry_is_stored_and_matched_whole(
        self, store: PostgresChunkStore
    ) -> None:
        """A 5,000-character token (a DNA sequence is one word) is written and found, and a
        token sharing its first 200 characters is a different term."""
        long_token = "acgt" * 1250
        sibling = long_token[:-1] + "a"
        holder = _chunk(f"sequence {long_token} end", index=0)
        other = _chunk(f"sequence {sibling} end", index=1)
        await store.upsert_many(TENANT, [holder, other])
        stats = await store.lexical_candidates(TENANT, [long_token])
        assert stats.document_frequencies == {long_token: 1}
        assert [candidate.chunk_id for candidate in stats.candidates] == [holder.id]

    async def test_a_long_multibyte_source_id_is_stored_and_replaced(
        self, store: PostgresChunkStore
    ) -> None:
        """A source id of 1,024 four-byte characters (beyond a B-tree entry) works everywhere."""
        source = "𝄞" * 1024
        chunks = [_chunk("one.", source=source, index=0), _chunk("two.", source=source, index=1)]
        await store.upsert_many(TENANT, chunks)
        assert await store.get_by_source(TENANT, SourceId(source)) == chunks
        await store.replace_source(TENANT, SourceId(source), chunks[1:])
        assert await store.list_sources(TENANT) == {source: 1}
        assert await store.delete_by_source(TENANT, SourceId(source)) == 1

    async def test_concurrent_replacements_of_a_source_never_mix(
        self, store: PostgresChunkStore
    ) -> None:
        """Eight concurrent replace_source calls leave exactly one caller's chunk set."""
        versions = [
            [_chunk(f"version {n} part {part}.", index=part) for part in range(3)] for n in range(8)
        ]
        await asyncio.gather(*(store.replace_source(TENANT, SOURCE, v) for v in versions))
        final = await store.get_by_source(TENANT, SOURCE)
        assert final in versions
        stats = await store.lexical_candidates(TENANT, ["version"])
        assert stats.corpus_size == 3
        assert stats.document_frequencies == {"version": 3}

    async def test_lexical_candidates_read_one_consistent_statement(
        self, chunks_pool: asyncpg.Pool
    ) -> None:
        """Totals and candidates come from one statement (one snapshot), and BM25 over them
        ranks the passage that mentions the query most first."""
        recording = RecordingPool(chunks_pool)
        store = PostgresChunkStore(recording, prefix=PREFIX)
        corpus = [
            _chunk("Ada Lovelace wrote notes on the engine.", index=0),
            _chunk("The analytical engine, the engine of Babbage.", index=1),
            _chunk("Unrelated text about rivers.", index=2),
        ]
        await store.upsert_many(TENANT, corpus)
        await store.upsert_many(OTHER_TENANT, [_chunk("engine engine engine engine.")])
        recording.statements.clear()
        terms = query_terms("the engine")
        stats = await store.lexical_candidates(TENANT, terms)
        assert len(recording.statements) == 1
        assert (stats.corpus_size, stats.total_length) == (3, 7 + 7 + 4)
        ranked = bm25(stats, terms)
        assert [hit.chunk_id for hit in ranked] == [corpus[1].id, corpus[0].id]

    async def test_the_term_lookup_uses_the_term_index(
        self, store: PostgresChunkStore, chunks_pool: asyncpg.Pool
    ) -> None:
        """Once the corpus is large enough to matter, the term rows are found by the
        (tenant, term prefix) index rather than by scanning every tenant's terms."""
        corpus = [
            _chunk(f"passage {n} mentions word{n % 50} and more.", index=n) for n in range(600)
        ]
        await store.upsert_many(TENANT, corpus)
        chunks, terms = store.tables
        await chunks_pool.execute(f"ANALYZE {chunks}; ANALYZE {terms}")
        recording = RecordingPool(chunks_pool)
        probe = PostgresChunkStore(recording, prefix=PREFIX)
        await probe.lexical_candidates(TENANT, ["word7"])
        [(query, arguments)] = recording.statements
        plan = json.loads(await chunks_pool.fetchval(f"EXPLAIN (FORMAT JSON) {query}", *arguments))
        term_scans = [
            node for node in plan_nodes(plan) if node.get("Relation Name") == f"{PREFIX}chunk_terms"
        ]
        assert term_scans
        for scan in term_scans:
            assert scan["Node Type"] in {"Index Only Scan", "Index Scan", "Bitmap Heap Scan"}, scan

    async def test_close_does_not_close_a_pool_it_does_not_own(
        self, chunks_pool: asyncpg.Pool
    ) -> None:
        """Closing (twice, or by leaving a block) a store over an injected pool leaves it open."""
        store = PostgresChunkStore(chunks_pool, prefix=PREFIX)
        await store.close()
        await store.close()
        async with PostgresChunkStore(chunks_pool, prefix=PREFIX) as bound:
            assert isinstance(bound, PostgresChunkStore)
        assert await chunks_pool.fetchval("SELECT 1") == 1
        assert await store.list_sources(TENANT) == {}

    async def test_connect_owns_its_pool_and_the_block_closes_it(self, postgres_dsn: str) -> None:
        """``connect`` makes the store own its pool; leaving a block closes it, errors pass."""
        store = await PostgresChunkStore.connect(postgres_dsn, prefix=PREFIX)

        async def body() -> None:
            async with store as bound:
                assert bound is store
                assert await bound.list_sources(TENANT) == {}
                raise RuntimeError("body failed")

        with pytest.raises(RuntimeError, match="body failed"):
            await body()
        await store.close()
        with pytest.raises(asyncpg.InterfaceError):
            await store.list_sources(TENANT)
