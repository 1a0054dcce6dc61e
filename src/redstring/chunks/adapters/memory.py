"""InMemoryChunkStore: the ChunkStore port over a dictionary keyed on ``(tenant_id, chunk id)``.

Token statistics are computed once per chunk at write time with
``redstring.domain.chunk_ranking.term_frequencies`` and kept in a per-tenant inverted index
(term -> chunks holding it) beside per-tenant totals, so ``lexical_candidates`` reads only
the postings of the terms ``selective_terms`` chooses, and a document frequency is the size
of one posting set. Chunks are also indexed by tenant, by source and by entity, so no read
scans another tenant's rows and no read or write of one source scans its tenant's. It passes
``redstring.testing.chunk_store.ChunkStoreCompliance`` unchanged, and ``index_problems`` says
whether the indexes still describe the rows (the unit tests check it after every call).
"""

from __future__ import annotations

import copy
import heapq
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from redstring.domain.chunk_ranking import (
    DEFAULT_POSTING_BUDGET,
    LexicalCandidate,
    LexicalCandidates,
    selective_terms,
    term_frequencies,
)
from redstring.domain.chunks import StoredChunk
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId, distinct
from redstring.domain.portable import json_copy
from redstring.ports.chunk_store import validate_chunk_limit
from redstring.ports.text_arguments import checks_text_arguments


@dataclass(frozen=True)
class _Row:
    chunk: StoredChunk
    frequencies: Counter[str]
    length: int


_RowTest = Callable[[_Row], bool]


