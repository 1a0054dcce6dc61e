"""InMemoryEventLog: the event log in dictionaries, for tests and single-process use.

It passes ``redstring.testing.event_log.EventLogCompliance`` unchanged. Beyond the port:

* Events are copied on the way in and on the way out, so neither the caller's objects nor
  the returned ones alias stored state. An event is held as one small record whose payload
  is its JSON text, and each copy handed out decodes that text: several times faster than a
  deep copy, the same value (a payload is JSON), and a large log then costs a fraction of the
  memory of its decoded objects and two objects per event for the garbage collector to visit
  instead of a model's five or more.
* An event id is unique within a tenant: appending an id the tenant already holds in
  *another* stream raises ``ValueError`` rather than storing it twice, and so does a batch
  naming one new id twice. An empty batch writes nothing and returns ``[]``.
* Positions come from one counter per log that never goes back, erasure included.
* Checkpoints live in their own dictionary keyed by tenant and name.
* ``close`` releases nothing (the dictionaries belong to the interpreter) and the log keeps
  its events after it, so ``async with`` around a block does not end the log's life.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Sequence
from types import TracebackType
from typing import NamedTuple, Self

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.events import (
    NewEvent,
    StoredEvent,
    checkpoint_name,
    log_integer,
    stream_name,
)
from redstring.domain.ids import EventId, TenantId
from redstring.ports.errors import ConcurrencyConflictError
from redstring.ports.text_arguments import checks_text_arguments


class _Record(NamedTuple):
    """An event as this log holds it: its fields, and its payload as JSON text."""

    event_id: EventId
    type: str
    stream: str
    stream_version: int
    position: int
    text: str


@checks_text_arguments(skip=("stream", "name"))
class InMemoryEventLog:
    """Append, read and erase a tenant's events held in process memory."""

    def __init__(self) -> None:
        # A subclass may hold StoredEvent objects here too; _copies reads both.
        self._log: dict[TenantId, list[_Record | StoredEvent]] = {}
        self._streams: dict[tuple[TenantId, str], list[_Record | StoredEvent]] = {}
        self._by_id: dict[tuple[TenantId, EventId], _Record | StoredEvent] = {}
        self._checkpoints: dict[tuple[TenantId, str], int] = {}
        self._last_position = 0

    async def append(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[StoredEvent]:
        """Append ``events`` to the tenant's ``stream`` whole, or raise having written nothing.

        A batch whose ids are all stored in this stream returns the stored events, whatever
        ``expected_version`` says; a batch mixing stored and new ids raises ``ValueError``; a
        stale ``expected_version`` raises :class:`ConcurrencyConflictError`.
        """
        # The port's order (ADR 0023): name, expected version, repeated ids, replay, conflict.
        stream_name(stream)
        if expected_version is not None:
            log_integer(expected_version, what="expected_version")
        _refuse_duplicate_ids(events)
        already = [self._by_id.get((tenant_id, item.event_id)) for item in events]
        known = [stored for stored in already if stored is not None]
        if known:
            return self._replay(tenant_id, stream, events, known)
        current = self._streams.get((tenant_id, stream), [])
        if expected_version is not None and expected_version != len(current):
            raise ConcurrencyConflictError(
                stream=stream, expected=expected_version, actual=len(current)
            )
        # Every record is built before anything is written: atomic.
        stored = [
            _Record(
                event_id=item.event_id,
                type=item.type,
                stream=stream,
                stream_version=len(current) + offset,
                position=self._last_position + offset,
                text=json.dumps(item.payload),
            )
            for offset, item in enumerate(events, start=1)
        ]
        if not stored:
            return []
        self._last_position = stored[-1].position
        self._log.setdefault(tenant_id, []).extend(stored)
        self._streams.setdefault((tenant_id, stream), []).extend(stored)
        for record in stored:
            self._by_id[(tenant_id, record.event_id)] = record
        return self._copies(tenant_id, stored)

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """The tenant's events with position > ``after``, ascending, at most ``limit``.

        Raises :class:`InvalidArgumentError` for a negative ``limit``.
        """
        log_integer(after, what="after")
        if limit is not None:
            log_integer(limit, what="limit")
        log = self._log.get(tenant_id, [])
        start = bisect_right(log, after, key=lambda item: item.position)
        end = None if limit is None else start + limit
        return self._copies(tenant_id, log[start:end])

    async def read_stream(
        self, tenant_id: TenantId, stream: str, *, after_version: int = 0
    ) -> list[StoredEvent]:
        """The stream's events with version > ``after_version``, ascending."""
        stream_name(stream)
        log_integer(after_version, what="after_version")
        events = self._streams.get((tenant_id, stream), [])
        return self._copies(tenant_id, events[after_version:])

    async def stream_version(self, tenant_id: TenantId, stream: str) -> int:
        """How many events the tenant's stream holds (0 for a new stream)."""
        return len(self._streams.get((tenant_id, stream_name(stream)), []))

    async def checkpoint(self, tenant_id: TenantId, name: str) -> int:
        """The position last saved under ``name`` for the tenant; 0 when none ever was."""
        return self._checkpoints.get((tenant_id, checkpoint_name(name)), 0)

    async def save_checkpoint(self, tenant_id: TenantId, name: str, position: int) -> None:
        """Remember ``position`` under ``name`` for the tenant; last write wins.

        Raises :class:`InvalidArgumentError` for a bad name or a negative position.
        """
        checkpoint_name(name)
        log_integer(position, what="checkpoint position")
        self._checkpoints[(tenant_id, checkpoint_name(name))] = position

    async def tenants(self) -> list[TenantId]:
        """Every tenant with at least one event, in id order."""
        return sorted(tenant for tenant, events in self._log.items() if events)

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Erase every event and checkpoint of the tenant; return how many events there were."""
        erased = self._log.pop(tenant_id, [])
        for key in [key for key in self._streams if key[0] == tenant_id]:
            del self._streams[key]
        for named in [named for named in self._checkpoints if named[0] == tenant_id]:
            del self._checkpoints[named]
        for item in erased:
            del self._by_id[(tenant_id, item.event_id)]
        return len(erased)

    def index_problems(self) -> list[str]:
        """How the stream and id indexes differ from the tenant logs; ``[]`` if not.

        Each tenant's log is the truth: its positions ascend and never pass the counter,
        its streams are it split by stream with versions 1..n, every event is found by its id
        and its stored text decodes to a JSON object. For tests; it reads the whole log.
        """
        problems: list[str] = []
        streams: dict[tuple[TenantId, str], list[_Record | StoredEvent]] = {}
        by_id: dict[tuple[TenantId, EventId], _Record | StoredEvent] = {}
        for tenant_id, log in self._log.items():
            positions = [item.position for item in log]
            if positions != sorted(set(positions)) or any(
                p > self._last_position for p in positions
            ):
                problems.append(f"tenant {tenant_id!r} holds positions {positions}")
            for item in log:
                streams.setdefault((tenant_id, item.stream), []).append(item)
                by_id[(tenant_id, item.event_id)] = item
        for key, events in self._streams.items():
            held = streams.get(key, [])
            if [id(item) for item in events] != [id(item) for item in held]:
                problems.append(f"stream {key!r} lists other events than its tenant's log")
            if [item.stream_version for item in events] != list(range(1, len(events) + 1)):
                problems.append(f"stream {key!r} has versions out of 1..{len(events)}")
        if missing := sorted(streams.keys() - self._streams.keys()):
            problems.append(f"streams missing from the stream index: {missing}")
        if by_id.keys() != self._by_id.keys() or any(
            self._by_id[key] is not item for key, item in by_id.items()
        ):
            problems.append("the id index and the logs hold different events")
        for event_key, item in by_id.items():
            if isinstance(item, _Record) and not isinstance(_decoded(item.text), dict):
                problems.append(f"the payload text of {event_key!r} is not a JSON object")
        return problems

    async def close(self) -> None:
        """Nothing to release; the log keeps its events."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @staticmethod
    def _copies(tenant_id: TenantId, events: Sequence[_Record | StoredEvent]) -> list[StoredEvent]:
        """Fresh events: the fields are immutable values and the payload is decoded anew from
        its text (an event a subclass stored as a model is copied whole)."""
        copies = []
        for item in events:
            if isinstance(item, StoredEvent):
                copies.append(item.model_copy(deep=True))
                continue
            # Validated when it was appended; built without validating it again.
            copies.append(
                StoredEvent.model_construct(
                    event_id=item.event_id,
                    type=item.type,
                    payload=json.loads(item.text),
                    stream=item.stream,
                    stream_version=item.stream_version,
                    position=item.position,
                )
            )
        return copies

    def _replay(
        self,
        tenant_id: TenantId,
        stream: str,
        events: Sequence[NewEvent],
        known: list[_Record | StoredEvent],
    ) -> list[StoredEvent]:
        if len(known) != len(events):
            fresh = len(events) - len(known)
            raise InvalidArgumentError(
                f"the batch for stream {stream!r} mixes {len(known)} stored and {fresh} new "
                "event ids: retry the stored events alone, or append the new ones alone"
            )
        elsewhere = sorted({item.stream for item in known if item.stream != stream})
        if elsewhere:
            raise InvalidArgumentError(
                f"tenant {tenant_id!r} already holds these event ids in stream(s) "
                f"{', '.join(map(repr, elsewhere))}, not {stream!r}: an event id belongs to "
                "one stream"
            )
        return self._copies(tenant_id, known)


def _refuse_duplicate_ids(events: Sequence[NewEvent]) -> None:
    seen: set[EventId] = set()
    for item in events:
        if item.event_id in seen:
            raise InvalidArgumentError(
                f"event id {item.event_id} appears twice in one batch: every event needs its own id"
            )
        seen.add(item.event_id)


def _decoded(text: str) -> object:
    """``text`` decoded as JSON, or ``None`` when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None
