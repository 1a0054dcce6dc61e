"""InMemoryChunkStore: the ChunkStore port over a dictionary keyed on ``(tenant_id, chunk id)``.

Token statistics are computed once per chunk at write time with
``redstring.domain.chunk_ranking.term_frequencies``, so ``lexical_candidates`` only counts.
It passes ``redstring.testing.chunk_store.ChunkStoreCompliance`` unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from redstring.domain.chunk_ranking import LexicalCandidate, LexicalCandidates, term_frequencies
from redstring.domain.chunks import StoredChunk
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
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

    @staticmethod
    def _row(chunk: StoredChunk) -> _Row:
        frequencies = term_frequencies(chunk.text)
        return _Row(
            chunk=chunk.model_copy(deep=True),
            frequencies=frequencies,
            length=sum(frequencies.values()),
        )

    def _tenant_rows(self, tenant_id: TenantId) -> Iterator[_Row]:
        return (row for (owner, _), row in self._rows.items() if owner == tenant_id)

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        """Insert or replace every chunk; of two chunks with one id, the later one wins."""
        rows = [self._row(chunk) for chunk in chunks]
        for row in rows:
            self._rows[(tenant_id, row.chunk.id)] = row

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
        self._delete_where(tenant_id, lambda row: row.chunk.source_id == source_id)
        for row in rows:
            self._rows[(tenant_id, row.chunk.id)] = row

    async def get(self, tenant_id: TenantId, chunk_id: ChunkId) -> StoredChunk | None:
        """A copy of the tenant's chunk, or ``None``."""
        row = self._rows.get((tenant_id, chunk_id))
        return None if row is None else row.chunk.model_copy(deep=True)

    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        """Copies of the tenant's chunks among ``chunk_ids``; absent ids are left out."""
        found: dict[ChunkId, StoredChunk] = {}
        for chunk_id in chunk_ids:
            row = self._rows.get((tenant_id, chunk_id))
            if row is not None:
                found[chunk_id] = row.chunk.model_copy(deep=True)
        return found

    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        """Copies of the source's chunks ordered by ``(chunk_index, id)``."""
        chunks = [
            row.chunk.model_copy(deep=True)
            for row in self._tenant_rows(tenant_id)
            if row.chunk.source_id == source_id
        ]
        return sorted(chunks, key=lambda chunk: (chunk.chunk_index, chunk.id))

    async def get_by_entity(self, tenant_id: TenantId, entity_id: EntityId) -> list[StoredChunk]:
        """Copies of the chunks naming ``entity_id``, ascending by chunk id."""
        chunks = [
            row.chunk.model_copy(deep=True)
            for row in self._tenant_rows(tenant_id)
            if entity_id in row.chunk.entity_ids
        ]
        return sorted(chunks, key=lambda chunk: chunk.id)

    async def existing_ids(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> set[ChunkId]:
        """The ids among ``chunk_ids`` that the tenant holds."""
        return {chunk_id for chunk_id in chunk_ids if (tenant_id, chunk_id) in self._rows}

    async def list_sources(self, tenant_id: TenantId) -> dict[SourceId, int]:
        """Every source the tenant holds chunks of, with how many."""
        return dict(Counter(row.chunk.source_id for row in self._tenant_rows(tenant_id)))

    async def lexical_candidates(
        self, tenant_id: TenantId, terms: Collection[str]
    ) -> LexicalCandidates:
        """Term statistics over the tenant's whole corpus; never a ranking.

        Terms match whole tokens exactly as given. No terms yield no candidates and no
        document frequencies, while the corpus totals still describe the whole corpus.
        """
        wanted = list(dict.fromkeys(terms))
        corpus_size = 0
        total_length = 0
        document_frequencies = dict.fromkeys(wanted, 0)
        candidates: list[LexicalCandidate] = []
        for row in self._tenant_rows(tenant_id):
            corpus_size += 1
            total_length += row.length
            present = {term: row.frequencies[term] for term in wanted if row.frequencies[term]}
            for term in present:
                document_frequencies[term] += 1
            if present:
                candidates.append(
                    LexicalCandidate(
                        chunk_id=row.chunk.id, length=row.length, term_frequencies=present
                    )
                )
        candidates.sort(key=lambda candidate: candidate.chunk_id)
        return LexicalCandidates(
            corpus_size=corpus_size,
            total_length=total_length,
            document_frequencies=document_frequencies,
            candidates=candidates,
        )

    async def delete_by_source(self, tenant_id: TenantId, source_id: SourceId) -> int:
        """Remove the source's chunks and return how many there were."""
        return self._delete_where(tenant_id, lambda row: row.chunk.source_id == source_id)

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Remove every chunk of the tenant and return how many there were."""
        return self._delete_where(tenant_id, lambda row: True)

    def _delete_where(self, tenant_id: TenantId, doomed: _RowTest) -> int:
        keys = [key for key, row in self._rows.items() if key[0] == tenant_id and doomed(row)]
        for key in keys:
            del self._rows[key]
        return len(keys)

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