@checks_text_arguments()
class InMemoryChunkStore:
    """A tenant-scoped passage store held in process memory.

    * Keys are ``(tenant_id, chunk id)``: content-addressed ids collide across tenants by
      design, and each tenant's copy is independent of the other's.
    * Chunks are copied on the way in and on the way out.
    * ``replace_source`` checks the whole batch before touching anything.
    * ``close`` releases nothing and keeps the data.
    """

    def __init__(self) -> None:
        self._rows: dict[tuple[TenantId, ChunkId], _Row] = {}
        # Secondary indexes, changed only by _put and _drop.
        self._by_tenant: dict[TenantId, dict[ChunkId, _Row]] = {}
        self._postings: dict[TenantId, dict[str, set[ChunkId]]] = {}
        self._by_entity: dict[TenantId, dict[EntityId, set[ChunkId]]] = {}
        self._by_source: dict[tuple[TenantId, SourceId], set[ChunkId]] = {}
        self._total_length: Counter[TenantId] = Counter()

    def _put(self, tenant_id: TenantId, row: _Row) -> None:
        """Store ``row`` for the tenant, replacing any row of its id, indexes included."""
        key = (tenant_id, row.chunk.id)
        if key in self._rows:
            self._drop(key)
        self._rows[key] = row
        self._by_tenant.setdefault(tenant_id, {})[row.chunk.id] = row
        postings = self._postings.setdefault(tenant_id, {})
        for term in row.frequencies:
            postings.setdefault(term, set()).add(row.chunk.id)
        by_entity = self._by_entity.setdefault(tenant_id, {})
        for entity_id in row.chunk.entity_ids:
            by_entity.setdefault(entity_id, set()).add(row.chunk.id)
        self._by_source.setdefault((tenant_id, row.chunk.source_id), set()).add(row.chunk.id)
        self._total_length[tenant_id] += row.length

    def _drop(self, key: tuple[TenantId, ChunkId]) -> None:
        """Remove the row under ``key`` and its index entries."""
        tenant_id, held_id = key
        row = self._rows.pop(key)
        del self._by_tenant[tenant_id][held_id]
        postings = self._postings[tenant_id]
        for term in row.frequencies:
            postings[term].discard(held_id)
            if not postings[term]:
                del postings[term]
        by_entity = self._by_entity[tenant_id]
        for entity_id in row.chunk.entity_ids:
            by_entity[entity_id].discard(held_id)
            if not by_entity[entity_id]:
                del by_entity[entity_id]
        source_key = (tenant_id, row.chunk.source_id)
        self._by_source[source_key].discard(held_id)
        if not self._by_source[source_key]:
            del self._by_source[source_key]
        self._total_length[tenant_id] -= row.length

    @staticmethod
    def _row(chunk: StoredChunk) -> _Row:
        """The row for ``chunk``: a copy naming each entity once, as the model would (a repeat
        can skip validation through ``model_copy(update=...)``), with its token counts."""
        frequencies = term_frequencies(chunk.text)
        return _Row(
            chunk=_copied(chunk, entity_ids=distinct(chunk.entity_ids)),
            frequencies=frequencies,
            length=sum(frequencies.values()),
        )

    def _tenant_rows(self, tenant_id: TenantId) -> Iterator[_Row]:
        return iter(list(self._by_tenant.get(tenant_id, {}).values()))

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        """Insert or replace every chunk; of two chunks with one id, the later one wins."""
        rows = [self._row(chunk) for chunk in chunks]
        for row in rows:
            self._put(tenant_id, row)

    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        """Make ``chunks`` the source's whole content; ``[]`` empties it.

        Raises :class:`~redstring.domain.errors.InvalidArgumentError` (a ``ValueError``)
        naming the first chunk of another source, having written nothing.
        """
        for chunk in chunks:
            if chunk.source_id != source_id:
                raise InvalidArgumentError(
                    f"chunk {chunk.id!r} belongs to source {chunk.source_id!r}, not "
                    f"{source_id!r}: replace_source takes only the replaced source's chunks"
                )
        rows = [self._row(chunk) for chunk in chunks]
        self._delete_source(tenant_id, source_id)
        for row in rows:
            self._put(tenant_id, row)

    async def get(self, tenant_id: TenantId, chunk_id: ChunkId) -> StoredChunk | None:
        """A copy of the tenant's chunk, or ``None``."""
        row = self._rows.get((tenant_id, chunk_id))
        return None if row is None else _copied(row.chunk)

    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        """Copies of the tenant's chunks among ``chunk_ids``; absent ids are left out."""
        found: dict[ChunkId, StoredChunk] = {}
        for chunk_id in chunk_ids:
            row = self._rows.get((tenant_id, chunk_id))
            if row is not None:
                found[chunk_id] = _copied(row.chunk)
        return found

    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        """Copies of the source's chunks ordered by ``(chunk_index, id)``."""
        rows = self._by_tenant.get(tenant_id, {})
        chunks = [
            _copied(rows[chunk_id].chunk)
            for chunk_id in self._by_source.get((tenant_id, source_id), ())
        ]
        return sorted(chunks, key=lambda chunk: (chunk.chunk_index, chunk.id))

    async def get_by_entity(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        limit: int | None = None,
        prefer: Sequence[ChunkId] = (),
    ) -> list[StoredChunk]:
        """Copies of the chunks naming ``entity_id``: those in ``prefer`` first (in its order),
        then the rest ascending by chunk id, at most ``limit``; only those returned are
        copied."""
        validate_chunk_limit(limit)
        held = self._by_entity.get(tenant_id, {}).get(entity_id, set())
        if not held:
            return []
        wanted = len(held) if limit is None else min(limit, len(held))
        chosen = [chunk_id for chunk_id in dict.fromkeys(prefer) if chunk_id in held][:wanted]
        if len(chosen) < wanted:
            taken = set(chosen)
            rest = (chunk_id for chunk_id in held if chunk_id not in taken)
            chosen += heapq.nsmallest(wanted - len(chosen), rest)
        rows = self._by_tenant[tenant_id]
        return [_copied(rows[chunk_id].chunk) for chunk_id in chosen]

    async def existing_ids(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> set[ChunkId]:
        """The ids among ``chunk_ids`` that the tenant holds."""
        return {chunk_id for chunk_id in chunk_ids if (tenant_id, chunk_id) in self._rows}

    async def list_sources(self, tenant_id: TenantId) -> dict[SourceId, int]:
        """Every source the tenant holds chunks of, with how many."""
        return dict(Counter(row.chunk.source_id for row in self._tenant_rows(tenant_id)))

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        """Term statistics over the tenant's whole corpus; never a ranking.

        Terms match whole tokens exactly as given. Document frequencies come from the
        posting sets; only the postings of ``selective_terms`` are read. No terms yield no
        candidates and no document frequencies, while the corpus totals still describe the
        whole corpus. Raises ``InvalidArgumentError`` for a negative budget.
        """
        wanted = list(dict.fromkeys(terms))
        rows = self._by_tenant.get(tenant_id, {})
        postings = self._postings.get(tenant_id, {})
        document_frequencies = {term: len(postings.get(term, ())) for term in wanted}
        chosen = selective_terms(document_frequencies, posting_budget)
        held: set[ChunkId] = set()
        for term in chosen:
            held |= postings[term]
        candidates = []
        for held_id in sorted(held):
            row = rows[held_id]
            counts = row.frequencies
            candidates.append(
                LexicalCandidate(
                    chunk_id=held_id,
                    length=row.length,
                    term_frequencies={term: counts[term] for term in wanted if counts[term]},
                )
            )
        return LexicalCandidates(
            corpus_size=len(rows),
            total_length=self._total_length[tenant_id],
            document_frequencies=document_frequencies,
            candidate_terms=chosen,
            candidates=candidates,
        )

    async def delete_by_source(self, tenant_id: TenantId, source_id: SourceId) -> int:
        """Remove the source's chunks and return how many there were."""
        return self._delete_source(tenant_id, source_id)

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Remove every chunk of the tenant and return how many there were; no index keeps
        so much as the tenant's id afterwards."""
        removed = self._delete_where(tenant_id, lambda row: True)
        for index in (self._by_tenant, self._postings, self._by_entity, self._total_length):
            index.pop(tenant_id, None)
        return removed

    def _delete_source(self, tenant_id: TenantId, source_id: SourceId) -> int:
        held = list(self._by_source.get((tenant_id, source_id), ()))
        for chunk_id in held:
            self._drop((tenant_id, chunk_id))
        return len(held)

    def _delete_where(self, tenant_id: TenantId, doomed: _RowTest) -> int:
        keys = [(tenant_id, row.chunk.id) for row in self._tenant_rows(tenant_id) if doomed(row)]
        for key in keys:
            self._drop(key)
        return len(keys)

    def index_problems(self) -> list[str]:
        """How the secondary indexes differ from what the rows alone imply; ``[]`` when none.

        Each index is rebuilt from ``_rows`` (the one source of truth here) and compared with
        the one ``_put`` and ``_drop`` kept in step, so an update applied halfway (a row gone
        but still posted, an entity listed under a chunk that no longer names it, a length
        never taken out of the total) is named instead of passing silently. For tests; it
        reads the whole store.
        """
        postings: dict[TenantId, dict[str, set[ChunkId]]] = {}
        by_entity: dict[TenantId, dict[EntityId, set[ChunkId]]] = {}
        by_source: dict[tuple[TenantId, SourceId], set[ChunkId]] = {}
        total_length: Counter[TenantId] = Counter()
        problems = []
        for (tenant_id, held_id), row in self._rows.items():
            if row.chunk.id != held_id:
                problems.append(f"row {(tenant_id, held_id)!r} holds chunk {row.chunk.id!r}")
            if row.frequencies != term_frequencies(row.chunk.text):
                problems.append(f"row {(tenant_id, held_id)!r} has stale token counts")
            if row.length != sum(row.frequencies.values()):
                problems.append(f"row {(tenant_id, held_id)!r} has a length off its counts")
            if len(set(row.chunk.entity_ids)) != len(row.chunk.entity_ids):
                problems.append(f"row {(tenant_id, held_id)!r} names an entity twice")
            for term in row.frequencies:
                postings.setdefault(tenant_id, {}).setdefault(term, set()).add(held_id)
            for entity_id in row.chunk.entity_ids:
                by_entity.setdefault(tenant_id, {}).setdefault(entity_id, set()).add(held_id)
            by_source.setdefault((tenant_id, row.chunk.source_id), set()).add(held_id)
            total_length[tenant_id] += row.length
        listed = {
            (tenant, held_id): row
            for tenant, rows in self._by_tenant.items()
            for held_id, row in rows.items()
        }
        if listed.keys() != self._rows.keys() or any(
            row is not self._rows[key] for key, row in listed.items()
        ):
            problems.append("the tenant index and the rows hold different chunks")
        if {tenant: index for tenant, index in self._postings.items() if index} != postings:
            problems.append("the postings and the rows' terms differ")
        if {tenant: index for tenant, index in self._by_entity.items() if index} != by_entity:
            problems.append("the entity index and the rows' entity ids differ")
        if self._by_source != by_source:
            problems.append("the source index and the rows' sources differ")
        held_lengths = {tenant: n for tenant, n in self._total_length.items() if n != 0}
        row_lengths = {tenant: n for tenant, n in total_length.items() if n != 0}
        if held_lengths != row_lengths:
            problems.append(f"total lengths {held_lengths} but the rows add up to {row_lengths}")
        return problems

    async def close(self) -> None:
        """Nothing to release; the data stays. Safe to call any number of times."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def _copied(chunk: StoredChunk, *, entity_ids: tuple[EntityId, ...] | None = None) -> StoredChunk:
    """A deep copy of ``chunk`` at a fraction of ``model_copy(deep=True)``'s cost: every field
    but ``metadata`` is immutable (strings, ints, a tuple of ids) and is shared; ``entity_ids``
    replaces the chunk's own."""
    clone = copy.copy(chunk)
    clone.__dict__["metadata"] = json_copy(chunk.metadata)
    if entity_ids is not None:
        clone.__dict__["entity_ids"] = entity_ids
    return clone
