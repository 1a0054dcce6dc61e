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

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.events import (
    NewEvent,
    StoredEvent,
    checkpoint_name,
    log_integer,
    stream_name,
)
from redstring.domain.ids import TenantId, new_event_id
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.ports.errors import ConcurrencyConflictError
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
    """No lower bound: a negative position is stored as if it were one."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        if position >= 0:
            await super().save_checkpoint(tenant_id, name, position)
            return
        self._checkpoints[(tenant_id, checkpoint_name(name))] = position


class OffsetLog(InMemoryEventLog):
    """``read(after=)`` as an OFFSET into the tenant's events, right only while positions
    are 1..n."""

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        await super().read(tenant_id, after=after, limit=limit)  # the adapter's argument checks
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
    """A batch of new events naming one id twice is quietly collapsed to its last event."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        if not any((tenant_id, item.event_id) in self._by_id for item in events):
            events = list({item.event_id: item for item in events}.values())
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


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
            stream_name(stream)  # the arguments are checked, then the empty INSERT fails
            if expected_version is not None:
                log_integer(expected_version, what="expected_version")
            raise RuntimeError("syntax error at or near ')'")
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class StrippingStreamLog(InMemoryEventLog):
    """The rows' stream name trimmed instead of validated: " graph" lands in "graph" (an
    empty batch builds no row, so the adapter's own check still sees the name)."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        name = (stream.strip()[:256] or "default") if events else stream
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


class Int32CheckpointLog(InMemoryEventLog):
    """Checkpoints in an ``integer`` column: positions past 2**31 wrap around."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        await super().save_checkpoint(tenant_id, name, position % 2**31)


class TruncatedCheckpointNameLog(InMemoryEventLog):
    """Checkpoint names in a 255-character column: the longest valid name loses its end."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        await super().save_checkpoint(tenant_id, name[:255], position)

    async def checkpoint(self, tenant_id: TenantId, name: str) -> int:
        return await super().checkpoint(tenant_id, name[:255])


class UnsavedCheckpointIsTheEndLog(InMemoryEventLog):
    """A projection never run starts at the end of the log instead of its beginning."""

    async def checkpoint(self, tenant_id: TenantId, name: str) -> int:
        checkpoint_name(name)
        if (tenant_id, name) in self._checkpoints:
            return self._checkpoints[(tenant_id, name)]
        return max((item.position for item in self._log.get(tenant_id, [])), default=0)


class ForgetfulCheckpointLog(InMemoryEventLog):
    """``save_checkpoint`` validates and then stores nothing."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        checkpoint_name(name)
        if position < 0:
            await super().save_checkpoint(tenant_id, name, position)


class OneCheckpointPerTenantLog(InMemoryEventLog):
    """Checkpoints keyed by tenant alone: every projection shares one position."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        checkpoint_name(name)
        await super().save_checkpoint(tenant_id, "shared", position)

    async def checkpoint(self, tenant_id: TenantId, name: str) -> int:
        checkpoint_name(name)
        return await super().checkpoint(tenant_id, "shared")


class StrippingCheckpointNameLog(InMemoryEventLog):
    """Checkpoint names trimmed and cut to fit instead of refused."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        fitted = name.strip().replace("\x00", "")[:256] or "default"
        await super().save_checkpoint(tenant_id, fitted, position)

    async def checkpoint(self, tenant_id: TenantId, name: str) -> int:
        fitted = name.strip().replace("\x00", "")[:256] or "default"
        return await super().checkpoint(tenant_id, fitted)


class NextVersionExpectedLog(InMemoryEventLog):
    """``expected_version`` read as the version the first new event will get (off by one)."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        if expected_version is not None:
            expected_version -= 1
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class StartsWithAnEventLog(InMemoryEventLog):
    """Not empty when handed over, as a log after an incomplete wipe would be."""

    def __init__(self) -> None:
        super().__init__()
        stored = StoredEvent(
            event_id=new_event_id(),
            type="Leftover",
            stream="entity-7f3a",
            stream_version=1,
            position=1,
        )
        self._last_position = 1
        self._log[TenantId("tenant-a")] = [stored]
        self._streams[(TenantId("tenant-a"), "entity-7f3a")] = [stored]
        self._by_id[(TenantId("tenant-a"), stored.event_id)] = stored


class StreamsSurviveErasureLog(InMemoryEventLog):
    """Erasure drops the tenant's log and ids but keeps its streams' versions."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        streams = {key: value for key, value in self._streams.items() if key[0] == tenant_id}
        erased = await super().delete_by_tenant(tenant_id)
        self._streams.update(streams)
        return erased


