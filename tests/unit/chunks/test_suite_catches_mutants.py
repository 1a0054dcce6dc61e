"""ChunkStoreCompliance fails on adapters with planted defects, each named where it is caught.

Every mutant is InMemoryChunkStore with one plausible mistake. Each row names the suite tests
that must fail on it; they run in process against the mutant, and the same way against the
unbroken adapter to prove the harness itself can report a pass.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from redstring.chunks.adapters.memory import InMemoryChunkStore, _Row
from redstring.domain.chunk_ranking import (
    DEFAULT_POSTING_BUDGET,
    LexicalCandidate,
    LexicalCandidates,
    selective_terms,
)
from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId, distinct
from redstring.ports.chunk_store import ChunkStore
from redstring.testing.chunk_store import ChunkStoreCompliance
from tests.compliance_coverage import isolation_test_names
from tests.lifecycle_mutants import lifecycle_mutants
from tests.suite_failures import run_suite_test

# -- handing out or keeping live objects ------------------------------------------------------


class GetReturnsTheStoredChunk(InMemoryChunkStore):
    async def get(self, tenant_id: TenantId, chunk_id: ChunkId) -> StoredChunk | None:
        row = self._rows.get((tenant_id, chunk_id))
        return None if row is None else row.chunk


class GetManyReturnsStoredChunks(InMemoryChunkStore):
    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        return {
            chunk_id: self._rows[(tenant_id, chunk_id)].chunk
            for chunk_id in chunk_ids
            if (tenant_id, chunk_id) in self._rows
        }


class GetBySourceReturnsStoredChunks(InMemoryChunkStore):
    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        found = await super().get_by_source(tenant_id, source_id)
        return [self._rows[(tenant_id, chunk.id)].chunk for chunk in found]


class GetByEntityReturnsStoredChunks(InMemoryChunkStore):
    async def get_by_entity(
        self, tenant_id: TenantId, entity_id: EntityId, **bounds: Any
    ) -> list[StoredChunk]:
        found = await super().get_by_entity(tenant_id, entity_id, **bounds)
        return [self._rows[(tenant_id, chunk.id)].chunk for chunk in found]


class _RemembersAnswers(InMemoryChunkStore):
    """Memoises read answers per tenant and hands every caller the same mutable object."""

    def __init__(self) -> None:
        super().__init__()
        self._answers: dict[tuple[object, ...], object] = {}

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        self._answers.clear()
        await super().upsert_many(tenant_id, chunks)


class ExistingIdsRemembersItsAnswer(_RemembersAnswers):
    async def existing_ids(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> set[ChunkId]:
        key = ("existing", tenant_id, frozenset(chunk_ids))
        if key not in self._answers:
            self._answers[key] = await super().existing_ids(tenant_id, chunk_ids)
        return self._answers[key]  # type: ignore[return-value]


class ListSourcesRemembersItsAnswer(_RemembersAnswers):
    async def list_sources(self, tenant_id: TenantId) -> dict[SourceId, int]:
        key = ("sources", tenant_id)
        if key not in self._answers:
            self._answers[key] = await super().list_sources(tenant_id)
        return self._answers[key]  # type: ignore[return-value]


class LexicalCandidatesRemembersItsAnswer(_RemembersAnswers):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        key = ("lexical", tenant_id, tuple(terms))
        if key not in self._answers:
            self._answers[key] = await super().lexical_candidates(
                tenant_id, terms, posting_budget=posting_budget
            )
        return self._answers[key]  # type: ignore[return-value]


class UpsertKeepsTheCallersChunks(InMemoryChunkStore):
    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        await super().upsert_many(tenant_id, chunks)
        for chunk in chunks:
            row = self._rows[(tenant_id, chunk.id)]
            self._put(tenant_id, _Row(chunk, row.frequencies, row.length))


class ReplaceSourceKeepsTheCallersChunks(InMemoryChunkStore):
    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        await super().replace_source(tenant_id, source_id, chunks)
        for chunk in chunks:
            row = self._rows[(tenant_id, chunk.id)]
            self._put(tenant_id, _Row(chunk, row.frequencies, row.length))


# -- tenancy ----------------------------------------------------------------------------------


class KeyedOnTheChunkIdAlone(InMemoryChunkStore):
    """A primary key on the id alone: a write under one tenant takes the row from another."""

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        for chunk in chunks:
            for key in [key for key in self._rows if key[1] == chunk.id]:
                self._drop(key)
        await super().upsert_many(tenant_id, chunks)


class GetFindsAnyTenantsChunk(InMemoryChunkStore):
    async def get(self, tenant_id: TenantId, chunk_id: ChunkId) -> StoredChunk | None:
        for (_, held_id), row in self._rows.items():
            if held_id == chunk_id:
                return row.chunk.model_copy(deep=True)
        return None


class GetManyFindsAnyTenantsChunks(InMemoryChunkStore):
    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        wanted = set(chunk_ids)
        return {
            held_id: row.chunk.model_copy(deep=True)
            for (_, held_id), row in self._rows.items()
            if held_id in wanted
        }


class ExistingIdsAcrossTenants(InMemoryChunkStore):
    async def existing_ids(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> set[ChunkId]:
        held = {held_id for _, held_id in self._rows}
        return set(chunk_ids) & held


class GetBySourceAcrossTenants(InMemoryChunkStore):
    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        found = [
            row.chunk.model_copy(deep=True)
            for row in self._rows.values()
            if row.chunk.source_id == source_id
        ]
        return sorted(found, key=lambda chunk: (chunk.chunk_index, chunk.id))


class GetByEntityAcrossTenants(InMemoryChunkStore):
    async def get_by_entity(
        self, tenant_id: TenantId, entity_id: EntityId, **bounds: Any
    ) -> list[StoredChunk]:
        found = [
            row.chunk.model_copy(deep=True)
            for row in self._rows.values()
            if entity_id in row.chunk.entity_ids
        ]
        return sorted(found, key=lambda chunk: chunk.id)


class ListSourcesAcrossTenants(InMemoryChunkStore):
    async def list_sources(self, tenant_id: TenantId) -> dict[SourceId, int]:
        return dict(Counter(row.chunk.source_id for row in self._rows.values()))


class LexicalStatisticsAcrossTenants(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        everyone = InMemoryChunkStore()
        for row in self._rows.values():
            everyone._put(tenant_id, row)
        return await InMemoryChunkStore.lexical_candidates(
            everyone, tenant_id, terms, posting_budget=posting_budget
        )


class DeleteBySourceInEveryTenant(InMemoryChunkStore):
    async def delete_by_source(self, tenant_id: TenantId, source_id: SourceId) -> int:
        doomed = [key for key, row in self._rows.items() if row.chunk.source_id == source_id]
        for key in doomed:
            self._drop(key)
        return sum(1 for key in doomed if key[0] == tenant_id)


# -- writes -----------------------------------------------------------------------------------


class FirstWriteWins(InMemoryChunkStore):
    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        for chunk in chunks:
            if (tenant_id, chunk.id) not in self._rows:
                self._put(tenant_id, self._row(chunk))


class DropsMetadata(InMemoryChunkStore):
    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        await super().upsert_many(
            tenant_id, [chunk.model_copy(update={"metadata": {}}) for chunk in chunks]
        )


class ReplaceSourceIsNotAtomic(InMemoryChunkStore):
    """Clears the source, then checks and writes chunk by chunk."""

    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        await self.delete_by_source(tenant_id, source_id)
        for chunk in chunks:
            await super().replace_source(
                tenant_id, source_id, [*await self.get_by_source(tenant_id, source_id), chunk]
            )


class ReplaceSourceLeavesOldChunks(InMemoryChunkStore):
    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        for chunk in chunks:
            if chunk.source_id != source_id:
                raise ValueError(f"{chunk.id} belongs to {chunk.source_id}")
        await self.upsert_many(tenant_id, chunks)


class ReplaceSourceIgnoresAnEmptyList(InMemoryChunkStore):
    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        if chunks:
            await super().replace_source(tenant_id, source_id, chunks)


class ReplaceSourceAcceptsForeignChunks(InMemoryChunkStore):
    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        await self.delete_by_source(tenant_id, source_id)
        await self.upsert_many(tenant_id, chunks)


class DeleteBySourceCountsTheTenant(InMemoryChunkStore):
    async def delete_by_source(self, tenant_id: TenantId, source_id: SourceId) -> int:
        held = sum(1 for key in self._rows if key[0] == tenant_id)
        await super().delete_by_source(tenant_id, source_id)
        return held


class DeleteByTenantCountsNothing(InMemoryChunkStore):
    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        await super().delete_by_tenant(tenant_id)
        return 0


# -- reads ------------------------------------------------------------------------------------


class GetBySourceInWriteOrder(InMemoryChunkStore):
    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        return [
            row.chunk.model_copy(deep=True)
            for row in self._tenant_rows(tenant_id)
            if row.chunk.source_id == source_id
        ]


class GetBySourceOrdersByIndexOnly(InMemoryChunkStore):
    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        found = await GetBySourceInWriteOrder.get_by_source(self, tenant_id, source_id)
        return sorted(found, key=lambda chunk: chunk.chunk_index)


class GetByEntityInWriteOrder(InMemoryChunkStore):
    async def get_by_entity(
        self, tenant_id: TenantId, entity_id: EntityId, **bounds: Any
    ) -> list[StoredChunk]:
        return [
            row.chunk.model_copy(deep=True)
            for row in self._tenant_rows(tenant_id)
            if entity_id in row.chunk.entity_ids
        ]


class GetByEntityIgnoresPrefer(InMemoryChunkStore):
    """Bounded reads by id alone: the caller's ranking is dropped, so a hub's best passages
    are not the ones returned."""

    async def get_by_entity(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        limit: int | None = None,
        prefer: Sequence[ChunkId] = (),
    ) -> list[StoredChunk]:
        return await super().get_by_entity(tenant_id, entity_id, limit=limit)


class GetByEntityIgnoresTheLimit(InMemoryChunkStore):
    """Reads and returns every chunk naming the entity whatever the limit."""

    async def get_by_entity(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        limit: int | None = None,
        prefer: Sequence[ChunkId] = (),
    ) -> list[StoredChunk]:
        return await super().get_by_entity(tenant_id, entity_id, prefer=prefer)


class ListSourcesCountsWrites(InMemoryChunkStore):
    def __init__(self) -> None:
        super().__init__()
        self._writes: Counter[tuple[TenantId, SourceId]] = Counter()

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        await super().upsert_many(tenant_id, chunks)
        self._writes.update((tenant_id, chunk.source_id) for chunk in chunks)

    async def list_sources(self, tenant_id: TenantId) -> dict[SourceId, int]:
        held = await super().list_sources(tenant_id)
        return {source: self._writes[(tenant_id, source)] or held[source] for source in held}


# -- lexical statistics -----------------------------------------------------------------------


class CorpusIsOnlyTheCandidates(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=posting_budget)
        return stats.model_copy(
            update={
                "corpus_size": len(stats.candidates),
                "total_length": sum(candidate.length for candidate in stats.candidates),
            }
        )


class DocumentFrequencyOffByOne(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=posting_budget)
        shifted = {
            term: count + 1 if count else 0 for term, count in stats.document_frequencies.items()
        }
        return stats.model_copy(update={"document_frequencies": shifted})


class DocumentFrequencyCountsOccurrences(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=posting_budget)
        occurrences = dict.fromkeys(stats.document_frequencies, 0)
        for candidate in stats.candidates:
            for term, count in candidate.term_frequencies.items():
                occurrences[term] += count
        return stats.model_copy(update={"document_frequencies": occurrences})


class RanksTheCandidates(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=posting_budget)
        ranked = sorted(
            stats.candidates, key=lambda candidate: -sum(candidate.term_frequencies.values())
        )
        return stats.model_copy(update={"candidates": ranked})


class CasefoldsTheTerms(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(
            tenant_id, [term.casefold() for term in terms], posting_budget=posting_budget
        )
        given = list(dict.fromkeys(terms))
        return stats.model_copy(
            update={
                "document_frequencies": {
                    term: stats.document_frequencies[term.casefold()] for term in given
                }
            }
        )


class TokenisesAsciiOnly(InMemoryChunkStore):
    @staticmethod
    def _row(chunk: StoredChunk) -> _Row:
        frequencies = Counter(re.findall(r"[a-z0-9]+", chunk.text.lower()))
        return _Row(chunk.model_copy(deep=True), frequencies, sum(frequencies.values()))


class LengthCountsCharacters(InMemoryChunkStore):
    @staticmethod
    def _row(chunk: StoredChunk) -> _Row:
        row = InMemoryChunkStore._row(chunk)
        return _Row(row.chunk, row.frequencies, len(chunk.text))


class NoTermsMatchEveryChunk(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        if terms:
            return await super().lexical_candidates(tenant_id, terms, posting_budget=posting_budget)
        every = {token for row in self._tenant_rows(tenant_id) for token in row.frequencies}
        stats = await super().lexical_candidates(
            tenant_id, sorted(every), posting_budget=posting_budget
        )
        return stats.model_copy(update={"document_frequencies": {}})


class InsertIfAbsent(InMemoryChunkStore):
    """``ON CONFLICT DO NOTHING``: a chunk already held is never replaced by a later call."""

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        held = await self.existing_ids(tenant_id, [chunk.id for chunk in chunks])
        await super().upsert_many(tenant_id, [chunk for chunk in chunks if chunk.id not in held])


class ReplaceSourceAwaitsBetweenItsSteps(InMemoryChunkStore):
    """Delete, yield to the loop, insert: concurrent replacements interleave and mix."""

    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        await self.delete_by_source(tenant_id, source_id)
        await asyncio.sleep(0)
        await self.upsert_many(tenant_id, chunks)


class TruncatesSourceIds(InMemoryChunkStore):
    """A source column of 1,023 characters (or a B-tree entry of that many bytes)."""

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        await super().upsert_many(
            tenant_id,
            [chunk.model_copy(update={"source_id": chunk.source_id[:1023]}) for chunk in chunks],
        )

    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        return await super().get_by_source(tenant_id, SourceId(source_id[:1023]))

    async def delete_by_source(self, tenant_id: TenantId, source_id: SourceId) -> int:
        return await super().delete_by_source(tenant_id, SourceId(source_id[:1023]))


class NullIsNoTerm(InMemoryChunkStore):
    """The token ``null`` travels unquoted and becomes SQL NULL: it is never counted."""

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(
            tenant_id, [t for t in terms if t != "null"], posting_budget=posting_budget
        )
        if "null" not in terms:
            return stats
        return stats.model_copy(
            update={"document_frequencies": {**stats.document_frequencies, "null": 0}}
        )


class StartsWithAChunk(InMemoryChunkStore):
    """Not empty when handed over, as a store after an incomplete wipe would be."""

    def __init__(self) -> None:
        super().__init__()
        leftover = ChunkStoreCompliance._chunk(SourceId("leftover.md"), "Left over.")
        self._put(TenantId("tenant-a"), self._row(leftover))


class GetBySourceOfEverySource(InMemoryChunkStore):
    """The source filter forgotten: every chunk of the tenant, in source order."""

    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        rows = self._tenant_rows(tenant_id)
        return sorted(
            (row.chunk.model_copy(deep=True) for row in rows),
            key=lambda chunk: (chunk.chunk_index, chunk.id),
        )


class GetManyMapsAbsentIdsToNone(InMemoryChunkStore):
    """A LEFT JOIN over the asked ids: an absent id comes back mapped to None."""

    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        found = await super().get_many(tenant_id, chunk_ids)
        return {chunk_id: found.get(chunk_id) for chunk_id in chunk_ids}  # type: ignore[misc]


class ExistingIdsEchoesTheQuestion(InMemoryChunkStore):
    """Every id asked about reported as held, so a re-run skips text it never stored."""

    async def existing_ids(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> set[ChunkId]:
        return set(chunk_ids)


# -- the posting budget (ADR 0020) ------------------------------------------------------------


class CountsOnlyTheCandidateTerms(InMemoryChunkStore):
    """Reads counts from the fetched postings alone: a common term's counts go missing."""

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=posting_budget)
        chosen = set(stats.candidate_terms)
        return stats.model_copy(
            update={
                "candidates": [
                    LexicalCandidate(
                        chunk_id=candidate.chunk_id,
                        length=candidate.length,
                        term_frequencies={
                            term: count
                            for term, count in candidate.term_frequencies.items()
                            if term in chosen
                        },
                    )
                    for candidate in stats.candidates
                ]
            }
        )


