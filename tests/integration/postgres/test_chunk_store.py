"""PostgresChunkStore against a real PostgreSQL: the compliance suite, then specifics."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import asyncpg
import pytest

from redstring.chunks.adapters.postgres import PostgresChunkStore, _array_literal, _tenant_tag
from redstring.domain.chunk_ranking import bm25, query_terms, term_frequencies
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.errors import InvalidArgumentError
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
    for table in ("chunk_terms", "chunks", "chunk_term_stats", "chunk_corpus"):
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
        """The chunk's term row holds exactly ``term_frequencies(text)``, each term behind the
        tenant's four-character tag: casefolded Unicode words, underscores kept, no stemming
        and no stop words (PostgreSQL's parser would differ)."""
        text = "Café CAFÉ café's naïve_x 東京 running runs the THE Straße"
        chunk = _chunk(text)
        await store.upsert_many(TENANT, [chunk])
        _, terms, _, _ = store.tables
        [row] = await chunks_pool.fetch(
            f"SELECT chunk_id, terms, repeated, repeat_counts, length, long_keys FROM {terms} "
            "WHERE tenant_id = $1",
            TENANT,
        )
        expected = term_frequencies(text)
        assert row["chunk_id"] == chunk.id
        assert len({term[:4] for term in row["terms"]}) == 1
        assert sorted(term[4:] for term in row["terms"]) == sorted(expected)
        assert dict(zip(row["repeated"], row["repeat_counts"], strict=True)) == {
            term: count for term, count in expected.items() if count > 1
        }
        assert row["length"] == sum(expected.values())
        assert row["long_keys"] is None
        stats = await store.lexical_candidates(TENANT, ["café", "strasse", "running", "the"])
        assert stats.document_frequencies == {"café": 1, "strasse": 1, "running": 1, "the": 1}
        [candidate] = stats.candidates
        assert candidate.term_frequencies == {"café": 3, "strasse": 1, "running": 1, "the": 2}
        assert candidate.length == sum(expected.values())

    async def test_term_rows_are_written_once_and_leave_with_their_chunk(
        self, store: PostgresChunkStore, chunks_pool: asyncpg.Pool
    ) -> None:
        """Re-upserting a chunk, even from eight writers at once, writes its term row once;
        deleting or replacing its source removes exactly it, not the other tenant's."""
        text = "the river and the stone and the river."
        chunk = _chunk(text)
        await store.upsert_many(TENANT, [chunk])
        await store.upsert_many(TENANT, [chunk.model_copy(update={"chunk_index": 4})])
        fresh = _chunk("a second passage about the stone.", index=1)
        await asyncio.gather(*(store.upsert_many(TENANT, [fresh]) for _ in range(8)))
        await store.upsert_many(OTHER_TENANT, [chunk])
        _, terms, _, _ = store.tables

        async def term_rows(tenant: TenantId) -> int:
            count: int = await chunks_pool.fetchval(
                f"SELECT count(*) FROM {terms} WHERE tenant_id = $1", tenant
            )
            return count

        assert await term_rows(TENANT) == 2
        assert (await store.get(TENANT, chunk.id)).chunk_index == 4  # type: ignore[union-attr]
        await store.replace_source(TENANT, SOURCE, [fresh])
        assert await term_rows(TENANT) == 1
        assert (await store.lexical_candidates(TENANT, ["river"])).candidates == []
        assert await store.delete_by_source(TENANT, SOURCE) == 1
        assert await term_rows(TENANT) == 0
        assert await term_rows(OTHER_TENANT) == 1
        stats = await store.lexical_candidates(OTHER_TENANT, ["river"])
        assert stats.document_frequencies == {"river": 1}

    async def test_a_token_longer_than_an_index_entry_is_stored_and_matched_whole(
        self, store: PostgresChunkStore
    ) -> None:
        """A 5,000-character token (a DNA sequence is one word) is written and found; a token
        sharing its first 200 characters, or being exactly those 200 characters, is a
        different term, in another chunk or in the same one."""
        long_token = "acgt" * 1250
        sibling = long_token[:-1] + "a"
        prefix = long_token[:200]
        holder = _chunk(f"sequence {long_token} end", index=0)
        other = _chunk(f"sequence {sibling} end", index=1)
        both = _chunk(f"{long_token} {sibling} {long_token} end", index=2)
        short = _chunk(f"just {prefix} end", index=3)
        await store.upsert_many(TENANT, [holder, other, both, short])
        stats = await store.lexical_candidates(TENANT, [long_token, "end"])
        assert stats.document_frequencies == {long_token: 2, "end": 4}
        found = {c.chunk_id: c.term_frequencies for c in stats.candidates}
        assert found == {
            holder.id: {long_token: 1, "end": 1},
            other.id: {"end": 1},
            both.id: {long_token: 2, "end": 1},
            short.id: {"end": 1},
        }
        by_prefix = await store.lexical_candidates(TENANT, [prefix])
        assert by_prefix.document_frequencies == {prefix: 1}
        assert [c.chunk_id for c in by_prefix.candidates] == [short.id]

    @pytest.mark.parametrize(
        "values",
        [
            [],
            ["null", "NULL", ""],
            ['a"b', "c\\d", '\\"', "{x}", "a,b", " spaced ", "ünï", "'quote'"],
        ],
    )
    async def test_term_arrays_travel_as_literals_that_round_trip_any_text(
        self, chunks_pool: asyncpg.Pool, values: list[str]
    ) -> None:
        """The array literal the store sends for a chunk's terms reads back as exactly the
        tagged values, whatever they hold: the escaping path tokens never need still works."""
        literal = _array_literal(values, tag="Tg_-")
        back = await chunks_pool.fetchval("SELECT $1::text::text[]", literal)
        assert back == [f"Tg_-{value}" for value in values]

    async def test_a_token_spelled_like_null_or_an_array_brace_stays_a_term(
        self, store: PostgresChunkStore
    ) -> None:
        """Terms travel as quoted array elements, so ``null`` is a word rather than SQL's
        NULL; ``NULL`` folds to the same word."""
        chunk = _chunk("NULL and null, then nul.")
        await store.upsert_many(TENANT, [chunk])
        stats = await store.lexical_candidates(TENANT, ["null", "nul", "and"])
        assert stats.document_frequencies == {"null": 1, "nul": 1, "and": 1}
        [candidate] = stats.candidates
        assert candidate.term_frequencies == {"null": 2, "nul": 1, "and": 1}
        assert candidate.length == 5

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

    async def test_lexical_candidates_read_one_consistent_snapshot(
        self, chunks_pool: asyncpg.Pool
    ) -> None:
        """Totals and frequencies, then candidates: two statements in one repeatable-read
        transaction (one snapshot), and BM25 over them ranks the passage that mentions the
        query most first."""
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
        assert len(recording.statements) == 2
        assert (stats.corpus_size, stats.total_length) == (3, 7 + 7 + 4)
        ranked = bm25(stats, terms)
        assert [hit.chunk_id for hit in ranked] == [corpus[1].id, corpus[0].id]

    async def test_the_term_lookup_uses_the_index_and_reads_only_the_tenants_rows(
        self, store: PostgresChunkStore, chunks_pool: asyncpg.Pool
    ) -> None:
        """Once the corpus is large enough to matter, the candidates' term rows are found
        through the GIN index, and another tenant holding the same corpus adds no row to
        read: the index's keys carry the tenant."""
        corpus = [
            _chunk(f"passage {n} mentions word{n % 50} and more.", index=n) for n in range(600)
        ]
        await store.upsert_many(TENANT, corpus)
        await store.upsert_many(OTHER_TENANT, corpus)
        chunks, terms, _, _ = store.tables
        # VACUUM merges GIN's queue of new entries into the index, as autovacuum does once
        # inserts stop; until then the planner rightly prices the queue into every lookup.
        for table in (chunks, terms):
            await chunks_pool.execute(f"VACUUM ANALYZE {table}")
        recording = RecordingPool(chunks_pool)
        probe = PostgresChunkStore(recording, prefix=PREFIX)
        await probe.lexical_candidates(TENANT, ["word7"])
        [_, (query, arguments)] = recording.statements
        plan = json.loads(
            await chunks_pool.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) {query}", *arguments)
        )
        nodes = list(plan_nodes(plan))
        term_scans = [node for node in nodes if node.get("Relation Name") == f"{PREFIX}chunk_terms"]
        assert [scan["Node Type"] for scan in term_scans] == ["Bitmap Heap Scan"], term_scans
        [scan] = term_scans
        assert (scan["Actual Rows"], scan.get("Rows Removed by Filter", 0)) == (12, 0), scan
        assert any(
            node["Node Type"] == "Bitmap Index Scan"
            and node["Index Name"] == f"{PREFIX}chunk_terms_keys_idx"
            for node in nodes
        ), nodes

    async def test_tenants_whose_tags_collide_still_never_see_each_others_chunks(
        self, store: PostgresChunkStore
    ) -> None:
        """``tenant-1452`` and ``tenant-3024`` hash to the same four-character tag, so their
        terms share index postings; the tenant test on each row keeps them apart."""
        first, second = TenantId("tenant-1452"), TenantId("tenant-3024")
        assert _tenant_tag(first) == _tenant_tag(second)
        mine = _chunk("the shared word lives here.", index=0)
        theirs = _chunk("the shared word lives there, twice: shared.", index=1)
        await store.upsert_many(first, [mine])
        await store.upsert_many(second, [theirs])
        stats = await store.lexical_candidates(first, ["shared", "there"])
        assert stats.document_frequencies == {"shared": 1, "there": 0}
        assert [(c.chunk_id, c.term_frequencies) for c in stats.candidates] == [
            (mine.id, {"shared": 1})
        ]
        assert (await store.lexical_candidates(second, ["shared"])).candidates[
            0
        ].term_frequencies == {"shared": 2}

    async def test_statistics_tables_are_filled_from_the_term_rows_on_upgrade(
        self, chunks_pool: asyncpg.Pool
    ) -> None:
        """A store written before the statistics tables existed gets them filled from its
        term rows by ``ensure_schema``, long tokens included, so frequencies stay exact."""
        store = PostgresChunkStore(chunks_pool, prefix="rs_test_up_")
        _, _, stats_table, corpus_table = store.tables
        long_token = "x" * 250
        corpus = [
            _chunk("The owl and the moon.", index=0),
            _chunk(f"The moon, the tide, {long_token}.", index=1),
        ]
        try:
            await store.ensure_schema()
            await store.upsert_many(TENANT, corpus)
            await store.upsert_many(OTHER_TENANT, corpus[:1])
            expected = await store.lexical_candidates(TENANT, ["the", "moon", long_token])
            await chunks_pool.execute(f"DROP TABLE {stats_table}; DROP TABLE {corpus_table}")
            await store.ensure_schema()
            assert await store.lexical_candidates(TENANT, ["the", "moon", long_token]) == expected
            assert expected.document_frequencies == {"the": 2, "moon": 2, long_token: 1}
            other = await store.lexical_candidates(OTHER_TENANT, ["the"])
            assert (other.corpus_size, other.document_frequencies) == (1, {"the": 1})
        finally:
            for table in store.tables:
                await chunks_pool.execute(f"DROP TABLE IF EXISTS {table}")

    async def test_a_term_table_of_the_per_term_layout_is_refused(
        self, chunks_pool: asyncpg.Pool
    ) -> None:
        """A term table left by the earlier one-row-per-term layout stops ensure_schema with
        the way out, rather than leaving every stored chunk unfindable."""
        old = PostgresChunkStore(chunks_pool, prefix="rs_test_old_")
        _, terms, _, _ = old.tables
        await chunks_pool.execute(
            f"CREATE TABLE {terms} (tenant_id text, chunk_id text, term text, frequency int)"
        )
        try:
            with pytest.raises(InvalidArgumentError, match=r"one row per term.*rebuild"):
                await old.ensure_schema()
        finally:
            await chunks_pool.execute(f"DROP TABLE IF EXISTS {terms}")

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
