"""ChunkStoreCompliance: the executable definition of the ChunkStore port.

Subclass it and return a fresh, empty store::

    class TestMyChunkStore(ChunkStoreCompliance):
        async def new_store(self) -> ChunkStore:
            return MyChunkStore()
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import JsonValue

from redstring.domain.chunk_ranking import (
    DEFAULT_POSTING_BUDGET,
    LexicalCandidate,
    LexicalCandidates,
    tokenize,
)
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.ports.chunk_store import (
    MAX_CHUNK_LIMIT,
    ChunkPurge,
    ChunkReader,
    ChunkStore,
    ChunkWriter,
    LexicalCandidateSource,
)
from redstring.testing.lifecycle import LifecycleCases
from redstring.testing.settings import compliance_settings
from redstring.testing.strategies import (
    chunk_texts,
    random_entity_id,
    tenant_ids,
    tenant_pairs,
    words,
)
from redstring.testing.strategies import metadata as json_metadata

TENANT = TenantId("tenant-a")
OTHER_TENANT = TenantId("tenant-b")
SOURCE = SourceId("guide.md")
OTHER_SOURCE = SourceId("notes.txt")

_ENTITIES = tuple(EntityId(uuid.UUID(int=n, version=4)) for n in range(1, 5))
_SOURCES = (SOURCE, OTHER_SOURCE)


# Most properties are about which chunks a read returns, not about encoding; a small pool of
# metadata keeps their examples cheap, and the round-trip property draws the full range.
_PLAIN_METADATA: tuple[dict[str, JsonValue], ...] = (
    {},
    {"page": 3},
    {"tags": ["a", "ü"], "reviewed": False},
)


@st.composite
def _stored_chunks(
    draw: st.DrawFn, sources: Sequence[SourceId], *, any_metadata: bool
) -> StoredChunk:
    """A chunk of one of ``sources`` with a real content-addressed id."""
    return ChunkStoreCompliance._chunk(
        draw(st.sampled_from(sources)),
        draw(chunk_texts()),
        chunk_index=draw(st.integers(min_value=0, max_value=3)),
        # Repeats included: the model names each entity once (ADR 0028), and a store must
        # index, replace and delete such a chunk like any other.
        entity_ids=draw(st.lists(st.sampled_from(_ENTITIES), max_size=4)),
        metadata=draw(json_metadata() if any_metadata else st.sampled_from(_PLAIN_METADATA)),
    )


def _corpora(
    sources: Sequence[SourceId] = _SOURCES, *, any_metadata: bool = False
) -> st.SearchStrategy[list[StoredChunk]]:
    """Up to eight chunks of ``sources``; small texts from one vocabulary, so ids repeat."""
    return st.lists(_stored_chunks(sources, any_metadata=any_metadata), max_size=8)


def _latest(chunks: Iterable[StoredChunk]) -> dict[ChunkId, StoredChunk]:
    """What a store holds after writing ``chunks`` in order: the last chunk of each id."""
    return {chunk.id: chunk for chunk in chunks}


def _in_source_order(chunks: Iterable[StoredChunk]) -> list[StoredChunk]:
    return sorted(chunks, key=lambda chunk: (chunk.chunk_index, chunk.id))


def _by_id(chunks: Iterable[StoredChunk]) -> list[StoredChunk]:
    return sorted(chunks, key=lambda chunk: chunk.id)


def lexical_oracle(
    chunks: Iterable[StoredChunk],
    terms: Sequence[str],
    posting_budget: int | None = DEFAULT_POSTING_BUDGET,
) -> LexicalCandidates:
    """The statistics the port's prose defines, computed from a tenant's whole corpus.

    Tokens are ``domain.chunk_ranking.tokenize``; a term matches a token exactly as given.
    Candidate terms are the held terms, rarest first (ties by term), while their document
    frequencies add up to at most ``posting_budget``; a candidate holds one of them and
    carries its count of every given term.
    """
    corpus = {chunk.id: Counter(tokenize(chunk.text)) for chunk in chunks}
    wanted = list(dict.fromkeys(terms))
    frequencies = {term: sum(1 for counts in corpus.values() if counts[term]) for term in wanted}
    chosen: list[str] = []
    for term in sorted((t for t in wanted if frequencies[t]), key=lambda t: (frequencies[t], t)):
        read = sum(frequencies[held] for held in chosen) + frequencies[term]
        if posting_budget is not None and read > posting_budget:
            break
        chosen.append(term)
    candidates = []
    for held_id in sorted(corpus):
        counts = corpus[held_id]
        if any(counts[term] for term in chosen):
            candidates.append(
                LexicalCandidate(
                    chunk_id=held_id,
                    length=sum(counts.values()),
                    term_frequencies={term: counts[term] for term in wanted if counts[term]},
                )
            )
    return LexicalCandidates(
        corpus_size=len(corpus),
        total_length=sum(sum(counts.values()) for counts in corpus.values()),
        document_frequencies=frequencies,
        candidate_terms=chosen,
        candidates=candidates,
    )


def _without_zero_counts(stats: LexicalCandidates) -> LexicalCandidates:
    """``stats`` with zero per-term counts dropped: absent and 0 mean the same to BM25."""
    return stats.model_copy(
        update={
            "candidates": [
                candidate.model_copy(
                    update={
                        "term_frequencies": {
                            term: count
                            for term, count in candidate.term_frequencies.items()
                            if count != 0
                        }
                    }
                )
                for candidate in stats.candidates
            ]
        }
    )


class ChunkStoreCompliance(LifecycleCases[ChunkStore]):
    """**Every ChunkStore adapter must pass this suite unchanged.**

    It is the executable definition of the port; the prose in ``redstring.ports.chunk_store``
    describes what these tests enforce, and where the two seem to disagree this suite wins.

    Chunks are built with :meth:`_chunk`, whose id is the real ``chunk_id(source_id, text)``:
    the same passage under two tenants therefore has the same id, which is what lets
    ``test_two_tenants_hold_the_same_chunk_id_independently`` observe a key compared on the
    id alone. Lexical statistics are checked against :func:`lexical_oracle`, written from the
    port's prose, never against another adapter.
    """

    @staticmethod
    def _chunk(
        source_id: SourceId,
        text: str,
        chunk_index: int = 0,
        entity_ids: Sequence[EntityId] = (),
        metadata: dict[str, JsonValue] | None = None,
    ) -> StoredChunk:
        """A chunk of ``source_id`` whose id is its content address."""
        return StoredChunk(
            id=chunk_id(source_id, text),
            source_id=source_id,
            chunk_index=chunk_index,
            text=text,
            char_start=0,
            char_end=len(text),
            entity_ids=tuple(entity_ids),
            metadata={} if metadata is None else metadata,
        )

    async def _both_tenants(self, store: ChunkStore) -> tuple[StoredChunk, StoredChunk]:
        """The same passage, hence the same id, written differently under two tenants."""
        mine = self._chunk(
            SOURCE, "Ada Lovelace wrote the first program.", 0, [_ENTITIES[0]], {"owner": "a"}
        )
        theirs = self._chunk(
            SOURCE, "Ada Lovelace wrote the first program.", 5, [_ENTITIES[1]], {"owner": "b"}
        )
        assert mine.id == theirs.id
        await store.upsert_many(TENANT, [mine])
        await store.upsert_many(OTHER_TENANT, [theirs])
        return mine, theirs

    # -- the port and a fresh store ------------------------------------------------------

    async def test_the_store_satisfies_the_port(self, store: ChunkStore) -> None:
        """The adapter structurally satisfies ChunkStore and each of its four capabilities."""
        assert isinstance(store, ChunkStore)
        assert isinstance(store, ChunkWriter)
        assert isinstance(store, ChunkReader)
        assert isinstance(store, LexicalCandidateSource)
        assert isinstance(store, ChunkPurge)

    async def test_a_new_store_holds_nothing(self, store: ChunkStore) -> None:
        """``new_store()`` returns an empty store: a leftover row makes other tests lie."""
        for tenant in (TENANT, OTHER_TENANT):
            assert await store.list_sources(tenant) == {}
            stats = await store.lexical_candidates(tenant, ["ada"])
            assert (stats.corpus_size, stats.total_length) == (0, 0)

    # -- writes ---------------------------------------------------------------------------

    async def test_text_arguments_no_store_can_hold_are_refused(self, store: ChunkStore) -> None:
        """A NUL or lone surrogate in a tenant, source or chunk id raises
        ``InvalidArgumentError`` rather than a driver error or an empty answer (ADR 0023)."""
        for bad in ("nu\x00l", "sur\ud800"):
            with pytest.raises(InvalidArgumentError):
                await store.list_sources(TenantId(bad))
            with pytest.raises(InvalidArgumentError):
                await store.get_by_source(TENANT, SourceId(bad))
            with pytest.raises(InvalidArgumentError):
                await store.get(TENANT, ChunkId(bad))
            with pytest.raises(InvalidArgumentError):
                await store.delete_by_tenant(TenantId(bad))

    @compliance_settings()
    @given(tenant=tenant_ids(), chunks=_corpora(any_metadata=True))
    async def test_upsert_many_then_get_round_trips_every_chunk(
        self, tenant: TenantId, chunks: list[StoredChunk]
    ) -> None:
        """Each written chunk reads back equal, field for field; of two chunks with one id
        the later is kept. On failure check metadata and entity_ids (de)serialisation.
        """
        expected = _latest(chunks)
        async with self.fresh_store() as store:
            await store.upsert_many(tenant, chunks)
            for held_id, chunk in expected.items():
                assert await store.get(tenant, held_id) == chunk
            assert await store.get_many(tenant, list(expected)) == expected

    async def test_upsert_many_is_idempotent_and_the_last_duplicate_wins(
        self, store: ChunkStore
    ) -> None:
        """Writing a chunk again replaces it (one row, the later value), in one batch or two."""
        first = self._chunk(SOURCE, "The engine ran.", 0, [_ENTITIES[0]], {"v": 1})
        second = self._chunk(SOURCE, "The engine ran.", 3, [_ENTITIES[1]], {"v": 2})
        await store.upsert_many(TENANT, [first, second])
        assert await store.get(TENANT, first.id) == second
        await store.upsert_many(TENANT, [first])
        await store.upsert_many(TENANT, [second])
        await store.upsert_many(TENANT, [second])
        await store.upsert_many(TENANT, [])
        assert await store.get(TENANT, first.id) == second
        assert await store.list_sources(TENANT) == {SOURCE: 1}
        assert await store.get_by_entity(TENANT, _ENTITIES[0]) == []
        assert await store.get_by_entity(TENANT, _ENTITIES[1]) == [second]

    async def test_an_entity_listed_twice_is_held_once_and_every_later_write_works(
        self, store: ChunkStore
    ) -> None:
        """A chunk naming an entity twice is held naming it once, at its first position
        (ADR 0028): as the model builds it, and as validation would hold it when the repeat
        skipped validation (``model_copy(update=...)``). ``get_by_entity`` lists it once, and
        re-upserting, replacing and deleting it afterwards work. On failure check that the
        entity index is written and removed once per distinct id, not once per listing (an
        in-memory store once raised ``KeyError`` here and lost its indexes), and that the
        stored list is de-duplicated on the way in or out.
        """
        first, second, third = _ENTITIES[:3]
        text = "Ada met Grace; Ada left."
        built = self._chunk(SOURCE, text, 0, [second, first, second])
        once = self._chunk(SOURCE, text, 0, [second, first])
        plain = self._chunk(OTHER_SOURCE, "Grace met Ada.", 0, [first, second])
        smuggled = plain.model_copy(update={"entity_ids": (first, second, first, first)})
        for chunk in (built, built, smuggled, smuggled):
            await store.upsert_many(TENANT, [chunk])
        await store.upsert_many(TENANT, [smuggled, built])
        assert await store.get(TENANT, built.id) == once
        assert await store.get(TENANT, plain.id) == plain
        assert await store.get_many(TENANT, [built.id, plain.id]) == {
            built.id: once,
            plain.id: plain,
        }
        for entity_id in (first, second):
            assert await store.get_by_entity(TENANT, entity_id) == _by_id([once, plain])
        await store.upsert_many(TENANT, [smuggled.model_copy(update={"chunk_index": 2})])
        plain = plain.model_copy(update={"chunk_index": 2})
        assert await store.get_by_source(TENANT, OTHER_SOURCE) == [plain]
        moved = self._chunk(SOURCE, text, 1, [third])
        await store.replace_source(
            TENANT, SOURCE, [built.model_copy(update={"entity_ids": (third, third)}), moved]
        )
        assert await store.get(TENANT, built.id) == moved
        assert await store.get_by_entity(TENANT, first) == [plain]
        assert await store.get_by_entity(TENANT, third) == [moved]
        assert await store.delete_by_source(TENANT, OTHER_SOURCE) == 1
        assert await store.get_by_entity(TENANT, first) == []
        await store.upsert_many(TENANT, [smuggled])
        assert await store.delete_by_tenant(TENANT) == 2
        for entity_id in (first, second, third):
            assert await store.get_by_entity(TENANT, entity_id) == []
        assert await store.list_sources(TENANT) == {}
        assert (await store.lexical_candidates(TENANT, ["ada"])).corpus_size == 0
        await store.upsert_many(TENANT, [smuggled])
        assert await store.get_by_entity(TENANT, second) == [
            plain.model_copy(update={"chunk_index": 0})
        ]

    async def test_a_later_upsert_many_call_replaces_an_earlier_one(
        self, store: ChunkStore
    ) -> None:
        """Last write wins across calls, not only inside one batch.

        ``ON CONFLICT DO NOTHING`` (insert-if-absent) keeps whichever chunk came first; a
        batch holding both duplicates cannot tell, because an adapter may collapse a batch
        to its last duplicate before inserting. ``second`` then ``first``, in two calls:
        ``first`` is what is held, under every read.
        """
        first = self._chunk(SOURCE, "The engine ran.", 0, [_ENTITIES[0]], {"v": 1})
        second = self._chunk(SOURCE, "The engine ran.", 3, [_ENTITIES[1]], {"v": 2})
        await store.upsert_many(TENANT, [second])
        await store.upsert_many(TENANT, [first])
        assert await store.get(TENANT, first.id) == first
        assert await store.get_by_source(TENANT, SOURCE) == [first]
        assert await store.get_by_entity(TENANT, _ENTITIES[0]) == [first]
        assert await store.get_by_entity(TENANT, _ENTITIES[1]) == []

    async def test_two_tenants_hold_the_same_chunk_id_independently(
        self, store: ChunkStore
    ) -> None:
        """The same passage under two tenants has one id and is two rows: writes, reads and
        deletes of one never touch the other. A key compared on the id alone fails here.
        """
        mine, theirs = await self._both_tenants(store)
        assert await store.get(TENANT, mine.id) == mine
        assert await store.get(OTHER_TENANT, mine.id) == theirs
        assert await store.get_by_source(TENANT, SOURCE) == [mine]
        assert await store.get_by_entity(TENANT, _ENTITIES[1]) == []
        updated = mine.model_copy(update={"metadata": {"owner": "a", "edited": True}})
        await store.upsert_many(TENANT, [updated])
        assert await store.get(OTHER_TENANT, mine.id) == theirs
        await store.replace_source(TENANT, SOURCE, [])
        assert await store.get(TENANT, mine.id) is None
        assert await store.get(OTHER_TENANT, mine.id) == theirs
        await store.upsert_many(TENANT, [mine])
        assert await store.delete_by_source(TENANT, SOURCE) == 1
        assert await store.get(OTHER_TENANT, mine.id) == theirs
        await store.upsert_many(TENANT, [mine])
        assert await store.delete_by_tenant(TENANT) == 1
        assert await store.get(OTHER_TENANT, mine.id) == theirs
        assert await store.existing_ids(OTHER_TENANT, [mine.id]) == {mine.id}
        assert await store.existing_ids(TENANT, [mine.id]) == set()

    async def test_replace_source_makes_the_given_chunks_the_whole_content(
        self, store: ChunkStore
    ) -> None:
        """Afterwards the source holds exactly the given chunks; other sources are untouched."""
        old = [self._chunk(SOURCE, f"Old passage {n}.", n) for n in range(3)]
        kept = self._chunk(SOURCE, "Old passage 1.", 0, [_ENTITIES[0]])
        added = self._chunk(SOURCE, "A new passage.", 1)
        elsewhere = self._chunk(OTHER_SOURCE, "Old passage 0.", 0)
        await store.upsert_many(TENANT, [*old, elsewhere])
        await store.replace_source(TENANT, SOURCE, [added, kept])
        assert await store.get_by_source(TENANT, SOURCE) == _in_source_order([kept, added])
        assert await store.existing_ids(TENANT, [chunk.id for chunk in old]) == {kept.id}
        assert await store.get_by_source(TENANT, OTHER_SOURCE) == [elsewhere]
        assert await store.list_sources(TENANT) == {SOURCE: 2, OTHER_SOURCE: 1}

    async def test_replace_source_with_no_chunks_empties_the_source(
        self, store: ChunkStore
    ) -> None:
        """``replace_source(..., [])`` means "this source now has no chunks"."""
        await store.upsert_many(
            TENANT, [self._chunk(SOURCE, "One."), self._chunk(OTHER_SOURCE, "Two.")]
        )
        await store.replace_source(TENANT, SOURCE, [])
        assert await store.get_by_source(TENANT, SOURCE) == []
        assert await store.list_sources(TENANT) == {OTHER_SOURCE: 1}

    async def test_replace_source_rejects_a_chunk_of_another_source_and_writes_nothing(
        self, store: ChunkStore
    ) -> None:
        """A chunk of another source raises ValueError before anything changes: the old
        content stays, and no chunk of the rejected batch is written.
        """
        old = [self._chunk(SOURCE, "Old one.", 0), self._chunk(SOURCE, "Old two.", 1)]
        elsewhere = self._chunk(OTHER_SOURCE, "Elsewhere.", 0)
        await store.upsert_many(TENANT, [*old, elsewhere])
        fresh = self._chunk(SOURCE, "Fresh.", 0)
        stray = self._chunk(OTHER_SOURCE, "Stray.", 1)
        with pytest.raises(ValueError, match=OTHER_SOURCE):
            await store.replace_source(TENANT, SOURCE, [fresh, stray])
        assert await store.get_by_source(TENANT, SOURCE) == old
        assert await store.get_by_source(TENANT, OTHER_SOURCE) == [elsewhere]
        assert await store.existing_ids(TENANT, [fresh.id, stray.id]) == set()

    @compliance_settings()
    @given(
        tenants=tenant_pairs(),
        before=_corpora(),
        after=_corpora((SOURCE,)),
    )
    async def test_replace_source_leaves_exactly_the_given_chunks(
        self,
        tenants: tuple[TenantId, TenantId],
        before: list[StoredChunk],
        after: list[StoredChunk],
    ) -> None:
        """For any prior content, the source ends as exactly the new chunks (last duplicate
        wins), in ``(chunk_index, id)`` order; other sources and tenants keep theirs.
        """
        tenant, other = tenants
        async with self.fresh_store() as store:
            await store.upsert_many(tenant, before)
            await store.upsert_many(other, before)
            await store.replace_source(tenant, SOURCE, after)
            assert await store.get_by_source(tenant, SOURCE) == _in_source_order(
                _latest(after).values()
            )
            untouched = _latest(chunk for chunk in before if chunk.source_id == OTHER_SOURCE)
            assert await store.get_by_source(tenant, OTHER_SOURCE) == _in_source_order(
                untouched.values()
            )
            assert await store.get_by_source(other, SOURCE) == _in_source_order(
                _latest(chunk for chunk in before if chunk.source_id == SOURCE).values()
            )

    async def test_replace_source_keeps_its_own_copy_of_the_chunks(self, store: ChunkStore) -> None:
        """Mutating chunks after ``replace_source`` took them never changes the store."""
        chunk = self._chunk(SOURCE, "Kept as written.", 0, [], {"tags": ["a"]})
        await store.replace_source(TENANT, SOURCE, [chunk])
        chunk.chunk_index = 7
        chunk.metadata["tags"] = ["changed"]
        assert await store.get(TENANT, chunk.id) == self._chunk(
            SOURCE, "Kept as written.", 0, [], {"tags": ["a"]}
        )

    async def test_upsert_many_keeps_its_own_copy_of_the_chunks(self, store: ChunkStore) -> None:
        """Mutating chunks after ``upsert_many`` took them never changes the store."""
        chunk = self._chunk(SOURCE, "Kept as written.", 0, [_ENTITIES[0]], {"tags": ["a"]})
        await store.upsert_many(TENANT, [chunk])
        chunk.entity_ids = (_ENTITIES[1],)
        tags = chunk.metadata["tags"]
        assert isinstance(tags, list)
        tags.append("b")
        assert await store.get(TENANT, chunk.id) == self._chunk(
            SOURCE, "Kept as written.", 0, [_ENTITIES[0]], {"tags": ["a"]}
        )

    async def test_concurrent_replacements_of_one_source_never_mix(self, store: ChunkStore) -> None:
        """Eight ``replace_source`` calls at once leave exactly one caller's chunks.

        Atomic means atomic under concurrency too: a delete then an insert with an
        ``await`` between them lets two callers' deletes run first and both inserts land.
        """
        versions = [
            [self._chunk(SOURCE, f"version {n} part {part}.", part) for part in range(3)]
            for n in range(8)
        ]
        await asyncio.gather(*(store.replace_source(TENANT, SOURCE, chunks) for chunks in versions))
        held = await store.get_by_source(TENANT, SOURCE)
        assert held in versions, f"the source holds a mix of {len(held)} chunks"
        stats = await store.lexical_candidates(TENANT, ["version"])
        assert (stats.corpus_size, stats.document_frequencies) == (3, {"version": 3})

    async def test_a_long_multibyte_source_id_is_kept_whole(self, store: ChunkStore) -> None:
        """A source id of 1,024 four-byte characters is stored, listed, replaced and deleted
        whole, and one sharing its first 1,023 characters stays another source."""
        long = SourceId("𝄞" * 1024)
        twin = SourceId("𝄞" * 1023 + "x")
        chunks = [self._chunk(long, "one.", 0), self._chunk(long, "two.", 1)]
        await store.upsert_many(TENANT, [*chunks, self._chunk(twin, "twin.")])
        assert await store.get_by_source(TENANT, long) == chunks
        await store.replace_source(TENANT, long, chunks[1:])
        assert await store.list_sources(TENANT) == {long: 1, twin: 1}
        assert await store.delete_by_source(TENANT, long) == 1
        assert await store.list_sources(TENANT) == {twin: 1}

    # -- reads ----------------------------------------------------------------------------

    async def test_get_by_source_orders_by_chunk_index_then_id(self, store: ChunkStore) -> None:
        """``chunk_index`` is not unique, so the order is ``(chunk_index, id)``: equal indices
        come back by ascending id, whatever order they were written in.
        """
        chunks = [
            self._chunk(SOURCE, f"Passage number {n}.", index)
            for n, index in enumerate([2, 0, 1, 0, 2, 0])
        ]
        expected = _in_source_order(chunks)
        # Descending id order, so insertion order and the tie-break disagree.
        for chunk in sorted(chunks, key=lambda chunk: chunk.id, reverse=True):
            await store.upsert_many(TENANT, [chunk])
        assert await store.get_by_source(TENANT, SOURCE) == expected
        assert await store.get_by_source(TENANT, SourceId("absent.md")) == []

    @compliance_settings()
    @given(tenant=tenant_ids(), chunks=_corpora())
    async def test_get_by_source_returns_the_sources_chunks_in_order(
        self, tenant: TenantId, chunks: list[StoredChunk]
    ) -> None:
        """Each source's chunks, all of them and only them, ordered by ``(chunk_index, id)``."""
        held = _latest(chunks).values()
        async with self.fresh_store() as store:
            await store.upsert_many(tenant, chunks)
            for source in _SOURCES:
                assert await store.get_by_source(tenant, source) == _in_source_order(
                    chunk for chunk in held if chunk.source_id == source
                )

    @compliance_settings()
    @given(tenant=tenant_ids(), chunks=_corpora())
    async def test_get_by_entity_returns_the_chunks_naming_it_by_id(
        self, tenant: TenantId, chunks: list[StoredChunk]
    ) -> None:
        """Chunks whose ``entity_ids`` include the entity, ascending by chunk id."""
        held = _latest(chunks).values()
        async with self.fresh_store() as store:
            await store.upsert_many(tenant, chunks)
            for entity_id in _ENTITIES:
                assert await store.get_by_entity(tenant, entity_id) == _by_id(
                    chunk for chunk in held if entity_id in chunk.entity_ids
                )
            assert await store.get_by_entity(tenant, random_entity_id()) == []

    @compliance_settings()
    @given(
        tenant=tenant_ids(),
        chunks=_corpora(),
        limit=st.one_of(st.none(), st.integers(min_value=0, max_value=6)),
        shuffle=st.randoms(use_true_random=False),
    )
    async def test_get_by_entity_puts_preferred_chunks_first_and_stops_at_the_limit(
        self, tenant: TenantId, chunks: list[StoredChunk], limit: int | None, shuffle: random.Random
    ) -> None:
        """Chunks naming the entity among ``prefer`` come first in ``prefer``'s order (a
        repeated id once, ids not naming it ignored), then the rest by id, at most ``limit``
        (ADR 0039)."""
        held = list(_latest(chunks).values())
        ids = [chunk.id for chunk in held]
        prefer = shuffle.sample(ids, len(ids) // 2) if ids else []
        prefer += prefer[:1]
        async with self.fresh_store() as store:
            await store.upsert_many(tenant, chunks)
            for entity_id in _ENTITIES:
                naming = {chunk.id: chunk for chunk in held if entity_id in chunk.entity_ids}
                first = [naming[c] for c in dict.fromkeys(prefer) if c in naming]
                rest = _by_id(chunk for chunk in naming.values() if chunk not in first)
                expected = (first + rest)[:limit]
                got = await store.get_by_entity(tenant, entity_id, limit=limit, prefer=prefer)
                assert got == expected

    async def test_get_by_entity_refuses_a_limit_out_of_range(self, store: ChunkStore) -> None:
        """A negative or too large ``limit`` raises ``InvalidArgumentError`` naming it."""
        for bad in (-1, MAX_CHUNK_LIMIT + 1):
            with pytest.raises(InvalidArgumentError, match="limit"):
                await store.get_by_entity(TENANT, _ENTITIES[0], limit=bad)

    async def test_get_many_returns_the_held_chunks_keyed_by_id(self, store: ChunkStore) -> None:
        """Held ids map to their chunks; absent ids are left out; no ids give ``{}``."""
        one = self._chunk(SOURCE, "One.", 0)
        two = self._chunk(OTHER_SOURCE, "Two.", 0)
        await store.upsert_many(TENANT, [one, two])
        absent = chunk_id(SOURCE, "Never written.")
        assert await store.get_many(TENANT, [one.id, absent, two.id]) == {
            one.id: one,
            two.id: two,
        }
        assert await store.get_many(TENANT, {absent}) == {}
        assert await store.get_many(TENANT, []) == {}

    async def test_an_id_or_term_given_twice_means_it_once(self, store: ChunkStore) -> None:
        """A list argument is a collection (ADR 0028): a chunk id or a term given twice reads
        exactly as given once, with no chunk listed, counted or charged to the posting budget
        twice. On failure check reads that join or loop over the given list without making
        it distinct first.
        """
        corpus = [
            self._chunk(SOURCE, "The owl and the moon.", 0),
            self._chunk(SOURCE, "The moon, the moon, the tide.", 1),
            self._chunk(OTHER_SOURCE, "Only an owl here.", 0),
        ]
        await store.upsert_many(TENANT, corpus)
        ids = [chunk.id for chunk in corpus]
        twice = [ids[0], ids[1], ids[0], ids[0]]
        assert await store.get_many(TENANT, twice) == await store.get_many(TENANT, ids[:2])
        assert await store.existing_ids(TENANT, twice) == set(ids[:2])
        for budget in (None, 2, 3, 4):
            once = await store.lexical_candidates(TENANT, ["owl", "moon"], posting_budget=budget)
            again = await store.lexical_candidates(
                TENANT, ["moon", "owl", "moon", "owl", "owl"], posting_budget=budget
            )
            assert _without_zero_counts(again) == _without_zero_counts(once), budget
            assert _without_zero_counts(once) == lexical_oracle(corpus, ["owl", "moon"], budget)

    async def test_existing_ids_reports_which_ids_are_held(self, store: ChunkStore) -> None:
        """Exactly the held ids among those asked about: how a re-run skips known text."""
        one = self._chunk(SOURCE, "One.", 0)
        await store.upsert_many(TENANT, [one])
        absent = chunk_id(SOURCE, "Never written.")
        assert await store.existing_ids(TENANT, [one.id, absent]) == {one.id}
        assert await store.existing_ids(TENANT, (absent,)) == set()
        assert await store.existing_ids(TENANT, []) == set()

    async def test_list_sources_counts_chunks_per_source(self, store: ChunkStore) -> None:
        """Every source the tenant holds chunks of, with how many it holds."""
        await store.upsert_many(
            TENANT,
            [
                self._chunk(SOURCE, "One.", 0),
                self._chunk(SOURCE, "Two.", 1),
                self._chunk(SOURCE, "Two.", 1),
                self._chunk(OTHER_SOURCE, "Three.", 0),
            ],
        )
        assert await store.list_sources(TENANT) == {SOURCE: 2, OTHER_SOURCE: 1}
        assert await store.delete_by_source(TENANT, OTHER_SOURCE) == 1
        assert await store.list_sources(TENANT) == {SOURCE: 2}

    # -- lexical statistics ---------------------------------------------------------------

    @compliance_settings()
    @given(
        tenants=tenant_pairs(),
        chunks=_corpora(),
        noise=_corpora(),
        terms=st.lists(st.one_of(words(), st.just("absent")), unique=True, max_size=4),
        budget=st.one_of(st.none(), st.integers(min_value=0, max_value=9)),
    )
    async def test_lexical_candidates_match_the_statistics_of_the_whole_corpus(
        self,
        tenants: tuple[TenantId, TenantId],
        chunks: list[StoredChunk],
        noise: list[StoredChunk],
        terms: list[str],
        budget: int | None,
    ) -> None:
        """Corpus size and total length over the tenant's whole corpus, a document frequency
        for every term (0 when no chunk has it), the candidate terms the budget allows
        (rarest first), and every chunk holding one of them, sorted by id, with its length and
        its count of every term. Statistics, never a ranking; a zero count may be present or
        left out.
        """
        tenant, other = tenants
        async with self.fresh_store() as store:
            await store.upsert_many(tenant, chunks)
            await store.upsert_many(other, noise)
            found = await store.lexical_candidates(tenant, terms, posting_budget=budget)
        assert _without_zero_counts(found) == lexical_oracle(
            _latest(chunks).values(), terms, budget
        )

    @compliance_settings()
    @given(
        before=_corpora(),
        after=_corpora((SOURCE,)),
        terms=st.lists(words(), unique=True, min_size=1, max_size=3),
        budget=st.one_of(st.none(), st.integers(min_value=0, max_value=6)),
    )
    async def test_lexical_statistics_follow_replacements_and_deletes(
        self,
        before: list[StoredChunk],
        after: list[StoredChunk],
        terms: list[str],
        budget: int | None,
    ) -> None:
        """After ``replace_source``, ``delete_by_source`` and ``delete_by_tenant`` the
        statistics describe what the tenant still holds: a store that keeps totals or
        frequencies must take removed chunks out of them.
        """
        async with self.fresh_store() as store:
            await store.upsert_many(TENANT, before)
            await store.replace_source(TENANT, SOURCE, after)
            held = {**_latest(c for c in before if c.source_id != SOURCE), **_latest(after)}
            found = await store.lexical_candidates(TENANT, terms, posting_budget=budget)
            assert _without_zero_counts(found) == lexical_oracle(held.values(), terms, budget)
            await store.delete_by_source(TENANT, OTHER_SOURCE)
            held = _latest(after)
            found = await store.lexical_candidates(TENANT, terms, posting_budget=budget)
            assert _without_zero_counts(found) == lexical_oracle(held.values(), terms, budget)
            await store.delete_by_tenant(TENANT)
            await store.upsert_many(TENANT, before)
            found = await store.lexical_candidates(TENANT, terms, posting_budget=budget)
            assert _without_zero_counts(found) == lexical_oracle(
                _latest(before).values(), terms, budget
            )

    async def test_lexical_candidates_count_the_whole_corpus_not_only_the_candidates(
        self, store: ChunkStore
    ) -> None:
        """``corpus_size`` and ``total_length`` cover chunks that hold no query term too, and
        a term no chunk holds still has a document frequency, of 0.
        """
        corpus = [
            self._chunk(SOURCE, "The river runs to the sea.", 0),
            self._chunk(SOURCE, "A stone in the river, a stone on the bank.", 1),
            self._chunk(OTHER_SOURCE, "Nothing relevant here at all.", 0),
        ]
        await store.upsert_many(TENANT, corpus)
        found = await store.lexical_candidates(TENANT, ["stone", "river", "absent"])
        assert found.corpus_size == 3
        assert found.total_length == 6 + 10 + 5
        assert found.document_frequencies == {"stone": 1, "river": 2, "absent": 0}
        assert _without_zero_counts(found) == lexical_oracle(corpus, ["stone", "river", "absent"])

    async def test_lexical_candidates_come_in_id_order_not_ranked(self, store: ChunkStore) -> None:
        """Candidates are listed by chunk id, whatever their counts: ranking is the domain's
        (``bm25``), never the store's. The corpus is chosen so that the chunk with the most
        occurrences has the largest id, so no count-based order can pass for id order.
        """
        for variant in range(64):
            corpus = [
                self._chunk(SOURCE, " ".join(["stone"] * (n + 1)) + f" mark{variant}.", n)
                for n in range(3)
            ]
            if [c.id for c in corpus] == sorted((c.id for c in corpus), key=str):
                break
        else:  # pragma: no cover - 64 tries at odds of 1 in 6 each
            raise AssertionError("no variant gave ascending ids")
        await store.upsert_many(TENANT, corpus)
        found = await store.lexical_candidates(TENANT, ["stone"])
        assert [c.chunk_id for c in found.candidates] == [c.id for c in corpus]
        assert [c.term_frequencies["stone"] for c in found.candidates] == [1, 2, 3]

    async def test_lexical_candidates_match_non_ascii_terms(self, store: ChunkStore) -> None:
        """Tokens are Unicode words, casefolded: "Zürich" is the token "zürich"."""
        corpus = [
            self._chunk(SOURCE, "Un café à Zürich, un café à 東京.", 0),
            self._chunk(SOURCE, "A naïve approach.", 1),
        ]
        await store.upsert_many(TENANT, corpus)
        terms = ["café", "zürich", "東京", "naïve"]
        found = await store.lexical_candidates(TENANT, terms)
        assert found.document_frequencies == {"café": 1, "zürich": 1, "東京": 1, "naïve": 1}
        assert _without_zero_counts(found) == lexical_oracle(corpus, terms)

    async def test_lexical_candidates_match_terms_exactly_as_given(self, store: ChunkStore) -> None:
        """Terms are whole tokens as given (callers pass ``query_terms`` output): "GRAPH" and
        "graph." are not the token "graph", and a prefix is not a match.
        """
        corpus = [self._chunk(SOURCE, "Graph databases store a graph.", 0)]
        await store.upsert_many(TENANT, corpus)
        found = await store.lexical_candidates(TENANT, ["GRAPH", "graph.", "gra"])
        assert found.document_frequencies == {"GRAPH": 0, "graph.": 0, "gra": 0}
        assert found.candidates == []
        found = await store.lexical_candidates(TENANT, ["graph"])
        assert [c.term_frequencies for c in found.candidates] == [{"graph": 2}]

    async def test_a_term_spelled_like_null_is_a_word(self, store: ChunkStore) -> None:
        """``null`` is a token like any other, not SQL's NULL, and ``NULL`` folds to it."""
        chunk = self._chunk(SOURCE, "NULL and null, then nul.")
        await store.upsert_many(TENANT, [chunk])
        stats = await store.lexical_candidates(TENANT, ["null", "nul", "and"])
        assert stats.document_frequencies == {"null": 1, "nul": 1, "and": 1}
        [candidate] = stats.candidates
        assert candidate.term_frequencies == {"null": 2, "nul": 1, "and": 1}
        assert candidate.length == 5

    async def test_no_terms_yield_no_candidates(self, store: ChunkStore) -> None:
        """An empty term list matches nothing; the corpus totals still describe the corpus."""
        corpus = [self._chunk(SOURCE, "Some words here.", 0)]
        await store.upsert_many(TENANT, corpus)
        found = await store.lexical_candidates(TENANT, [])
        assert found == LexicalCandidates(
            corpus_size=1,
            total_length=3,
            document_frequencies={},
            candidate_terms=[],
            candidates=[],
        )

    async def test_a_common_term_is_counted_but_makes_no_candidate(self, store: ChunkStore) -> None:
        """Past the posting budget a term still has its exact document frequency and its
        count in every candidate holding it, but a chunk holding only that term is no
        candidate. On failure check that counts are read for every term, not only the
        candidate terms, and that the frequency is not cut to the budget.
        """
        corpus = [
            self._chunk(SOURCE, "The owl and the moon.", 0),
            self._chunk(SOURCE, "The moon, the moon, the tide.", 1),
            self._chunk(SOURCE, "The sea is the sea.", 2),
            self._chunk(OTHER_SOURCE, "Only an owl here.", 0),
        ]
        await store.upsert_many(TENANT, corpus)
        terms = ["the", "owl", "moon"]
        found = await store.lexical_candidates(TENANT, terms, posting_budget=4)
        assert found.document_frequencies == {"the": 3, "owl": 2, "moon": 2}
        assert found.candidate_terms == ["moon", "owl"]
        assert {c.chunk_id: c.term_frequencies for c in found.candidates} == {
            corpus[0].id: {"the": 2, "owl": 1, "moon": 1},
            corpus[1].id: {"the": 3, "moon": 2},
            corpus[3].id: {"owl": 1},
        }
        assert _without_zero_counts(found) == lexical_oracle(corpus, terms, 4)

    async def test_the_budget_takes_terms_rarest_first_then_by_term(
        self, store: ChunkStore
    ) -> None:
        """Terms are taken by ascending document frequency, ties by term, and the first term
        whose postings would pass the budget ends the choice.
        """
        corpus = [
            self._chunk(SOURCE, "alpha beta gamma", 0),
            self._chunk(SOURCE, "beta gamma", 1),
            self._chunk(SOURCE, "delta gamma", 2),
        ]
        await store.upsert_many(TENANT, corpus)
        terms = ["gamma", "delta", "beta", "alpha"]
        for budget, chosen in (
            (0, []),
            (1, ["alpha"]),
            (2, ["alpha", "delta"]),
            (3, ["alpha", "delta"]),
            (4, ["alpha", "delta", "beta"]),
            (7, ["alpha", "delta", "beta", "gamma"]),
        ):
            found = await store.lexical_candidates(TENANT, terms, posting_budget=budget)
            assert found.candidate_terms == chosen, budget
            assert _without_zero_counts(found) == lexical_oracle(corpus, terms, budget)

    async def test_no_budget_makes_every_holder_a_candidate(self, store: ChunkStore) -> None:
        """``posting_budget=None`` reads every term: every chunk holding any term is a
        candidate, and the default budget admits a small corpus whole.
        """
        corpus = [self._chunk(SOURCE, f"common word {n}", n) for n in range(12)]
        await store.upsert_many(TENANT, corpus)
        unbounded = await store.lexical_candidates(TENANT, ["common"], posting_budget=None)
        assert len(unbounded.candidates) == 12
        assert await store.lexical_candidates(TENANT, ["common"]) == unbounded
        bounded = await store.lexical_candidates(TENANT, ["common"], posting_budget=11)
        assert (bounded.candidate_terms, bounded.candidates) == ([], [])
        assert bounded.document_frequencies == {"common": 12}

    async def test_a_negative_budget_is_rejected(self, store: ChunkStore) -> None:
        """A negative ``posting_budget`` raises ValueError naming it."""
        with pytest.raises(ValueError, match="posting_budget"):
            await store.lexical_candidates(TENANT, ["word"], posting_budget=-1)

    # -- deletes --------------------------------------------------------------------------

    async def test_delete_by_source_counts_and_spares_the_rest(self, store: ChunkStore) -> None:
        """Removes the source's chunks and returns how many; other sources, and the same
        source under another tenant, stay. Repeating it returns 0.
        """
        mine = [self._chunk(SOURCE, "One.", 0), self._chunk(SOURCE, "Two.", 1)]
        elsewhere = self._chunk(OTHER_SOURCE, "Three.", 0)
        await store.upsert_many(TENANT, [*mine, elsewhere])
        await store.upsert_many(OTHER_TENANT, mine)
        assert await store.delete_by_source(TENANT, SOURCE) == 2
        assert await store.get_by_source(TENANT, SOURCE) == []
        assert await store.existing_ids(TENANT, [chunk.id for chunk in mine]) == set()
        assert await store.get_by_source(TENANT, OTHER_SOURCE) == [elsewhere]
        assert await store.get_by_source(OTHER_TENANT, SOURCE) == mine
        assert await store.delete_by_source(TENANT, SOURCE) == 0

    @compliance_settings()
    @given(tenants=tenant_pairs(), mine=_corpora(), theirs=_corpora())
    async def test_delete_by_tenant_counts_and_spares_other_tenants(
        self,
        tenants: tuple[TenantId, TenantId],
        mine: list[StoredChunk],
        theirs: list[StoredChunk],
    ) -> None:
        """Returns how many chunks the tenant held, leaves every other tenant's in place, and
        returns 0 when repeated.
        """
        tenant, other = tenants
        async with self.fresh_store() as store:
            await store.upsert_many(tenant, mine)
            await store.upsert_many(other, theirs)
            assert await store.delete_by_tenant(tenant) == len(_latest(mine))
            assert await store.list_sources(tenant) == {}
            assert await store.get_many(other, list(_latest(theirs))) == _latest(theirs)
            assert await store.delete_by_tenant(tenant) == 0

    # -- copies: a read hands out objects the caller may mutate -------------------------

    async def test_get_returns_copies(self, store: ChunkStore) -> None:
        """Mutating what ``get`` returned never changes the stored chunk."""
        chunk = self._chunk(SOURCE, "Copy me.", 0, [_ENTITIES[0]], {"tags": ["a"]})
        await store.upsert_many(TENANT, [chunk])
        got = await store.get(TENANT, chunk.id)
        assert got is not None
        self._mutate(got)
        assert await store.get(TENANT, chunk.id) == chunk

    async def test_get_many_returns_copies(self, store: ChunkStore) -> None:
        """Mutating the mapping or the chunks ``get_many`` returned changes nothing stored."""
        chunk = self._chunk(SOURCE, "Copy me.", 0, [_ENTITIES[0]], {"tags": ["a"]})
        await store.upsert_many(TENANT, [chunk])
        got = await store.get_many(TENANT, [chunk.id])
        self._mutate(got[chunk.id])
        got.clear()
        assert await store.get_many(TENANT, [chunk.id]) == {chunk.id: chunk}

    async def test_get_by_source_returns_copies(self, store: ChunkStore) -> None:
        """Mutating the list or the chunks ``get_by_source`` returned changes nothing stored."""
        chunk = self._chunk(SOURCE, "Copy me.", 0, [_ENTITIES[0]], {"tags": ["a"]})
        await store.upsert_many(TENANT, [chunk])
        got = await store.get_by_source(TENANT, SOURCE)
        self._mutate(got[0])
        got.clear()
        assert await store.get_by_source(TENANT, SOURCE) == [chunk]

    async def test_get_by_entity_returns_copies(self, store: ChunkStore) -> None:
        """Mutating the list or the chunks ``get_by_entity`` returned changes nothing stored."""
        chunk = self._chunk(SOURCE, "Copy me.", 0, [_ENTITIES[0]], {"tags": ["a"]})
        await store.upsert_many(TENANT, [chunk])
        got = await store.get_by_entity(TENANT, _ENTITIES[0])
        self._mutate(got[0])
        got.clear()
        assert await store.get_by_entity(TENANT, _ENTITIES[0]) == [chunk]

    async def test_existing_ids_returns_copies(self, store: ChunkStore) -> None:
        """Mutating the set ``existing_ids`` returned changes neither the store nor the next
        answer.
        """
        chunk = self._chunk(SOURCE, "Copy me.", 0)
        await store.upsert_many(TENANT, [chunk])
        absent = chunk_id(SOURCE, "Never written.")
        got = await store.existing_ids(TENANT, [chunk.id, absent])
        got.discard(chunk.id)
        got.add(absent)
        assert await store.existing_ids(TENANT, [chunk.id, absent]) == {chunk.id}
        assert await store.get(TENANT, absent) is None

    async def test_list_sources_returns_copies(self, store: ChunkStore) -> None:
        """Mutating the mapping ``list_sources`` returned changes neither the store nor the
        next answer.
        """
        await store.upsert_many(TENANT, [self._chunk(SOURCE, "Copy me.", 0)])
        got = await store.list_sources(TENANT)
        got[SOURCE] = 99
        got[OTHER_SOURCE] = 1
        assert await store.list_sources(TENANT) == {SOURCE: 1}

    async def test_lexical_candidates_returns_copies(self, store: ChunkStore) -> None:
        """Mutating the statistics ``lexical_candidates`` returned changes neither the store
        nor the next answer.
        """
        corpus = [self._chunk(SOURCE, "Copy me, copy me.", 0)]
        await store.upsert_many(TENANT, corpus)
        got = await store.lexical_candidates(TENANT, ["copy"])
        got.document_frequencies["copy"] = 9
        got.candidates[0].term_frequencies["copy"] = 9
        got.candidates.clear()
        got.corpus_size = 9
        assert _without_zero_counts(
            await store.lexical_candidates(TENANT, ["copy"])
        ) == lexical_oracle(corpus, ["copy"])

    @staticmethod
    def _mutate(chunk: StoredChunk) -> None:
        """Change every mutable part of a chunk a caller can reach."""
        chunk.chunk_index = 42
        chunk.entity_ids = (*chunk.entity_ids, _ENTITIES[3])
        chunk.metadata["owner"] = "someone else"
        tags = chunk.metadata.get("tags")
        if isinstance(tags, list):
            tags.append("mutated")

    # -- tenancy: no read sees another tenant's rows, even under the same chunk id ------

    async def test_get_never_crosses_tenants(self, store: ChunkStore) -> None:
        """``get`` of a shared id returns the asking tenant's chunk; a third tenant gets None."""
        mine, theirs = await self._both_tenants(store)
        assert await store.get(TENANT, mine.id) == mine
        assert await store.get(OTHER_TENANT, mine.id) == theirs
        assert await store.get(TenantId("tenant-c"), mine.id) is None

    async def test_get_many_never_crosses_tenants(self, store: ChunkStore) -> None:
        """``get_many`` returns the asking tenant's chunks only."""
        mine, theirs = await self._both_tenants(store)
        only_theirs = self._chunk(SOURCE, "Only the other tenant wrote this.", 1)
        await store.upsert_many(OTHER_TENANT, [only_theirs])
        assert await store.get_many(TENANT, [mine.id, only_theirs.id]) == {mine.id: mine}
        assert await store.get_many(OTHER_TENANT, [mine.id]) == {mine.id: theirs}

    async def test_get_by_source_never_crosses_tenants(self, store: ChunkStore) -> None:
        """One source under two tenants is two sources: each lists its own chunks."""
        mine, theirs = await self._both_tenants(store)
        only_theirs = self._chunk(SOURCE, "Only the other tenant wrote this.", 1)
        await store.upsert_many(OTHER_TENANT, [only_theirs])
        assert await store.get_by_source(TENANT, SOURCE) == [mine]
        assert await store.get_by_source(OTHER_TENANT, SOURCE) == _in_source_order(
            [theirs, only_theirs]
        )

    async def test_get_by_entity_never_crosses_tenants(self, store: ChunkStore) -> None:
        """Another tenant's chunks naming the entity are not the asking tenant's."""
        mine, theirs = await self._both_tenants(store)
        other = self._chunk(OTHER_SOURCE, "Also about the first entity.", 0, [_ENTITIES[0]])
        await store.upsert_many(OTHER_TENANT, [other])
        assert await store.get_by_entity(TENANT, _ENTITIES[0]) == [mine]
        assert await store.get_by_entity(TENANT, _ENTITIES[1]) == []
        assert await store.get_by_entity(OTHER_TENANT, _ENTITIES[1]) == [theirs]

    async def test_existing_ids_never_crosses_tenants(self, store: ChunkStore) -> None:
        """An id only another tenant holds is not among the asking tenant's."""
        mine, _ = await self._both_tenants(store)
        only_theirs = self._chunk(SOURCE, "Only the other tenant wrote this.", 1)
        await store.upsert_many(OTHER_TENANT, [only_theirs])
        assert await store.existing_ids(TENANT, [mine.id, only_theirs.id]) == {mine.id}
        assert await store.existing_ids(TenantId("tenant-c"), [mine.id]) == set()

    async def test_list_sources_never_crosses_tenants(self, store: ChunkStore) -> None:
        """Each tenant counts its own chunks of its own sources."""
        await self._both_tenants(store)
        await store.upsert_many(
            OTHER_TENANT,
            [self._chunk(SOURCE, "Second.", 1), self._chunk(OTHER_SOURCE, "Third.", 0)],
        )
        assert await store.list_sources(TENANT) == {SOURCE: 1}
        assert await store.list_sources(OTHER_TENANT) == {SOURCE: 2, OTHER_SOURCE: 1}
        assert await store.list_sources(TenantId("tenant-c")) == {}

    async def test_lexical_candidates_never_crosses_tenants(self, store: ChunkStore) -> None:
        """Statistics cover the asking tenant's corpus only, even where ids coincide."""
        mine, theirs = await self._both_tenants(store)
        noise = [
            self._chunk(OTHER_SOURCE, "Ada again, and Ada once more.", 0),
            self._chunk(OTHER_SOURCE, "Unrelated words.", 1),
        ]
        await store.upsert_many(OTHER_TENANT, noise)
        found = await store.lexical_candidates(TENANT, ["ada", "unrelated"])
        assert _without_zero_counts(found) == lexical_oracle([mine], ["ada", "unrelated"])
        found = await store.lexical_candidates(OTHER_TENANT, ["ada", "unrelated"])
        assert _without_zero_counts(found) == lexical_oracle([theirs, *noise], ["ada", "unrelated"])


ChunkStoreCompliance.SUITE = ChunkStoreCompliance