class FrequenciesOnlyForCandidateTerms(InMemoryChunkStore):
    """Skips counting the terms it will not fetch: their document frequency reads 0."""

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=posting_budget)
        chosen = set(stats.candidate_terms)
        return stats.model_copy(
            update={
                "document_frequencies": {
                    term: count if term in chosen else 0
                    for term, count in stats.document_frequencies.items()
                }
            }
        )


class IgnoresTheBudget(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        return await super().lexical_candidates(tenant_id, terms, posting_budget=None)


class TakesTermsInTheGivenOrder(InMemoryChunkStore):
    """Spends the budget on the terms as the question lists them, not rarest first."""

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=None)
        chosen: list[str] = []
        spent = 0
        for term, frequency in stats.document_frequencies.items():
            if frequency and (posting_budget is None or spent + frequency <= posting_budget):
                chosen.append(term)
                spent += frequency
        return self._restricted(stats, chosen)

    @staticmethod
    def _restricted(stats: LexicalCandidates, chosen: list[str]) -> LexicalCandidates:
        return stats.model_copy(
            update={
                "candidate_terms": chosen,
                "candidates": [
                    candidate
                    for candidate in stats.candidates
                    if any(term in candidate.term_frequencies for term in chosen)
                ],
            }
        )


class BreaksFrequencyTiesByTheGivenOrder(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=None)
        held = [term for term, frequency in stats.document_frequencies.items() if frequency]
        held.sort(key=stats.document_frequencies.__getitem__)
        chosen: list[str] = []
        spent = 0
        for term in held:
            spent += stats.document_frequencies[term]
            if posting_budget is not None and spent > posting_budget:
                break
            chosen.append(term)
        return TakesTermsInTheGivenOrder._restricted(stats, chosen)


