"""EventLogCompliance fails on each defect an EventLog adapter is known to ship with.

Each mutant is InMemoryEventLog with one planted defect. The suite must fail the named case on
it, and pass everything on the intact adapter, or the failure would say nothing about the
defect.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence

import pytest

from redstring.domain.events import NewEvent, StoredEvent, checkpoint_name
from redstring.domain.ids import TenantId
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.ports.event_log import EventLog
from redstring.testing.event_log import EventLogCompliance
from tests.lifecycle_mutants import lifecycle_mutants
from tests.suite_failures import failing_cases

_EVERYONE = TenantId("everyone")


class UncheckedVersionLog(InMemoryEventLog):
    """Optimistic concurrency forgotten: ``expected_version`` is accepted and ignored."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        return await super().append(tenant_id, stream, events)


class DuplicatingLog(InMemoryEventLog):
    """No lookup by event id, so a retried append stores its events a second time."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        self._by_id.clear()  # the planted defect: forget every id before looking one up
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class TenantBlindLog(InMemoryEventLog):
    """Keys compared on the stream and id alone: every tenant shares one log."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        return await super().append(_EVERYONE, stream, events, expected_version=expected_version)

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        return await super().read(_EVERYONE, after=after, limit=limit)

    async def read_stream(
        self, tenant_id: TenantId, stream: str, *, after_version: int = 0
    ) -> list[StoredEvent]:
        return await super().read_stream(_EVERYONE, stream, after_version=after_version)

    async def stream_version(self, tenant_id: TenantId, stream: str) -> int:
        return await super().stream_version(_EVERYONE, stream)

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        return await super().delete_by_tenant(_EVERYONE)


class LiveObjectsLog(InMemoryEventLog):
    """Reads hand out the same objects every time, so one caller's edit is everyone's."""

    def __init__(self) -> None:
        super().__init__()
        self._handed_out: dict[int, StoredEvent] = {}

    def _shared(self, events: list[StoredEvent]) -> list[StoredEvent]:
        return [self._handed_out.setdefault(item.position, item) for item in events]

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        stored = await super().append(tenant_id, stream, events, expected_version=expected_version)
        return self._shared(stored)

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        return self._shared(await super().read(tenant_id, after=after, limit=limit))

    async def read_stream(
        self, tenant_id: TenantId, stream: str, *, after_version: int = 0
    ) -> list[StoredEvent]:
        return self._shared(
            await super().read_stream(tenant_id, stream, after_version=after_version)
        )


class PieceByPieceLog(InMemoryEventLog):
    """A batch written one event at a time: a bad element leaves the ones before it behind."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        if len(events) <= 1:
            return await super().append(
                tenant_id, stream, events, expected_version=expected_version
            )
        stored: list[StoredEvent] = []
        for item in events:
            stored += await self.append(tenant_id, stream, [item])
        return stored


class TenantBlindCheckpointLog(InMemoryEventLog):
    """Checkpoints keyed by name alone: one tenant's projection resumes from another's position."""

    async def checkpoint(self, tenant_id: TenantId, name: str) -> int:
        return await super().checkpoint(_EVERYONE, name)

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        await super().save_checkpoint(_EVERYONE, name, position)


class UnerasedCheckpointLog(InMemoryEventLog):
    """Erasure forgets the checkpoints: an erased tenant's projections would skip its new events."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        kept = {key: value for key, value in self._checkpoints.items() if key[0] == tenant_id}
        erased = await super().delete_by_tenant(tenant_id)
        self._checkpoints.update(kept)
        return erased


class ForwardOnlyCheckpointLog(InMemoryEventLog):
    """A checkpoint that keeps the highest position saved, so a rebuild can never restart."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        current = await self.checkpoint(tenant_id, name)
        await super().save_checkpoint(tenant_id, name, max(current, position))


class NegativeCheckpointLog(InMemoryEventLog):
    """No range check: a negative position is stored as if it were one."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        self._checkpoints[(tenant_id, checkpoint_name(name))] = position


class OffsetLog(InMemoryEventLog):
    """``read(after=)`` as an OFFSET into the tenant's events, right only while positions
    are 1..n."""

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        if limit is not None:
            await super().read(tenant_id, limit=limit)  # the adapter's own argument check
        everything = await super().read(tenant_id)
        return everything[after:][:limit]


