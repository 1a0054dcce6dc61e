"""InMemoryVectorStore: the VectorStore port by exact cosine scan over a dictionary.

Exact by construction, so it is the reference for the port's semantics: every search scores
every record of the tenant. With numpy importable (the ``embeddings`` extra brings it) a
search first scores the tenant's vectors as one float32 matrix product, then recomputes the
exact score (:func:`redstring.domain.vector.cosine_score`) of every record within the
product's error bound of the ``k``-th, so the answer is the same as the pure-Python scan's,
score for score; without numpy it is that scan. It passes
``redstring.testing.vector_store.VectorStoreCompliance`` unchanged either way.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import Any, Self

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


def _shortlist_margin(dimension: int) -> float:
    """How far below the ``k``-th matrix score a record is still rescored exactly.

    The matrix holds float32 unit rows and sums in float32 (one core, no BLAS threads): a dot
    product of ``n`` components then errs by at most about ``n * 2**-24``, and the score by
    half that. Twice a generous bound keeps every record within reach of the top ``k``, and
    ties are decided on exact scores.
    """
    return 4.0 * (dimension + 2) * 2.0**-24


VECTORISE_FROM = 64
"""The default ``vectorise_from``: smaller tenants are scanned in pure Python, where
building a matrix would cost more than it saves."""


def _numpy() -> ModuleType | None:
    try:
        return importlib.import_module("numpy")
    except ImportError:
        return None


class _Records(dict[tuple[TenantId, EntityId], VectorRecord]):
    """The store's records, counting writes per tenant so a tenant's matrix knows it is stale."""

    def __init__(self) -> None:
        super().__init__()
        self.versions: dict[TenantId, int] = {}

    def _touch(self, key: tuple[TenantId, EntityId]) -> None:
        self.versions[key[0]] = self.versions.get(key[0], 0) + 1

    def __setitem__(self, key: tuple[TenantId, EntityId], value: VectorRecord) -> None:
        self._touch(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: tuple[TenantId, EntityId]) -> None:
        self._touch(key)
        super().__delitem__(key)

    def pop(self, key: tuple[TenantId, EntityId], *default: Any) -> Any:
        self._touch(key)
        return super().pop(key, *default)


@dataclass(frozen=True)
class _Matrix:
    """One tenant's records as unit rows, built at ``version`` of that tenant's records."""

    version: int
    records: list[VectorRecord]
    types: list[str | None]
    rows: Any  # numpy float32 array of shape (len(records), dimension), unit rows
    masks: dict[frozenset[str], Any]  # entity_types -> boolean row mask, filled on use


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
    * ``vectorised``: ``None`` (default) uses numpy when it is importable, ``False`` never,
      ``True`` requires it (:class:`ImportError` without it); ``vectorise_from`` is the
      smallest tenant searched through a matrix. Results are identical either way.
    """

    def __init__(
        self,
        *,
        dimension: int,
        vectorised: bool | None = None,
        vectorise_from: int = VECTORISE_FROM,
    ) -> None:
        if dimension < 1:
            raise InvalidArgumentError(
                f"dimension must be a positive number of components, got {dimension}"
            )
        if vectorise_from < 1:
            raise InvalidArgumentError(f"vectorise_from must be at least 1, got {vectorise_from}")
        self._vectorise_from = vectorise_from
        self._dimension = dimension
        self._records: dict[tuple[TenantId, EntityId], VectorRecord] = _Records()
        self._np = None if vectorised is False else _numpy()
        if vectorised and self._np is None:
            raise ImportError("vectorised=True needs numpy: install the 'embeddings' extra")
        self._matrices: dict[TenantId, _Matrix] = {}

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
            # The record was validated on construction and its vector just now: no re-check.
            self._records[(tenant_id, record.entity_id)] = VectorRecord.model_construct(
                entity_id=record.entity_id,
                vector=self._float32(record.vector),
                metadata=copy.deepcopy(record.metadata),
            )

    def _float32(self, vector: Sequence[float]) -> list[float]:
        """``vector`` rounded to float32 (numpy rounds as ``float32_vector`` does, faster)."""
        if self._np is None:
            return float32_vector(vector)
        rounded: list[float] = self._np.asarray(vector, dtype=self._np.float32).tolist()
        return rounded

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
        query = self._float32(query)
        wanted = None if entity_types is None else frozenset(entity_types)
        candidates = self._shortlist(tenant_id, query, k, wanted, min_score)
        if candidates is None:
            candidates = [
                record
                for (owner, _), record in self._records.items()
                if owner == tenant_id
                and (wanted is None or entity_type_of(record.metadata) in wanted)
            ]
        scored: list[tuple[float, str, VectorRecord]] = []
        for record in candidates:
            score = cosine_score(query, record.vector)
            if min_score is not None and score < min_score:
                continue
            scored.append((score, id_text(record.entity_id), record))
        scored.sort(key=lambda hit: (-hit[0], hit[1]))
        return [
            VectorMatch(
                entity_id=record.entity_id,
                score=score,
                metadata=copy.deepcopy(record.metadata),
            )
            for score, _, record in scored[:k]
        ]

    def _shortlist(
        self,
        tenant_id: TenantId,
        query: list[float],
        k: int,
        wanted: frozenset[str] | None,
        min_score: float | None,
    ) -> list[VectorRecord] | None:
        """The tenant's records that may be in the top ``k``, found by one matrix product;
        ``None`` when the tenant is scanned in pure Python instead."""
        np = self._np
        matrix = self._matrix(tenant_id) if np is not None else None
        if np is None or matrix is None:
            return None
        unit = np.asarray(query, dtype=np.float64)
        unit = (unit / np.linalg.norm(unit)).astype(np.float32)
        # einsum, not ``@``: a matrix-vector product through BLAS spreads over threads that
        # cost more than they save on a busy machine (0.2 against 2.5 ms for 10k x 64 here).
        scores = (1.0 + np.einsum("ij,j->i", matrix.rows, unit).astype(np.float64)) / 2.0
        margin = _shortlist_margin(self._dimension)
        if wanted is not None:
            allowed = matrix.masks.get(wanted)
            if allowed is None:
                allowed = np.fromiter((t in wanted for t in matrix.types), bool, len(matrix.types))
                matrix.masks[wanted] = allowed
            scores[~allowed] = -np.inf
        if min_score is not None:
            scores[scores < min_score - margin] = -np.inf
        reachable = int(np.count_nonzero(scores > -np.inf))
        if k == 0 or reachable == 0:
            return []
        if reachable > k:
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            keep = np.flatnonzero(scores >= kth - margin)
        else:
            keep = np.flatnonzero(scores > -np.inf)
        return [matrix.records[index] for index in keep.tolist()]

    def _matrix(self, tenant_id: TenantId) -> _Matrix | None:
        """The tenant's unit-row matrix, rebuilt when its records changed; ``None`` for a
        tenant too small to be worth one."""
        assert self._np is not None
        np = self._np
        versions = getattr(self._records, "versions", {})
        version = versions.get(tenant_id, 0)
        cached = self._matrices.get(tenant_id)
        if cached is not None and cached.version == version:
            return cached
        records = [record for (owner, _), record in self._records.items() if owner == tenant_id]
        if len(records) < self._vectorise_from:
            self._matrices.pop(tenant_id, None)
            return None
        rows = np.array([record.vector for record in records], dtype=np.float64)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        types = [entity_type_of(record.metadata) for record in records]
        built = _Matrix(
            version=version,
            records=records,
            types=types,
            rows=np.ascontiguousarray(rows, dtype=np.float32),
            masks={},
        )
        self._matrices[tenant_id] = built
        return built

    async def delete(self, tenant_id: TenantId, entity_id: EntityId) -> bool:
        """Remove the tenant's record for ``entity_id``; ``False`` when it was not there."""
        return self._records.pop((tenant_id, entity_id), None) is not None

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Remove every record of the tenant and return how many there were."""
        doomed = [key for key in self._records if key[0] == tenant_id]
        for key in doomed:
            del self._records[key]
        return len(doomed)

    def index_problems(self) -> list[str]:
        """How the records and the search matrices break the store's rules; ``[]`` if not.

        Every record sits under its own entity id at this store's dimension, and a tenant's
        cached matrix that claims to be current (its version is the tenant's) holds exactly
        the tenant's records, with their types. For tests; it reads the whole store.
        """
        problems: list[str] = []
        by_tenant: dict[TenantId, dict[EntityId, VectorRecord]] = {}
        for (tenant_id, entity_id), record in self._records.items():
            if record.entity_id != entity_id:
                problems.append(f"record row {entity_id} holds entity {record.entity_id}")
            if len(record.vector) != self._dimension:
                problems.append(f"record {entity_id} has {len(record.vector)} components")
            by_tenant.setdefault(tenant_id, {})[entity_id] = record
        versions = getattr(self._records, "versions", {})
        for tenant_id, matrix in self._matrices.items():
            if matrix.version != versions.get(tenant_id, 0):
                continue  # stale, and rebuilt before its next use
            held = by_tenant.get(tenant_id, {})
            if {id(record) for record in matrix.records} != {id(r) for r in held.values()}:
                problems.append(f"the current matrix of {tenant_id!r} holds other records")
            if matrix.types != [entity_type_of(record.metadata) for record in matrix.records]:
                problems.append(f"the current matrix of {tenant_id!r} has stale types")
            if len(matrix.rows) != len(matrix.records):
                problems.append(f"the current matrix of {tenant_id!r} has a row per other record")
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
