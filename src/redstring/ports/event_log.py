"""EventLog: the append-only source of truth that every store is a projection of.

Rules (enforced by ``redstring.testing.event_log.EventLogCompliance``):

* **Optimistic concurrency per stream.** ``append`` with ``expected_version=n`` succeeds only
  when the tenant's stream holds exactly ``n`` events, else it raises
  :class:`~redstring.ports.errors.ConcurrencyConflictError` and writes nothing.
  ``expected_version=None`` appends unconditionally.
* **Idempotent by event id.** Appending events whose ids are all already in the tenant's
  stream returns the stored events and writes nothing, whatever ``expected_version`` says.
  A batch mixing stored and new ids raises ``ValueError``.
* **One order of checks** in ``append`` (ADR 0023): the stream name (also for an empty
  batch), then ``expected_version``, then ids repeated within the batch (also when stored:
  ``[A, A]`` raises), then the replay, then the conflict. Every call taking a stream name
  checks it.
* **Counting arguments are 64-bit.** ``after``, ``after_version``, ``limit``,
  ``expected_version`` and checkpoint positions are integers in ``0..2**63-1``
  (``redstring.domain.events.log_integer``); anything else raises ``InvalidArgumentError``,
  so a negative ``expected_version`` is an argument error, not a conflict.
* **Atomic.** A batch is appended whole or not at all; stream versions have no gaps.
* **Ordered.** ``position`` increases strictly across the whole log and is never reused,
  erasure included; ``read`` returns a tenant's events ascending by position, strictly
  after ``after``, which is a position (a tenant's positions have gaps where other tenants'
  events went), never an offset.
* **Checkpoints.** ``save_checkpoint`` stores a projection's position under a name, per
  tenant; ``checkpoint`` returns the last one saved (last write wins, so it may move backwards)
  or 0. A negative position or a name breaking the stream-name rule raises
  :class:`~redstring.domain.errors.InvalidArgumentError` and writes nothing.
* **Text arguments.** A ``str`` argument holding NUL or a lone surrogate (a tenant id, key,
  type or id) raises :class:`~redstring.domain.errors.InvalidArgumentError`, read or write,
  on every adapter (``redstring.ports.text_arguments``, ADR 0023).
* **Tenants.** ``tenants`` lists every tenant holding at least one event, in id order: a
  tenant with only checkpoints is not listed, and an erased one is gone. It is the one call
  that spans tenants, for operators (a command saying which tenants exist); a server must not
  hand it to a tenant's key.
* **Tenancy and copies** as for every store; ``delete_by_tenant`` erases the tenant's
  checkpoints and event ids with its events: an erased stream starts again at version 1
  and re-appending an erased event id stores it again.
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

    async def checkpoint(self, tenant_id: TenantId, name: str) -> int:
        """The position last saved under ``name`` for the tenant; 0 when none ever was.

        Raises :class:`~redstring.domain.errors.InvalidArgumentError` for an invalid name.
        """
        ...

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        """Remember ``position`` under ``name`` for the tenant, replacing any earlier one.

        Last write wins, even backwards: saving 0 is how a rebuild restarts a projection.
        ``name`` follows the stream-name rule (1-256 characters, no NUL, not starting with
        whitespace); a bad name or a negative ``position`` raises
        :class:`~redstring.domain.errors.InvalidArgumentError` and saves nothing.
        """
        ...

    async def tenants(self) -> list[TenantId]:
        """Every tenant with at least one event, in id order (ADR 0046)."""
        ...

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Erase every event and checkpoint of the tenant (right to erasure).

        Returns how many events were erased; checkpoints are not counted.
        """
        ...
