"""InMemoryEventLog runs the EventLog compliance suite unchanged, plus what only it promises."""

from __future__ import annotations

import pytest

from redstring.domain.events import StoredEvent
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.ports.event_log import EventLog
from redstring.testing.event_log import (
    OTHER_STREAM,
    OTHER_TENANT,
    STREAM,
    TENANT,
    EventLogCompliance,
    event,
    events,
)
from tests.index_checks import IndexDisagreementError, checking_indexes
from tests.unit.eventlog.test_suite_catches_mutants import (
    ErasureKeepsTheIdIndex,
    StreamsSurviveErasureLog,
)


class TestInMemoryEventLog(EventLogCompliance):
    """The suite unchanged, on a log that checks its indexes against its tenant logs after
    every call (``tests.index_checks``), property cases included."""

    async def new_store(self) -> EventLog:
        return checking_indexes(InMemoryEventLog)()


class TestInMemoryEventLogSpecifics:
    async def test_two_logs_share_nothing(self) -> None:
        """Each instance is its own log; nothing is module-level state."""
        first, second = InMemoryEventLog(), InMemoryEventLog()
        await first.append(TENANT, STREAM, events(2))
        assert await second.read(TENANT) == []
        assert await second.stream_version(TENANT, STREAM) == 0

    async def test_an_event_id_stored_in_another_stream_is_refused(self) -> None:
        """An id belongs to one stream of a tenant; the message names where it already is."""
        log = InMemoryEventLog()
        batch = events(1)
        await log.append(TENANT, STREAM, batch)
        with pytest.raises(ValueError, match=r"already holds these event ids in stream\(s\) "):
            await log.append(TENANT, OTHER_STREAM, batch)
        assert await log.stream_version(TENANT, OTHER_STREAM) == 0

    async def test_one_new_id_twice_in_a_batch_is_refused(self) -> None:
        """A batch naming the same new id twice would store one event twice."""
        log = InMemoryEventLog()
        duplicate = event()
        with pytest.raises(ValueError, match="appears twice in one batch"):
            await log.append(TENANT, STREAM, [duplicate, duplicate])
        assert await log.read(TENANT) == []

    async def test_the_mixed_batch_error_says_how_many_of_each(self) -> None:
        """The message counts stored and new ids and says what to do instead."""
        log = InMemoryEventLog()
        stored = events(2)
        await log.append(TENANT, STREAM, stored)
        with pytest.raises(ValueError, match="mixes 2 stored and 1 new event ids: retry"):
            await log.append(TENANT, STREAM, [*stored, event()])

    async def test_a_negative_limit_is_refused(self) -> None:
        """A negative page size names itself rather than slicing from the end."""
        log = InMemoryEventLog()
        with pytest.raises(ValueError, match=r"limit=-1 is out of range"):
            await log.read(TENANT, limit=-1)

    async def test_the_log_outlives_its_block(self) -> None:
        """``close`` releases nothing, so the events are still there after ``async with``."""
        async with InMemoryEventLog() as log:
            stored = await log.append(OTHER_TENANT, STREAM, events(1))
        assert await log.read(OTHER_TENANT) == stored


class TestTheIndexCheck:
    """``index_problems`` (run after every call of the suite above) sees what it is for."""

    async def test_it_names_an_id_index_that_outlived_its_events(self) -> None:
        """Erasure that keeps the id index fails at the erasure, before any retry shows it."""
        log = checking_indexes(ErasureKeepsTheIdIndex)()
        await log.append(TENANT, STREAM, events(2))
        with pytest.raises(IndexDisagreementError, match=r"after delete_by_tenant.*id index"):
            await log.delete_by_tenant(TENANT)

    async def test_it_names_streams_that_outlived_their_log(self) -> None:
        """Stream versions kept after erasure disagree with the (empty) tenant log."""
        log = checking_indexes(StreamsSurviveErasureLog)()
        await log.append(TENANT, STREAM, events(2))
        with pytest.raises(IndexDisagreementError, match="lists other events"):
            await log.delete_by_tenant(TENANT)

    async def test_it_names_a_payload_text_that_is_not_an_object(self) -> None:
        """An event held as text that does not decode to a JSON object is named."""
        log = InMemoryEventLog()
        await log.append(TENANT, STREAM, events(1))
        (held,) = log._log[TENANT]
        assert not isinstance(held, StoredEvent)
        broken = held._replace(text="[1, 2]")
        log._log[TENANT] = [broken]
        log._streams[(TENANT, STREAM)] = [broken]
        log._by_id[(TENANT, broken.event_id)] = broken
        assert log.index_problems() == [
            f"the payload text of {(TENANT, broken.event_id)!r} is not a JSON object"
        ]

    async def test_the_intact_log_passes_the_same_calls(self) -> None:
        """The control: the same calls on the unbroken log raise nothing."""
        log = checking_indexes(InMemoryEventLog)()
        await log.append(TENANT, STREAM, events(2))
        await log.append(TENANT, OTHER_STREAM, events(1))
        assert await log.delete_by_tenant(TENANT) == 3
        assert log.index_problems() == []
