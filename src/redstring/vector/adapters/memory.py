"""InMemoryVectorStore: the VectorStore port by brute-force cosine scan over a dictionary.

Exact by construction, so it is the reference for the port's semantics rather than a fast
store: every search scores every record of the tenant. It passes
``redstring.testing.vector_store.VectorStoreCompliance`` unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from types import TracebackType
from typing import Self

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, TenantId, id_text
from redstring.domain.vector import (
    VectorMatch,
    VectorRecord,
    cosine_score,
    float32_vector,
    validate_search,
    validate_vector,
)
from redstring.ports.text_arguments import checks_text_arguments
from redstring.ports.vector_store import entity_type_of


@checks_text_arguments()
class InMemoryVectorStore:
    """A tenant-scoped vector store held in process memory.

    * ``dimension`` is fixed at construction; any other length raises
      :class:`~redstring.domain.errors.DimensionMismatchError`, and a vector without a
      direction raises :class:`~redstring.domain.errors.ZeroVectorError`, on the way in and in
      ``search``.
    * Records are copied on the way in and on the way out: a caller mutating what it passed
      or what it got back never changes what the store holds.
    * ``close`` releases nothing and keeps the data: the store owns only dictionaries, and
      dropping them on close would make it a different store after an ``async with`` block.
    """

    def __init__(self, *, dimension: int) -> None:
        if dimension < 1:
            raise InvalidArgumentError(
                f"dimension must be a positive number of components, got {dimension}"
            )
        self._dimension = dimension
        self._records: dict[tuple[TenantId, EntityId], VectorRecord] = {}

    @property
    def dimension(self) -> int:
        """The length of every vector this store holds."""
        return self._dimension

    def _validate(self, vector: Sequence[float]) -> None:
        validate_vector(vector, dimension=self._dimension)

    async def upsert(self, tenant_id: TenantId, record: VectorRecord) -> None:
        """Insert or replace the tenant's vector for ``record.entity_id``."""
        await self.upsert_many(tenant_id, [record])

    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        """Insert or replace every record, or none: the whole batch is validated first."""
        for record in records:
            self._validate(record.vector)
        for record in records:
            # Stored as float32, as pgvector stores it, so both adapters score the same numbers.
            stored = record.model_copy(deep=True)
            stored.vector = float32_vector(record.vector)
            self._records[(tenant_id, record.entity_id)] = stored

    async def get(self, tenant_id: TenantId, entity_id: EntityId) -> VectorRecord | None:
        """A copy of the tenant's record for ``entity_id``, or ``None``."""
        record = self._records.get((tenant_id, entity_id))
        return None if record is None else record.model_copy(deep=True)

    async def search(
        self,
        tenant_id: TenantId,
        query: Sequence[float],
        *,
        k: int = 10,
        entity_types: Collection[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        """The ``k`` best matches of the tenant, every filter applied before ``k``.

        Ordered by score descending, ties by ascending entity id text. Raises
        :class:`~redstring.domain.errors.InvalidArgumentError` (a ``ValueError``) for a
        ``k`` outside ``0..MAX_K`` or a NaN ``min_score``. Vectors are stored as float32.
        """
        validate_search(k, min_score)
        self._validate(query)
        query = float32_vector(query)
        wanted = None if entity_types is None else frozenset(entity_types)
        scored: list[tuple[float, str, VectorRecord]] = []
        for (owner, entity_id), record in self._records.items():
            if owner != tenant_id:
                continue
            if wanted is not None and entity_type_of(record.metadata) not in wanted:
                continue
            score = cosine_score(query, record.vector)
            if min_score is not None and score < min_score:
                continue
            scored.append((score, id_text(entity_id), record))
        scored.sort(key=lambda hit: (-hit[0], hit[1]))
        return [
            VectorMatch(
                entity_id=record.entity_id,
                score=score,
                metadata=copy.deepcopy(record.metadata),
            )
            for score, _, record in scored[:k]
        ]

    async def delete(self, tenant_id: TenantId, entity_id: EntityId) -> bool:
        """Remove the tenant's record for ``entity_id``; ``False`` when it was not there."""
        return self._records.pop((tenant_id, entity_id), None) is not None

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Remove every record of the tenant and return how many there were."""
        doomed = [key for key in self._records if key[0] == tenant_id]
        for key in doomed:
            del self._records[key]
        return len(doomed)

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