class StaleOnlyConflictLog(InMemoryEventLog):
    """Only an expected version behind the stream conflicts; one ahead of it appends."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        current = await self.stream_version(tenant_id, stream)
        if expected_version is not None and expected_version > current:
            expected_version = None
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class RenumberingLog(InMemoryEventLog):
    """Append answers with versions counted from 0, while reads say 1..n."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        stored = await super().append(tenant_id, stream, events, expected_version=expected_version)
        return [
            item.model_copy(update={"stream_version": item.stream_version - 1}) for item in stored
        ]


class CountsStreamsLog(InMemoryEventLog):
    """``delete_by_tenant`` counts the streams it erased, not the events."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        streams = {key for key in self._streams if key[0] == tenant_id}
        await super().delete_by_tenant(tenant_id)
        return len(streams)


class ErasingNobodyRaisesLog(InMemoryEventLog):
    """Erasing a tenant that holds nothing raises, as ``dict.pop`` without a default does."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        erased = await super().delete_by_tenant(tenant_id)
        if not erased:
            raise KeyError(tenant_id)
        return erased


class NoneMeansZeroLog(InMemoryEventLog):
    """An absent ``expected_version`` read as 0: only the first append of a stream works."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        expected = 0 if expected_version is None else expected_version
        return await super().append(tenant_id, stream, events, expected_version=expected)


class LimitBeforeAfterLog(InMemoryEventLog):
    """``LIMIT`` applied before the ``after`` filter: later pages come back short or empty."""

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        first = await super().read(tenant_id, limit=limit)
        return [item for item in first if item.position > after]


class PositionsRestartWhenEmptyLog(InMemoryEventLog):
    """The position counter is the log's highest position: an emptied log starts again at 1."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        erased = await super().delete_by_tenant(tenant_id)
        self._last_position = max(
            (item.position for events in self._log.values() for item in events), default=0
        )
        return erased


class PositionPerTenantLog(InMemoryEventLog):
    """A position counter per tenant: positions order one tenant's log, not the whole log."""

    def __init__(self) -> None:
        super().__init__()
        self._counters: dict[TenantId, int] = {}

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        self._last_position = self._counters.get(tenant_id, 0)
        stored = await super().append(tenant_id, stream, events, expected_version=expected_version)
        self._counters[tenant_id] = self._last_position
        return stored


class RetryEchoesTheCallerLog(InMemoryEventLog):
    """A retry answers with the caller's types and payloads at the stored versions."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        stored = await super().append(tenant_id, stream, events, expected_version=expected_version)
        return [
            item.model_copy(update={"type": new.type, "payload": new.payload})
            for item, new in zip(stored, events, strict=True)
        ]


class VersionCheckedBeforeRetryLog(InMemoryEventLog):
    """The version check runs before the id lookup: a retry after a lost reply conflicts."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        current = await self.stream_version(tenant_id, stream)
        if expected_version is not None:
            log_integer(expected_version, what="expected_version")
            if expected_version != current:
                raise ConcurrencyConflictError(
                    stream=stream, expected=expected_version, actual=current
                )
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class InclusiveAfterLog(InMemoryEventLog):
    """``position >= after``: the event a reader stopped at comes back again."""

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        return await super().read(tenant_id, after=max(after - 1, 0), limit=limit)


class ZeroLimitMeansAllLog(InMemoryEventLog):
    """``limit or None``: a page of zero reads everything."""

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        return await super().read(tenant_id, after=after, limit=limit or None)


class GroupedByStreamLog(InMemoryEventLog):
    """The tenant's log read stream by stream, not in position order."""

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        events = await super().read(tenant_id, after=after)
        grouped = sorted(events, key=lambda item: (item.stream, item.stream_version))
        return grouped if limit is None else grouped[:limit]


class InclusiveAfterVersionLog(InMemoryEventLog):
    """``stream_version >= after_version``."""

    async def read_stream(
        self, tenant_id: TenantId, stream: str, *, after_version: int = 0
    ) -> list[StoredEvent]:
        await super().read_stream(tenant_id, stream, after_version=after_version)  # its checks
        return await super().read_stream(tenant_id, stream, after_version=max(after_version - 1, 0))


class StreamFilterForgottenLog(InMemoryEventLog):
    """``read_stream`` returns the tenant's whole log."""

    async def read_stream(
        self, tenant_id: TenantId, stream: str, *, after_version: int = 0
    ) -> list[StoredEvent]:
        return [
            item for item in await super().read(tenant_id) if item.stream_version > after_version
        ]