class ANegativeBudgetMeansNone(InMemoryChunkStore):
    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        if posting_budget is not None and posting_budget < 0:
            posting_budget = None
        return await super().lexical_candidates(tenant_id, terms, posting_budget=posting_budget)


class KeepsTheTermThatPassesTheBudget(InMemoryChunkStore):
    """Stops after the first term past the budget instead of before it."""

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=None)
        everything = selective_terms(stats.document_frequencies, None)
        fitting = selective_terms(stats.document_frequencies, posting_budget)
        chosen = everything[: len(fitting) + 1]
        return TakesTermsInTheGivenOrder._restricted(stats, chosen)


class ChargesARepeatedTermTwice(InMemoryChunkStore):
    """Spends the posting budget once per listing of a term, as a query over the given terms
    without ``DISTINCT`` would."""

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        stats = await super().lexical_candidates(tenant_id, terms, posting_budget=None)
        listed = Counter(terms)
        chosen: list[str] = []
        spent = 0
        for term in selective_terms(stats.document_frequencies, None):
            spent += stats.document_frequencies[term] * listed[term]
            if posting_budget is not None and spent > posting_budget:
                break
            chosen.append(term)
        return TakesTermsInTheGivenOrder._restricted(stats, chosen)


class RemovalKeepsItsLength(InMemoryChunkStore):
    """Forgets to take a removed chunk's length out of the tenant's running total."""

    def _drop(self, key: tuple[TenantId, ChunkId]) -> None:
        length = self._rows[key].length
        super()._drop(key)
        self._total_length[key[0]] += length


