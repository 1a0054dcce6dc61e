"""VectorStore: one embedding per entity, searched exactly by cosine within a tenant.

Rules (enforced by ``redstring.testing.vector_store.VectorStoreCompliance``):

* ``dimension`` is fixed at construction; every vector of another length raises
  :class:`~redstring.domain.errors.DimensionMismatchError`, on the way in and in ``search``.
* A zero vector, or one whose norm underflows in float32, raises
  :class:`~redstring.domain.errors.ZeroVectorError` (a ``ValueError``) on the way in and in
  ``search``: cosine is undefined at the origin.
* ``score`` is ``(1 + cosine) / 2``; ``min_score`` reads on that scale and is inclusive: a
  record scoring exactly ``min_score`` is kept.
* Filters (``entity_types``, ``min_score``, the tenant) apply **before** ``k``.
* Ties in score are broken by ascending entity id text.
* **Text arguments.** A ``str`` argument holding NUL or a lone surrogate (a tenant id, key,
  type or id) raises :class:`~redstring.domain.errors.InvalidArgumentError`, read or write,
  on every adapter (``redstring.ports.text_arguments``, ADR 0023).
* Tenancy, copies, idempotent last-write-wins upserts and read-your-writes hold as for every
  store. Storage may be float32: a float32-representable vector survives exactly.
* ``entity_types`` filters on ``metadata["entity_type"]`` read through :func:`entity_type_of`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol, runtime_checkable

from pydantic import JsonValue

from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.ports.lifecycle import AsyncClosable

ENTITY_TYPE_KEY = "entity_type"


def entity_type_of(metadata: Mapping[str, JsonValue]) -> str | None:
    """The entity type a record's metadata declares, or ``None``. Never raises.

    Only a string under ``"entity_type"`` counts; absent, ``None``, numbers, lists and objects
    match no type filter. Every adapter reads the convention through this one function.
    """
    value = metadata.get(ENTITY_TYPE_KEY)
    return value if isinstance(value, str) else None


@runtime_checkable
class VectorWriter(AsyncClosable, Protocol):
    """Writes embeddings."""

    @property
    def dimension(self) -> int:
        """The length of every vector this store holds."""
        ...

    async def upsert(self, tenant_id: TenantId, record: VectorRecord) -> None:
        """Insert or replace the vector of ``record.entity_id`` for the tenant."""
        ...

    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        """Insert or replace every record atomically; validates all before writing any."""
        ...


@runtime_checkable
class VectorReader(AsyncClosable, Protocol):
    """Reads embeddings and searches them."""

    @property
    def dimension(self) -> int:
        """The length of every vector this store holds."""
        ...

    async def get(self, tenant_id: TenantId, entity_id: EntityId) -> VectorRecord | None:
        """The stored record as a copy, or ``None``."""
        ...

    async def search(
        self,
        tenant_id: TenantId,
        query: Sequence[float],
        *,
        k: int = 10,
        entity_types: Collection[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        """The ``k`` best matches by score, descending, ties by ascending entity id text.

        ``entity_types=None`` means no type filter and ``[]`` matches nothing. Filters apply
        before ``k``. Raises ``ValueError`` for a negative ``k``.
        """
        ...


@runtime_checkable
class VectorPurge(AsyncClosable, Protocol):
    """Removes embeddings."""

    async def delete(self, tenant_id: TenantId, entity_id: EntityId) -> bool:
        """Remove one record; ``False`` when it was not there."""
        ...

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Remove every record of the tenant; returns how many."""
        ...


@runtime_checkable
class VectorStore(VectorWriter, VectorReader, VectorPurge, Protocol):
    """The whole vector port: writer, reader and purge."""