class GappedVersionsLog(InMemoryEventLog):
    """Each later batch skips a version, as a sequence with a cache of two would."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        stored = await super().append(tenant_id, stream, events, expected_version=expected_version)
        gap = 1 if stored and stored[0].stream_version > 1 else 0
        return [
            item.model_copy(update={"stream_version": item.stream_version + gap}) for item in stored
        ]


class TenantWideVersionLog(InMemoryEventLog):
    """``expected_version`` checked against every event of the tenant, not the stream's."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        if expected_version is not None:
            held = len(self._log.get(tenant_id, []))
            if expected_version != held:
                raise ConcurrencyConflictError(
                    stream=stream, expected=expected_version, actual=held
                )
            expected_version = None
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class GlobalIdIndexLog(InMemoryEventLog):
    """Ids looked up across tenants: another tenant's id reads as this tenant's retry."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        for item in events:
            for (holder, event_id), held in list(self._by_id.items()):
                if event_id == item.event_id and holder != tenant_id:
                    return [held.model_copy(deep=True) for _ in events]
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class ReplaysBeforeCheckingRepeats(InMemoryEventLog):
    """The in-memory log's old order: a stored id returns ``[A, A]`` as two copies."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        known = [self._by_id.get((tenant_id, e.event_id)) for e in events]
        if events and all(item is not None for item in known):
            return [item.model_copy(deep=True) for item in known if item is not None]
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class NegativeVersionConflicts(InMemoryEventLog):
    """Compares a negative expected version with the stream's and reports a conflict."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        if expected_version is not None and expected_version < 0:
            actual = await self.stream_version(tenant_id, stream)
            raise ConcurrencyConflictError(stream=stream, expected=expected_version, actual=actual)
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class NamesCheckedOnlyWithEvents(InMemoryEventLog):
    """Validates a stream name only by building stored events, so ``[]`` skips the check."""

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        if not events:
            return []
        return await super().append(tenant_id, stream, events, expected_version=expected_version)


class UnboundedCheckpointLog(InMemoryEventLog):
    """Refuses negative positions only, so a position no SQL column holds is kept."""

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        if position < 0:
            raise InvalidArgumentError(f"position={position} is negative")
        self._checkpoints[(tenant_id, checkpoint_name(name))] = position


class ReadsNothingForUnstorableText(InMemoryEventLog):
    """Answers a NUL tenant with an empty log, where PostgreSQL raised a driver error."""

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        if "\x00" in tenant_id or "\ud800" in tenant_id:
            return []
        return await super().read(tenant_id, after=after, limit=limit)


class SharedTenantListLog(InMemoryEventLog):
    """Hands out its own list of tenants, so a caller's change sticks."""

    def __init__(self) -> None:
        super().__init__()
        self._listed: list[TenantId] | None = None

    async def tenants(self) -> list[TenantId]:
        if self._listed is None:
            self._listed = await super().tenants()
        return self._listed


class ErasureForgetsEveryoneLog(InMemoryEventLog):
    """An erasure empties the tenant list for everyone (one shared index of tenants)."""

    def __init__(self) -> None:
        super().__init__()
        self._erased_any = False

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        self._erased_any = True
        return await super().delete_by_tenant(tenant_id)

    async def tenants(self) -> list[TenantId]:
        return [] if self._erased_any else await super().tenants()


class CheckpointsCountAsTenantsLog(InMemoryEventLog):
    """Lists every tenant it has heard of: checkpoints only, and erased ones, included."""

    def __init__(self) -> None:
        super().__init__()
        self._heard: set[TenantId] = set()

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        await super().save_checkpoint(tenant_id, name, position)
        self._heard.add(tenant_id)

    async def tenants(self) -> list[TenantId]:
        return sorted(set(await super().tenants()) | self._heard)