# -- repeats in a list field (ADR 0028) --------------------------------------------------------


class UnindexesEachListing(InMemoryChunkStore):
    """The store as issue 28 found it: a chunk is kept as given, so an entity listed twice
    is un-indexed twice, and the second removal raises ``KeyError`` after the row is gone."""

    @staticmethod
    def _row(chunk: StoredChunk) -> _Row:
        row = InMemoryChunkStore._row(chunk)
        return _Row(chunk.model_copy(deep=True), row.frequencies, row.length)


class KeepsRepeatedEntityIds(InMemoryChunkStore):
    """Holds the list as given, un-indexing each distinct id once: a repeat that skipped
    validation reads back, where a store validating on the way out (PostgreSQL) drops it."""

    @staticmethod
    def _row(chunk: StoredChunk) -> _Row:
        return UnindexesEachListing._row(chunk)

    def _drop(self, key: tuple[TenantId, ChunkId]) -> None:
        row = self._rows[key]
        once = replace(
            row, chunk=row.chunk.model_copy(update={"entity_ids": distinct(row.chunk.entity_ids)})
        )
        self._rows[key] = self._by_tenant[key[0]][key[1]] = once
        super()._drop(key)


@dataclass(frozen=True)
class Case:
    mutant: type[InMemoryChunkStore]
    caught_by: tuple[str, ...]


