"""ChunkStore: the passage corpus, with lexical term statistics for ranking.

Rules (enforced by ``redstring.testing.chunk_store.ChunkStoreCompliance``):

* Chunk ids are content-addressed, so two tenants can hold the same id: key on
  ``(tenant_id, id)`` and compare both parts.
* ``replace_source`` is one atomic operation, concurrent calls included: afterwards the
  source holds exactly one caller's chunks, and an empty sequence means "this source now
  has no chunks". Source ids are kept whole, however long.
* ``lexical_candidates`` returns term statistics and never ranks; ranking is
  ``redstring.domain.chunk_ranking`` so adapters cannot disagree about relevance. Text is
  tokenised with ``redstring.domain.chunk_ranking.tokenize``; every token is a term, ``null``
  included.
* ``lexical_candidates`` reads a bounded number of postings (ADR 0020): document
  frequencies for every term first, then the chunks of the terms
  ``chunk_ranking.selective_terms`` chooses within ``posting_budget``. A very common term
  is then counted in the candidates it appears in but never makes a chunk a candidate.
* ``get_by_source`` orders by ``(chunk_index, id)``, because ``chunk_index`` is not unique.
* ``get_by_entity`` can be bounded before it reads (ADR 0039): ``limit`` caps what it
  returns, and ``prefer`` names chunk ids (a caller's ranking, such as the lexical signal's)
  that come first, in that order, before the rest by id. An entity named in every passage
  then costs a query ``limit`` chunks, not the corpus.
* **Text arguments.** A ``str`` argument holding NUL or a lone surrogate (a tenant id, key,
  type or id) raises :class:`~redstring.domain.errors.InvalidArgumentError`, read or write,
  on every adapter (``redstring.ports.text_arguments``, ADR 0023).
* **Repeats** (ADR 0028). A chunk names each entity once: ``StoredChunk`` drops a repeated
  entity id (first position kept), and a store holds and indexes a chunk so even when its
  list skipped validation (``model_copy(update=...)``), so later replaces and deletes remove
  exactly what was written. A chunk id or term given twice to a read means what it means once.
* Tenancy, copies, idempotent last-write-wins upserts and read-your-writes as for every store.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol, runtime_checkable

from redstring.domain.chunk_ranking import DEFAULT_POSTING_BUDGET, LexicalCandidates
from redstring.domain.chunks import StoredChunk
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.ports.lifecycle import AsyncClosable


@runtime_checkable
class ChunkWriter(AsyncClosable, Protocol):
    """Writes passages."""

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        """Insert or replace every chunk in one atomic write; the last duplicate id wins.

        Last write wins across calls too: a chunk already held is replaced, never kept
        (insert-if-absent is a defect).
        """
        ...

    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        """Atomically make ``chunks`` the source's whole content (``[]`` empties it).

        Raises ``ValueError`` before writing anything if a chunk belongs to another source.
        """
        ...


@runtime_checkable
class ChunkReader(AsyncClosable, Protocol):
    """Reads passages by id, source and entity."""

    async def get(self, tenant_id: TenantId, chunk_id: ChunkId) -> StoredChunk | None:
        """The chunk as a copy, or ``None``."""
        ...

    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        """The tenant's chunks among ``chunk_ids`` (absent ids omitted), in one round trip."""
        ...

    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        """The source's chunks ordered by ``(chunk_index, id)``."""
        ...

    async def get_by_entity(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        limit: int | None = None,
        prefer: Sequence[ChunkId] = (),
    ) -> list[StoredChunk]:
        """Chunks whose ``entity_ids`` include ``entity_id``: those among ``prefer`` first, in
        ``prefer``'s order (an id repeated counts once), then the others ascending by chunk
        id; at most ``limit`` of them (``None``: all). A ``limit`` outside
        ``0..MAX_CHUNK_LIMIT`` raises :class:`~redstring.domain.errors.InvalidArgumentError`."""
        ...

    async def existing_ids(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> set[ChunkId]:
        """Which of ``chunk_ids`` the tenant already holds: how a re-run skips known text."""
        ...

    async def list_sources(self, tenant_id: TenantId) -> dict[SourceId, int]:
        """Every source of the tenant with its chunk count."""
        ...


@runtime_checkable
class LexicalCandidateSource(AsyncClosable, Protocol):
    """Term statistics for BM25."""

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        """Statistics for ``terms`` over the tenant's corpus; see ``LexicalCandidates``.

        Corpus totals and a document frequency for every term are exact. ``candidate_terms``
        is ``chunk_ranking.selective_terms(document_frequencies, posting_budget)``, and the
        candidates are exactly the chunks holding one of them, each with its count of every
        given term it holds; ``posting_budget=None`` makes every chunk holding any term a
        candidate. Terms are matched as whole tokens exactly as given; callers pass the
        output of ``chunk_ranking.query_terms``. No terms yield no candidates. Raises
        ``ValueError`` for a negative budget.
        """
        ...


@runtime_checkable
class ChunkPurge(AsyncClosable, Protocol):
    """Removes passages."""

    async def delete_by_source(self, tenant_id: TenantId, source_id: SourceId) -> int:
        """Remove the source's chunks; returns how many."""
        ...

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Remove every chunk of the tenant; returns how many."""
        ...


@runtime_checkable
class ChunkStore(ChunkWriter, ChunkReader, LexicalCandidateSource, ChunkPurge, Protocol):
    """The whole passage port: writer, reader, lexical source and purge."""


MAX_CHUNK_LIMIT = 10_000
"""The largest ``limit`` a bounded ``get_by_entity`` takes (``None`` reads them all)."""


def validate_chunk_limit(limit: int | None) -> None:
    """Raise ``InvalidArgumentError`` unless ``limit`` is ``None`` or in ``0..MAX_CHUNK_LIMIT``."""
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= MAX_CHUNK_LIMIT
    ):
        raise InvalidArgumentError(
            f"limit must be None or an int between 0 and {MAX_CHUNK_LIMIT}, got {limit!r}"
        )