MUTANTS: dict[type[InMemoryEventLog], str] = {
    CheckpointsCountAsTenantsLog: "test_tenants_lists_each_tenant_with_events_once_in_id_order",
    SharedTenantListLog: "test_tenants_returns_copies",
    ErasureForgetsEveryoneLog: "test_tenants_never_crosses_tenants",
    ReadsNothingForUnstorableText: "test_a_tenant_no_store_can_hold_is_refused",
    ReplaysBeforeCheckingRepeats: "test_a_batch_repeating_a_stored_id_raises",
    NegativeVersionConflicts: "test_a_negative_expected_version_is_an_argument_error",
    NamesCheckedOnlyWithEvents: "test_a_bad_stream_name_is_refused_by_every_call_taking_one",
    UnboundedCheckpointLog: "test_counting_arguments_are_64_bit_and_never_negative",
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
    Int32CheckpointLog: "test_a_checkpoint_beyond_32_bits_round_trips",
    TruncatedCheckpointNameLog: "test_a_checkpoint_name_of_256_characters_is_kept_whole",
    UnsavedCheckpointIsTheEndLog: "test_a_checkpoint_never_saved_is_zero",
    ForgetfulCheckpointLog: "test_a_saved_checkpoint_reads_back",
    OneCheckpointPerTenantLog: "test_checkpoints_under_different_names_are_independent",
    StrippingCheckpointNameLog: "test_an_invalid_checkpoint_name_is_refused_and_saves_nothing",
    NextVersionExpectedLog: "test_a_matching_expected_version_appends",
    StartsWithAnEventLog: "test_a_new_stream_is_at_version_zero_and_reads_empty",
    StreamsSurviveErasureLog: "test_an_erased_tenant_starts_again_at_version_one",
    StaleOnlyConflictLog: "test_an_expected_version_ahead_of_the_stream_raises",
    RenumberingLog: "test_append_returns_the_events_as_stored",
    CountsStreamsLog: "test_delete_by_tenant_erases_only_that_tenant_and_counts",
    ErasingNobodyRaisesLog: "test_delete_by_tenant_of_an_absent_tenant_returns_zero",
    NoneMeansZeroLog: "test_no_expected_version_appends_unconditionally",
    LimitBeforeAfterLog: "test_paging_with_after_and_limit_visits_every_event_once",
    PositionsRestartWhenEmptyLog: "test_positions_are_never_reused_after_an_erasure",
    PositionPerTenantLog: "test_positions_strictly_increase_across_tenants_and_streams",
    RetryEchoesTheCallerLog: "test_re_appending_returns_what_was_stored_not_what_was_passed",
    VersionCheckedBeforeRetryLog: (
        "test_re_appending_with_a_stale_expected_version_is_still_a_no_op"
    ),
    InclusiveAfterLog: "test_read_after_a_position_returns_only_later_events",
    ZeroLimitMeansAllLog: "test_read_honours_limit",
    GroupedByStreamLog: "test_read_returns_the_tenants_events_ascending_by_position",
    InclusiveAfterVersionLog: "test_read_stream_after_a_version_returns_only_later_events",
    StreamFilterForgottenLog: "test_read_stream_returns_only_that_stream_ascending",
    GappedVersionsLog: "test_stream_versions_continue_across_batches_without_gaps",
    TenantWideVersionLog: "test_the_conflict_check_applies_to_the_stream_not_the_tenant",
    GlobalIdIndexLog: "test_the_same_event_id_under_two_tenants_is_two_events",
}

ALSO_NAMED = {
    "test_a_history_of_appends_matches_a_model_of_the_log": UncheckedVersionLog,
    "test_append_never_crosses_tenants": TenantBlindLog,
    "test_read_stream_never_crosses_tenants": TenantBlindLog,
    "test_the_same_stream_name_under_two_tenants_is_two_streams": TenantBlindLog,
    "test_expected_version_is_checked_against_the_tenants_own_stream": TenantBlindLog,
    "test_expected_version_zero_creates_a_stream_only_once": UncheckedVersionLog,
    "test_append_returns_copies": LiveObjectsLog,
    "test_read_stream_returns_copies": LiveObjectsLog,
    "test_re_appending_part_of_an_earlier_batch_is_a_no_op": DuplicatingLog,
}
"""Cases named by a mutant whose own row names another case (checked below)."""

NO_MUTANT_OF_ITS_OWN = {
    "test_the_store_is_an_event_log": (
        "an isinstance smoke check: a log missing a member fails every case that calls it"
    ),
    "test_the_suite_is_run_unchanged": "the guard against overridden cases, tested in graph",
}
"""Suite cases no mutant names, and why none is written for them."""


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
    CheckpointsCountAsTenantsLog,
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
    UnsavedCheckpointIsTheEndLog,
    StrippingCheckpointNameLog,
    ErasingNobodyRaisesLog,
    VersionCheckedBeforeRetryLog,
    ZeroLimitMeansAllLog,
    InclusiveAfterVersionLog,
    *lifecycle_mutants(InMemoryEventLog),
)
"""Mutants exactly one case catches: weakening that case lets the mutant pass, visibly."""


@pytest.mark.parametrize("mutant", ALONE, ids=lambda cls: cls.__name__)
def test_the_mutant_is_caught_by_its_case_alone(mutant: type[InMemoryEventLog]) -> None:
    """Nothing else in the suite fails on it."""
    assert sorted(_failures(mutant)) == [MUTANTS[mutant]]


def test_every_case_is_named_by_a_mutant_or_says_why_not() -> None:
    """A new suite case arrives with its mutant; a case without one is a visible decision."""
    cases = {name for name in dir(EventLogCompliance) if name.startswith("test_")}
    named = set(MUTANTS.values()) | set(ALSO_NAMED)
    assert cases - named - set(NO_MUTANT_OF_ITS_OWN) == set()


@pytest.mark.parametrize("case", sorted(ALSO_NAMED))
def test_the_also_named_cases_catch_their_mutant(case: str) -> None:
    """Each extra name really fails on its mutant."""
    assert case in _failures(ALSO_NAMED[case])