class ListsNothingForUnstorableText(InMemoryChunkStore):
    """Answers a NUL tenant with an empty listing, where PostgreSQL raised a driver error."""

    async def list_sources(self, tenant_id: TenantId) -> dict[SourceId, int]:
        if "\x00" in tenant_id or "\ud800" in tenant_id:
            return {}
        return await super().list_sources(tenant_id)


CASES = (
    Case(ListsNothingForUnstorableText, ("test_text_arguments_no_store_can_hold_are_refused",)),
    Case(GetReturnsTheStoredChunk, ("test_get_returns_copies",)),
    Case(GetManyReturnsStoredChunks, ("test_get_many_returns_copies",)),
    Case(GetBySourceReturnsStoredChunks, ("test_get_by_source_returns_copies",)),
    Case(GetByEntityReturnsStoredChunks, ("test_get_by_entity_returns_copies",)),
    Case(ExistingIdsRemembersItsAnswer, ("test_existing_ids_returns_copies",)),
    Case(ListSourcesRemembersItsAnswer, ("test_list_sources_returns_copies",)),
    Case(LexicalCandidatesRemembersItsAnswer, ("test_lexical_candidates_returns_copies",)),
    Case(UpsertKeepsTheCallersChunks, ("test_upsert_many_keeps_its_own_copy_of_the_chunks",)),
    Case(
        ReplaceSourceKeepsTheCallersChunks,
        ("test_replace_source_keeps_its_own_copy_of_the_chunks",),
    ),
    Case(
        KeyedOnTheChunkIdAlone,
        ("test_two_tenants_hold_the_same_chunk_id_independently", "test_get_never_crosses_tenants"),
    ),
    Case(GetFindsAnyTenantsChunk, ("test_get_never_crosses_tenants",)),
    Case(GetManyFindsAnyTenantsChunks, ("test_get_many_never_crosses_tenants",)),
    Case(ExistingIdsAcrossTenants, ("test_existing_ids_never_crosses_tenants",)),
    Case(GetBySourceAcrossTenants, ("test_get_by_source_never_crosses_tenants",)),
    Case(GetByEntityAcrossTenants, ("test_get_by_entity_never_crosses_tenants",)),
    Case(ListSourcesAcrossTenants, ("test_list_sources_never_crosses_tenants",)),
    Case(LexicalStatisticsAcrossTenants, ("test_lexical_candidates_never_crosses_tenants",)),
    Case(DeleteBySourceInEveryTenant, ("test_delete_by_source_counts_and_spares_the_rest",)),
    Case(
        FirstWriteWins,
        (
            "test_upsert_many_is_idempotent_and_the_last_duplicate_wins",
            "test_upsert_many_then_get_round_trips_every_chunk",
        ),
    ),
    Case(DropsMetadata, ("test_upsert_many_then_get_round_trips_every_chunk",)),
    Case(
        ReplaceSourceIsNotAtomic,
        ("test_replace_source_rejects_a_chunk_of_another_source_and_writes_nothing",),
    ),
    Case(
        ReplaceSourceLeavesOldChunks,
        (
            "test_replace_source_makes_the_given_chunks_the_whole_content",
            "test_replace_source_with_no_chunks_empties_the_source",
            "test_replace_source_leaves_exactly_the_given_chunks",
        ),
    ),
    Case(
        ReplaceSourceIgnoresAnEmptyList, ("test_replace_source_with_no_chunks_empties_the_source",)
    ),
    Case(
        ReplaceSourceAcceptsForeignChunks,
        ("test_replace_source_rejects_a_chunk_of_another_source_and_writes_nothing",),
    ),
    Case(DeleteBySourceCountsTheTenant, ("test_delete_by_source_counts_and_spares_the_rest",)),
    Case(DeleteByTenantCountsNothing, ("test_delete_by_tenant_counts_and_spares_other_tenants",)),
    Case(GetBySourceInWriteOrder, ("test_get_by_source_orders_by_chunk_index_then_id",)),
    Case(GetBySourceOrdersByIndexOnly, ("test_get_by_source_orders_by_chunk_index_then_id",)),
    Case(GetByEntityInWriteOrder, ("test_get_by_entity_returns_the_chunks_naming_it_by_id",)),
    Case(
        GetByEntityIgnoresPrefer,
        ("test_get_by_entity_puts_preferred_chunks_first_and_stops_at_the_limit",),
    ),
    Case(
        GetByEntityIgnoresTheLimit,
        (
            "test_get_by_entity_puts_preferred_chunks_first_and_stops_at_the_limit",
            "test_get_by_entity_refuses_a_limit_out_of_range",
        ),
    ),
    Case(ListSourcesCountsWrites, ("test_list_sources_counts_chunks_per_source",)),
    Case(
        CorpusIsOnlyTheCandidates,
        (
            "test_lexical_candidates_count_the_whole_corpus_not_only_the_candidates",
            "test_lexical_candidates_match_the_statistics_of_the_whole_corpus",
        ),
    ),
    Case(
        DocumentFrequencyOffByOne,
        (
            "test_lexical_candidates_count_the_whole_corpus_not_only_the_candidates",
            "test_lexical_candidates_match_the_statistics_of_the_whole_corpus",
        ),
    ),
    Case(
        DocumentFrequencyCountsOccurrences,
        ("test_lexical_candidates_count_the_whole_corpus_not_only_the_candidates",),
    ),
    # The property test caught this mutant only on some example sequences (an unrelated import
    # once changed them); the fixed corpus catches it always.
    Case(RanksTheCandidates, ("test_lexical_candidates_come_in_id_order_not_ranked",)),
    Case(CasefoldsTheTerms, ("test_lexical_candidates_match_terms_exactly_as_given",)),
    Case(TokenisesAsciiOnly, ("test_lexical_candidates_match_non_ascii_terms",)),
    Case(
        LengthCountsCharacters,
        (
            "test_lexical_candidates_count_the_whole_corpus_not_only_the_candidates",
            "test_no_terms_yield_no_candidates",
        ),
    ),
    Case(NoTermsMatchEveryChunk, ("test_no_terms_yield_no_candidates",)),
    Case(InsertIfAbsent, ("test_a_later_upsert_many_call_replaces_an_earlier_one",)),
    Case(
        ReplaceSourceAwaitsBetweenItsSteps,
        ("test_concurrent_replacements_of_one_source_never_mix",),
    ),
    Case(TruncatesSourceIds, ("test_a_long_multibyte_source_id_is_kept_whole",)),
    Case(NullIsNoTerm, ("test_a_term_spelled_like_null_is_a_word",)),
    Case(StartsWithAChunk, ("test_a_new_store_holds_nothing",)),
    Case(
        GetBySourceOfEverySource,
        ("test_get_by_source_returns_the_sources_chunks_in_order",),
    ),
    Case(GetManyMapsAbsentIdsToNone, ("test_get_many_returns_the_held_chunks_keyed_by_id",)),
    Case(ExistingIdsEchoesTheQuestion, ("test_existing_ids_reports_which_ids_are_held",)),
    *(Case(mutant, (name,)) for mutant, name in lifecycle_mutants(InMemoryChunkStore).items()),
    Case(
        CountsOnlyTheCandidateTerms,
        (
            "test_a_common_term_is_counted_but_makes_no_candidate",
            "test_the_budget_takes_terms_rarest_first_then_by_term",
        ),
    ),
    Case(
        FrequenciesOnlyForCandidateTerms,
        (
            "test_a_common_term_is_counted_but_makes_no_candidate",
            "test_no_budget_makes_every_holder_a_candidate",
        ),
    ),
    Case(
        IgnoresTheBudget,
        (
            "test_a_common_term_is_counted_but_makes_no_candidate",
            "test_the_budget_takes_terms_rarest_first_then_by_term",
            "test_no_budget_makes_every_holder_a_candidate",
        ),
    ),
    Case(
        TakesTermsInTheGivenOrder,
        (
            "test_a_common_term_is_counted_but_makes_no_candidate",
            "test_the_budget_takes_terms_rarest_first_then_by_term",
        ),
    ),
    Case(
        BreaksFrequencyTiesByTheGivenOrder,
        ("test_the_budget_takes_terms_rarest_first_then_by_term",),
    ),
    Case(RemovalKeepsItsLength, ("test_lexical_statistics_follow_replacements_and_deletes",)),
    Case(ChargesARepeatedTermTwice, ("test_an_id_or_term_given_twice_means_it_once",)),
    Case(
        UnindexesEachListing,
        ("test_an_entity_listed_twice_is_held_once_and_every_later_write_works",),
    ),
    Case(
        KeepsRepeatedEntityIds,
        ("test_an_entity_listed_twice_is_held_once_and_every_later_write_works",),
    ),
    Case(ANegativeBudgetMeansNone, ("test_a_negative_budget_is_rejected",)),
    Case(
        KeepsTheTermThatPassesTheBudget,
        (
            "test_a_common_term_is_counted_but_makes_no_candidate",
            "test_the_budget_takes_terms_rarest_first_then_by_term",
            "test_no_budget_makes_every_holder_a_candidate",
        ),
    ),
)