class ErasureKeepsTheIdIndex(InMemoryEventLog):
    """The event-id index survives ``delete_by_tenant``: an erased id answers as a retry."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        remembered = dict(self._by_id)
        erased = await super().delete_by_tenant(tenant_id)
        self._by_id.update(remembered)
        return erased


class IdPerStreamLog(InMemoryEventLog):
    """Ids looked up per stream: a stored id appended to another stream is stored again."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        for item in events:
            held = self._by_id.get((tenant_id, item.event_id))
            if held is not None and held.stream != stream:
                del self._by_id[(tenant_id, item.event_id)]
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class DeduplicatingBatchLog(InMemoryEventLog):
    """A batch naming one id twice is quietly collapsed to its last event."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        unique = list({item.event_id: item for item in events}.values())
        return await super().append(tenant_id, stream, unique, expected_version=expected_version)


class EmptyBatchIsAnErrorLog(InMemoryEventLog):
    """``INSERT ... VALUES`` built from no rows: an empty batch fails instead of doing nothing."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        if not events:
            raise RuntimeError("syntax error at or near ')'")
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class StrippingStreamLog(InMemoryEventLog):
    """Stream names trimmed instead of validated: " graph" lands in "graph"."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        name = stream.strip()[:256] or "default"
        return await super().append(tenant_id, name, events, expected_version=expected_version)


class NegativeLimitMeansNoneLog(InMemoryEventLog):
    """``LIMIT`` built with ``GREATEST(limit, 0)``: a negative page size reads as zero."""

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        return await super().read(
            tenant_id, after=after, limit=None if limit is None else max(limit, 0)
        )


class DoubleJsonLog(InMemoryEventLog):
    """A JSON layer that reads every number as a double: 2**70 comes back as a float."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        doubled = [
            item.model_copy(
                update={"payload": json.loads(json.dumps(item.payload), parse_int=float)}
            )
            for item in events
        ]
        return await super().append(tenant_id, stream, doubled, expected_version=expected_version)


MUTANTS: dict[type[InMemoryEventLog], str] = {
    UncheckedVersionLog: "test_a_stale_expected_version_raises_and_writes_nothing",
    DuplicatingLog: "test_re_appending_a_batch_returns_the_stored_events_and_writes_nothing",
    TenantBlindLog: "test_read_never_crosses_tenants",
    LiveObjectsLog: "test_read_returns_copies",
    PieceByPieceLog: "test_a_batch_mixing_stored_and_new_ids_raises_and_writes_nothing",
    TenantBlindCheckpointLog: "test_checkpoint_never_crosses_tenants",
    UnerasedCheckpointLog: "test_delete_by_tenant_erases_its_checkpoints_and_no_one_elses",
    ForwardOnlyCheckpointLog: "test_the_last_saved_checkpoint_wins_even_backwards",
    NegativeCheckpointLog: "test_a_negative_checkpoint_is_refused_and_saves_nothing",
    OffsetLog: "test_read_after_pages_by_position_over_interleaved_tenants",
    ErasureKeepsTheIdIndex: "test_re_appending_an_erased_event_id_writes_it_again",
    IdPerStreamLog: "test_an_event_id_belongs_to_one_stream_of_its_tenant",
    DeduplicatingBatchLog: "test_a_batch_naming_one_new_id_twice_raises_and_writes_nothing",
    EmptyBatchIsAnErrorLog: "test_an_empty_batch_writes_nothing_and_returns_nothing",
    StrippingStreamLog: "test_an_invalid_stream_name_raises_and_writes_nothing",
    NegativeLimitMeansNoneLog: "test_a_negative_limit_raises_value_error",
    DoubleJsonLog: "test_a_payload_round_trips_exactly",
    **lifecycle_mutants(InMemoryEventLog),
}


@functools.cache
def _failures(adapter: type[InMemoryEventLog]) -> dict[str, BaseException]:
    class Run(EventLogCompliance):
        async def new_store(self) -> EventLog:
            return adapter()

    return failing_cases(Run(), {"store": {"": adapter}})


def test_the_intact_adapter_passes_every_case() -> None:
    """The control: without it, a mutant's failures could be the runner's."""
    assert _failures(InMemoryEventLog) == {}


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda cls: cls.__name__)
def test_the_suite_catches_the_mutant(mutant: type[InMemoryEventLog]) -> None:
    """The case written for the defect fails on it."""
    failures = _failures(mutant)
    assert MUTANTS[mutant] in failures, f"{mutant.__name__} survived; failures: {sorted(failures)}"


@pytest.mark.parametrize("read", ["append", "read", "read_stream"])
@pytest.mark.parametrize(
    ("mutant", "suffix"),
    [(TenantBlindLog, "never_crosses_tenants"), (LiveObjectsLog, "returns_copies")],
    ids=["tenant-blind", "live-objects"],
)
def test_each_isolation_case_catches_its_leak(
    mutant: type[InMemoryEventLog], suffix: str, read: str
) -> None:
    """Every per-method tenant and copy case fails on the leak it names."""
    assert f"test_{read}_{suffix}" in _failures(mutant)


def test_the_generated_history_catches_an_unchecked_version() -> None:
    """The model-based property is evidence in its own right, not only the examples."""
    failures = _failures(UncheckedVersionLog)
    assert "test_a_history_of_appends_matches_a_model_of_the_log" in failures


ALONE = (
    UnerasedCheckpointLog,
    NegativeCheckpointLog,
    OffsetLog,
    ErasureKeepsTheIdIndex,
    IdPerStreamLog,
    DeduplicatingBatchLog,
    EmptyBatchIsAnErrorLog,
    StrippingStreamLog,
    NegativeLimitMeansNoneLog,
    DoubleJsonLog,
    *lifecycle_mutants(InMemoryEventLog),
)
"""Mutants exactly one case catches: weakening that case lets the mutant pass, visibly."""


@pytest.mark.parametrize("mutant", ALONE, ids=lambda cls: cls.__name__)
def test_the_mutant_is_caught_by_its_case_alone(mutant: type[InMemoryEventLog]) -> None:
    """Nothing else in the suite fails on it."""
    assert sorted(_failures(mutant)) == [MUTANTS[mutant]]
