"""EventLog: the append-only source of truth that every store is a projection of.

Rules (enforced by ``redstring.testing.event_log.EventLogCompliance``):

* **Optimistic concurrency per stream.** ``append`` with ``expected_version=n`` succeeds only
  when the tenant's stream holds exactly ``n`` events, else it raises
  :class:`~redstring.ports.errors.ConcurrencyConflictError` and writes nothing.
  ``expected_version=None`` appends unconditionally.
* **Idempotent by event id.** Appending events whose ids are all already in the tenant's
  stream returns the stored events and writes nothing, whatever ``expected_version`` says.
  A batch mixing stored and new ids raises ``ValueError``.
* **Atomic.** A batch is appended whole or not at all; stream versions have no gaps.
* **Ordered.** ``position`` increases strictly across the whole log; ``read`` returns a
  tenant's events ascending by position, strictly after ``after``.
* **Tenancy and copies** as for every store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from redstring.domain.events import NewEvent, StoredEvent
from redstring.domain.ids import TenantId
from redstring.ports.lifecycle import AsyncClosable


@runtime_checkable
class EventLog(AsyncClosable, Protocol):
    """Append, read and purge a tenant's events."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        """Append ``events`` to the tenant's ``stream``; returns them as stored, in order."""
        ...

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """The tenant's events with position > ``after``, ascending, at most ``limit``."""
        ...

    async def read_stream(
        self, tenant_id: TenantId, stream: str, *, after_version: int = 0
    ) -> list[StoredEvent]:
        """The stream's events with version > ``after_version``, ascending."""
        ...

    async def stream_version(self, tenant_id: TenantId, stream: str) -> int:
        """How many events the tenant's stream holds (0 for a new stream)."""
        ...

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Erase every event of the tenant (right to erasure); returns how many."""
        ...