def suite_for(adapter: type[InMemoryChunkStore]) -> ChunkStoreCompliance:
    """The suite, unchanged but for its adapter."""

    class Subject(ChunkStoreCompliance):
        async def new_store(self) -> ChunkStore:
            return adapter()

    return Subject()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.mutant.__name__)
def test_the_suite_catches_the_mutant(case: Case) -> None:
    """Every test named for the mutant fails on it."""
    suite = suite_for(case.mutant)
    survived = [name for name in case.caught_by if run_suite_test(suite, name) is None]
    assert survived == [], f"{case.mutant.__name__} passed {survived}"


def test_the_catching_tests_pass_on_the_unbroken_adapter() -> None:
    """The same tests, run the same way, pass on InMemoryChunkStore: the harness can pass."""
    suite = suite_for(InMemoryChunkStore)
    names = sorted({name for case in CASES for name in case.caught_by})
    failures = {name: repr(failure) for name in names if (failure := run_suite_test(suite, name))}
    assert failures == {}


def test_every_read_method_has_a_live_object_mutant_and_a_tenant_mutant() -> None:
    """Each read's copy test and tenant test has been watched failing on some mutant."""
    caught = {name for case in CASES for name in case.caught_by}
    unwatched = [name for name in isolation_test_names(ChunkStore) if name not in caught]
    assert unwatched == []


def test_every_named_test_is_a_suite_test() -> None:
    """Each row names tests the suite has, so a rename in the suite fails here by name."""
    names = {name for case in CASES for name in case.caught_by}
    assert {name for name in names if not hasattr(ChunkStoreCompliance, name)} == set()


NO_MUTANT_OF_ITS_OWN = {
    "test_the_store_satisfies_the_port": (
        "an isinstance smoke check: a store missing a member fails every case that calls it"
    ),
    "test_the_suite_is_run_unchanged": "the guard against overridden cases, tested in graph",
}
"""Suite cases no mutant names, and why none is written for them."""


def test_every_case_is_named_by_a_mutant_or_says_why_not() -> None:
    """A new suite case arrives with its mutant; a case without one is a visible decision."""
    cases = {name for name in dir(ChunkStoreCompliance) if name.startswith("test_")}
    named = {name for case in CASES for name in case.caught_by}
    assert cases - named - set(NO_MUTANT_OF_ITS_OWN) == set()
