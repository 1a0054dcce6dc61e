"""The EventLog compliance suite: the executable definition of ``redstring.ports.event_log``.

**Every EventLog adapter must pass this suite unchanged.** The log is the source of truth
that every store is a projection of, so its rules are the ones a projection replays on:
positions that only grow, stream versions without gaps, optimistic concurrency per stream,
idempotent re-append by event id, atomic batches, strict tenancy and copies.

Opt in by implementing ``new_store()``::

    class TestMyEventLog(EventLogCompliance):
        async def new_store(self) -> EventLog:
            return MyEventLog()

``new_store()`` is called once per hypothesis example and must return an empty log isolated
from every other it returned; override ``dispose(store)`` when it acquired a connection (see
:class:`~redstring.testing.harness.StoreSuite`). Oracles are written from the port's prose;
positions are compared only by order, because a backend's sequence may leave gaps.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import JsonValue

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.events import NewEvent, StoredEvent
from redstring.domain.ids import TenantId, new_event_id
from redstring.ports.errors import ConcurrencyConflictError
from redstring.ports.event_log import EventLog
from redstring.testing.lifecycle import LifecycleCases
from redstring.testing.settings import compliance_settings
from redstring.testing.strategies import tenant_pairs

TENANT = TenantId("tenant-a")
OTHER_TENANT = TenantId("tenant-b")
STREAM = "entity-7f3a"
OTHER_STREAM = "source:notes.md"
PROJECTION = "graph"
OTHER_PROJECTION = "vectors"
INVALID_CHECKPOINT_NAMES = ("", f" {PROJECTION}", f"\t{PROJECTION}", "gra\x00ph", "g" * 257)
"""Names breaking the stream-name rule: empty, leading whitespace, NUL, 257 characters."""
INVALID_STREAM_NAMES = ("", f" {PROJECTION}", f"\t{PROJECTION}", "entity\x00-7", "s" * 257)
"""The same rule for streams: ``f" {PROJECTION}"`` resembles the valid ``PROJECTION``."""


def event(event_type: str = "EntityCreated", **payload: JsonValue) -> NewEvent:
    """A new event with a fresh id; ``payload`` keywords become its payload."""
    return NewEvent(event_id=new_event_id(), type=event_type, payload=dict(payload))


def events(count: int, event_type: str = "EntityCreated") -> list[NewEvent]:
    """``count`` new events numbered ``n=0..count-1`` in their payloads."""
    return [event(event_type, n=n) for n in range(count)]


def stored_as(new: NewEvent, *, stream: str, version: int, position: int) -> StoredEvent:
    """The oracle: ``new`` as the port says the log stores it."""
    return StoredEvent(
        event_id=new.event_id,
        type=new.type,
        payload=new.payload,
        stream=stream,
        stream_version=version,
        position=position,
    )


def snapshot(stored: list[StoredEvent]) -> list[StoredEvent]:
    """Deep copies of ``stored``: an expectation no adapter can alias, whatever it hands out.

    A copy test comparing a read with the very objects ``append`` returned passes against an
    adapter that hands out one shared object, because the mutation changes both sides.
    """
    return [item.model_copy(deep=True) for item in stored]


def positions(stored: list[StoredEvent]) -> list[int]:
    """The events' global positions, in the order given."""
    return [item.position for item in stored]


async def pages_of(
    store: EventLog, tenant: TenantId, *, size: int, at_most: int
) -> list[list[StoredEvent]]:
    """Read the tenant's log in pages of ``size``, each resuming after the last position read.

    Stops at the first empty page, and fails after ``at_most`` pages: an ``after`` that is
    not exclusive would otherwise return the same page for ever.
    """
    pages: list[list[StoredEvent]] = []
    after = 0
    while page := await store.read(tenant, after=after, limit=size):
        pages.append(page)
        assert len(pages) <= at_most, f"still reading after {at_most} pages: is after exclusive?"
        after = page[-1].position
    return pages


def strictly_increasing(values: list[int]) -> bool:
    """True when every value is greater than the one before it."""
    return all(earlier < later for earlier, later in itertools.pairwise(values))


@dataclass(frozen=True)
class _Append:
    """One step of a generated history: which tenant and stream, how many events, which check."""

    tenant: int
    stream: str
    count: int
    expectation: str  # "none", "current" or "stale"


_appends = st.builds(
    _Append,
    tenant=st.integers(min_value=0, max_value=1),
    stream=st.sampled_from((STREAM, OTHER_STREAM)),
    count=st.integers(min_value=1, max_value=3),
    expectation=st.sampled_from(("none", "current", "stale")),
)


class EventLogCompliance(LifecycleCases[EventLog]):
    """Cases every EventLog adapter passes; implement ``new_store()``.

    A failure names the port rule in the case's docstring; check that rule in
    ``redstring.ports.event_log`` before suspecting the case.
    """

    # --- ordering and versions ------------------------------------------------------------

    async def test_the_store_is_an_event_log(self, store: EventLog) -> None:
        """The adapter has every member of the port (a smoke check before any behaviour)."""
        assert isinstance(store, EventLog)

    async def test_a_new_stream_is_at_version_zero_and_reads_empty(self, store: EventLog) -> None:
        """A fresh log holds nothing for anyone."""
        assert await store.stream_version(TENANT, STREAM) == 0
        assert await store.read_stream(TENANT, STREAM) == []
        assert await store.read(TENANT) == []

    async def test_append_returns_the_events_as_stored(self, store: EventLog) -> None:
        """Ids, types and payloads survive; versions count 1..n; positions increase."""
        batch = [event("EntityCreated", name="Ada"), event("AliasAdded", alias="Countess")]
        stored = await store.append(TENANT, STREAM, batch)
        assert stored == [
            stored_as(new, stream=STREAM, version=version, position=item.position)
            for version, (new, item) in enumerate(zip(batch, stored, strict=True), start=1)
        ]
        assert strictly_increasing(positions(stored))

    async def test_stream_versions_continue_across_batches_without_gaps(
        self, store: EventLog
    ) -> None:
        """A second batch continues at the next version; ``stream_version`` is the count."""
        await store.append(TENANT, STREAM, events(2))
        second = await store.append(TENANT, STREAM, events(3))
        assert [item.stream_version for item in second] == [3, 4, 5]
        assert await store.stream_version(TENANT, STREAM) == 5

    async def test_positions_strictly_increase_across_tenants_and_streams(
        self, store: EventLog
    ) -> None:
        """``position`` orders the whole log: every append lands after every earlier one."""
        appended: list[StoredEvent] = []
        for tenant, stream in (
            (TENANT, STREAM),
            (OTHER_TENANT, STREAM),
            (TENANT, OTHER_STREAM),
            (OTHER_TENANT, OTHER_STREAM),
            (TENANT, STREAM),
        ):
            appended += await store.append(tenant, stream, events(2))
        assert strictly_increasing(positions(appended))

    async def test_read_returns_the_tenants_events_ascending_by_position(
        self, store: EventLog
    ) -> None:
        """Streams interleave in the tenant's log in the order they were appended."""
        appended = await store.append(TENANT, STREAM, events(1))
        appended += await store.append(TENANT, OTHER_STREAM, events(2))
        appended += await store.append(TENANT, STREAM, events(1))
        assert await store.read(TENANT) == appended

    async def test_read_after_a_position_returns_only_later_events(self, store: EventLog) -> None:
        """``after`` is exclusive; past the end there is nothing."""
        appended = await store.append(TENANT, STREAM, events(4))
        assert await store.read(TENANT, after=appended[1].position) == appended[2:]
        assert await store.read(TENANT, after=appended[-1].position) == []
        assert await store.read(TENANT, after=0) == appended

    async def test_read_honours_limit(self, store: EventLog) -> None:
        """At most ``limit`` events, the earliest ones; ``None`` means no limit."""
        appended = await store.append(TENANT, STREAM, events(4))
        assert await store.read(TENANT, limit=2) == appended[:2]
        assert await store.read(TENANT, limit=0) == []
        assert await store.read(TENANT, limit=10) == appended
        assert await store.read(TENANT, limit=None) == appended

    async def test_paging_with_after_and_limit_visits_every_event_once(
        self, store: EventLog
    ) -> None:
        """Resuming after the last position read, in pages of two, reassembles the log."""
        appended = await store.append(TENANT, STREAM, events(3))
        appended += await store.append(TENANT, OTHER_STREAM, events(2))
        pages = await pages_of(store, TENANT, size=2, at_most=len(appended) + 1)
        assert [len(page) for page in pages] == [2, 2, 1]
        assert [item for page in pages for item in page] == appended

    async def test_read_after_pages_by_position_over_interleaved_tenants(
        self, store: EventLog
    ) -> None:
        """``after`` is a global position, not an offset into the tenant's own events.

        Two tenants' appends interleave, so a tenant's positions have gaps; paging the
        tenant with ``after`` = the last position read, or resuming after another tenant's
        position, still visits each of its events once and in order. An adapter using
        ``after`` as an OFFSET passes every single-tenant case, where positions are 1..n.
        """
        mine: list[StoredEvent] = []
        theirs: list[StoredEvent] = []
        for _ in range(3):
            theirs += await store.append(OTHER_TENANT, STREAM, events(2))
            mine += await store.append(TENANT, STREAM, events(1))
        pages = await pages_of(store, TENANT, size=2, at_most=len(mine) + 1)
        assert [len(page) for page in pages] == [2, 1]
        assert [item for page in pages for item in page] == mine
        between = theirs[3].position  # between mine[0] and mine[1]
        expected = [item for item in mine if item.position > between]
        assert await store.read(TENANT, after=between) == expected
        assert await store.read(OTHER_TENANT, after=mine[0].position, limit=3) == theirs[2:5]

    async def test_read_stream_returns_only_that_stream_ascending(self, store: EventLog) -> None:
        """Other streams of the same tenant are not part of it."""
        first = await store.append(TENANT, STREAM, events(2))
        await store.append(TENANT, OTHER_STREAM, events(2))
        later = await store.append(TENANT, STREAM, events(1))
        assert await store.read_stream(TENANT, STREAM) == first + later

    async def test_read_stream_after_a_version_returns_only_later_events(
        self, store: EventLog
    ) -> None:
        """``after_version`` is exclusive."""
        appended = await store.append(TENANT, STREAM, events(4))
        assert await store.read_stream(TENANT, STREAM, after_version=2) == appended[2:]
        assert await store.read_stream(TENANT, STREAM, after_version=4) == []

    # --- optimistic concurrency -------------------------------------------------------------

    async def test_a_matching_expected_version_appends(self, store: EventLog) -> None:
        """``expected_version=n`` succeeds when the stream holds exactly ``n`` events."""
        await store.append(TENANT, STREAM, events(2), expected_version=0)
        stored = await store.append(TENANT, STREAM, events(1), expected_version=2)
        assert [item.stream_version for item in stored] == [3]

    async def test_a_stale_expected_version_raises_and_writes_nothing(
        self, store: EventLog
    ) -> None:
        """Another writer got there first: ``ConcurrencyConflictError``, nothing appended."""
        before = await store.append(TENANT, STREAM, events(2))
        with pytest.raises(ConcurrencyConflictError) as raised:
            await store.append(TENANT, STREAM, events(2), expected_version=1)
        assert (raised.value.expected, raised.value.actual) == (1, 2)
        assert await store.stream_version(TENANT, STREAM) == 2
        assert await store.read(TENANT) == before

    async def test_expected_version_zero_creates_a_stream_only_once(self, store: EventLog) -> None:
        """Two writers both creating the stream: the second conflicts."""
        await store.append(TENANT, STREAM, events(1), expected_version=0)
        with pytest.raises(ConcurrencyConflictError):
            await store.append(TENANT, STREAM, events(1), expected_version=0)
        assert await store.stream_version(TENANT, STREAM) == 1

    async def test_an_expected_version_ahead_of_the_stream_raises(self, store: EventLog) -> None:
        """Expecting more events than the stream holds is a conflict too, not a gap."""
        with pytest.raises(ConcurrencyConflictError):
            await store.append(TENANT, STREAM, events(1), expected_version=3)
        assert await store.stream_version(TENANT, STREAM) == 0
        assert await store.read(TENANT) == []

    async def test_no_expected_version_appends_unconditionally(self, store: EventLog) -> None:
        """``expected_version=None`` never conflicts."""
        await store.append(TENANT, STREAM, events(2))
        stored = await store.append(TENANT, STREAM, events(1), expected_version=None)
        assert [item.stream_version for item in stored] == [3]

    async def test_the_conflict_check_applies_to_the_stream_not_the_tenant(
        self, store: EventLog
    ) -> None:
        """Events in another stream of the tenant do not count towards this stream's version."""
        await store.append(TENANT, OTHER_STREAM, events(3))
        stored = await store.append(TENANT, STREAM, events(1), expected_version=0)
        assert [item.stream_version for item in stored] == [1]

    # --- idempotency by event id -------------------------------------------------------------

    async def test_re_appending_a_batch_returns_the_stored_events_and_writes_nothing(
        self, store: EventLog
    ) -> None:
        """A retried append is a no-op that answers as the first one did."""
        batch = events(3)
        first = await store.append(TENANT, STREAM, batch)
        again = await store.append(TENANT, STREAM, batch)
        assert again == first
        assert await store.read(TENANT) == first
        assert await store.stream_version(TENANT, STREAM) == 3

    async def test_re_appending_with_a_stale_expected_version_is_still_a_no_op(
        self, store: EventLog
    ) -> None:
        """Idempotency wins over the version check: a retry after a lost reply must not fail."""
        batch = events(2)
        first = await store.append(TENANT, STREAM, batch, expected_version=0)
        await store.append(TENANT, STREAM, events(1))
        again = await store.append(TENANT, STREAM, batch, expected_version=0)
        assert again == first
        assert await store.stream_version(TENANT, STREAM) == 3

    async def test_re_appending_returns_what_was_stored_not_what_was_passed(
        self, store: EventLog
    ) -> None:
        """The stored events come back, even when the retry carries a different payload."""
        original = event("EntityCreated", name="Ada")
        first = await store.append(TENANT, STREAM, [original])
        retry = NewEvent(event_id=original.event_id, type="EntityRenamed", payload={"name": "X"})
        assert await store.append(TENANT, STREAM, [retry]) == first
        assert await store.read(TENANT) == first

    async def test_re_appending_part_of_an_earlier_batch_is_a_no_op(self, store: EventLog) -> None:
        """Every id stored is enough; the ids need not form a whole earlier batch."""
        batch = events(3)
        first = await store.append(TENANT, STREAM, batch)
        assert await store.append(TENANT, STREAM, [batch[1]]) == [first[1]]
        assert await store.stream_version(TENANT, STREAM) == 3

    async def test_a_batch_mixing_stored_and_new_ids_raises_and_writes_nothing(
        self, store: EventLog
    ) -> None:
        """Half a retry is ambiguous: ``ValueError``, and not even the new events are written.

        The new event comes first in the batch, so an adapter that writes element by element
        and fails on reaching the stored id leaves a visible half-write.
        """
        stored = await store.append(TENANT, STREAM, events(1))
        newcomer = event("AliasAdded", alias="Countess")
        replayed = NewEvent(event_id=stored[0].event_id, type=stored[0].type)
        with pytest.raises(ValueError, match=r"."):
            await store.append(TENANT, STREAM, [newcomer, replayed])
        assert await store.read(TENANT) == stored
        assert await store.stream_version(TENANT, STREAM) == 1

    async def test_a_batch_repeating_a_stored_id_raises(self, store: EventLog) -> None:
        """``[A, A]`` is refused even when A is stored: the repeat is checked before the replay."""
        stored = await store.append(TENANT, STREAM, events(1))
        replayed = NewEvent(event_id=stored[0].event_id, type=stored[0].type)
        with pytest.raises(InvalidArgumentError, match=str(replayed.event_id)):
            await store.append(TENANT, STREAM, [replayed, replayed])
        assert await store.read(TENANT) == stored

    async def test_a_negative_expected_version_is_an_argument_error(self, store: EventLog) -> None:
        """No stream is at version -1: ``InvalidArgumentError``, not a concurrency conflict."""
        for batch in (events(1), []):
            with pytest.raises(InvalidArgumentError, match="-1"):
                await store.append(TENANT, STREAM, batch, expected_version=-1)
        assert await store.stream_version(TENANT, STREAM) == 0

    async def test_a_tenant_no_store_can_hold_is_refused(self, store: EventLog) -> None:
        """A NUL or lone surrogate in a tenant id raises ``InvalidArgumentError`` (ADR 0023)."""
        for bad in (TenantId("nu\x00l"), TenantId("sur\ud800")):
            with pytest.raises(InvalidArgumentError, match="tenant_id"):
                await store.append(bad, STREAM, events(1))
            with pytest.raises(InvalidArgumentError, match="tenant_id"):
                await store.read(bad)
            with pytest.raises(InvalidArgumentError, match="tenant_id"):
                await store.delete_by_tenant(bad)
        assert await store.read(TENANT) == []

    async def test_a_bad_stream_name_is_refused_by_every_call_taking_one(
        self, store: EventLog
    ) -> None:
        """The stream-name rule holds with no events to append and for reads, naming the value."""
        for bad in (" bad", "", "nu\x00l", "s" * 257):
            with pytest.raises(InvalidArgumentError, match="invalid stream name"):
                await store.append(TENANT, bad, [])
            with pytest.raises(InvalidArgumentError, match="invalid stream name"):
                await store.read_stream(TENANT, bad)
            with pytest.raises(InvalidArgumentError, match="invalid stream name"):
                await store.stream_version(TENANT, bad)

    async def test_counting_arguments_are_64_bit_and_never_negative(self, store: EventLog) -> None:
        """``after``, ``after_version``, ``limit``, ``expected_version`` and checkpoint positions
        take 0..2**63-1 on every backend; past 32 bits they are ordinary numbers."""
        stored = await store.append(TENANT, STREAM, events(1))
        unsaved = await store.checkpoint(TENANT, PROJECTION)
        assert await store.read_stream(TENANT, STREAM, after_version=2**31) == []
        assert await store.read(TENANT, after=2**62, limit=2**62) == []
        assert await store.read(TENANT, limit=2**63 - 1) == stored
        calls: dict[str, Callable[[], Awaitable[object]]] = {
            "read(after=2**63)": lambda: store.read(TENANT, after=2**63),
            "read(after=-1)": lambda: store.read(TENANT, after=-1),
            "read(limit=2**63)": lambda: store.read(TENANT, limit=2**63),
            "read_stream(after_version=2**63)": lambda: store.read_stream(
                TENANT, STREAM, after_version=2**63
            ),
            "read_stream(after_version=-1)": lambda: store.read_stream(
                TENANT, STREAM, after_version=-1
            ),
            "append(expected_version=2**63)": lambda: store.append(
                TENANT, STREAM, events(1), expected_version=2**63
            ),
            "save_checkpoint(2**63)": lambda: store.save_checkpoint(TENANT, PROJECTION, 2**63),
        }
        for call, run in calls.items():
            try:
                await run()
            except InvalidArgumentError:
                continue
            pytest.fail(f"{call} should raise InvalidArgumentError and returned")
        assert await store.read(TENANT) == stored
        assert await store.checkpoint(TENANT, PROJECTION) == unsaved

    async def test_an_event_id_belongs_to_one_stream_of_its_tenant(self, store: EventLog) -> None:
        """Appending a stored id to another stream raises ``ValueError`` and writes nothing.

        It is neither a retry (the stream differs) nor a new event (the id is taken); storing
        it again would give one event two versions.
        """
        stored = await store.append(TENANT, STREAM, events(1))
        again = NewEvent(event_id=stored[0].event_id, type=stored[0].type)
        with pytest.raises(ValueError, match=r"."):
            await store.append(TENANT, OTHER_STREAM, [again])
        assert await store.stream_version(TENANT, OTHER_STREAM) == 0
        assert await store.read(TENANT) == stored

    async def test_a_batch_naming_one_new_id_twice_raises_and_writes_nothing(
        self, store: EventLog
    ) -> None:
        """One id twice in a batch is a caller's mistake, not a retry: ``ValueError``."""
        twice = event("EntityCreated", name="Ada")
        with pytest.raises(ValueError, match=r"."):
            await store.append(TENANT, STREAM, [event(), twice, twice])
        assert await store.stream_version(TENANT, STREAM) == 0
        assert await store.read(TENANT) == []

    async def test_an_empty_batch_writes_nothing_and_returns_nothing(self, store: EventLog) -> None:
        """Nothing to append is not an error: ``[]`` back, and the stream does not move."""
        await store.append(TENANT, STREAM, events(1))
        assert await store.append(TENANT, STREAM, []) == []
        assert await store.append(TENANT, STREAM, [], expected_version=1) == []
        assert await store.stream_version(TENANT, STREAM) == 1
        assert len(await store.read(TENANT)) == 1

    async def test_an_invalid_stream_name_raises_and_writes_nothing(self, store: EventLog) -> None:
        """Stream names follow the checkpoint-name rule; a bad one raises ``ValueError`` naming
        the stream, and no valid name it resembles (``"x"`` for ``" x"``) gains an event."""
        for stream in INVALID_STREAM_NAMES:
            with pytest.raises(ValueError, match="stream"):
                await store.append(TENANT, stream, events(1))
        assert await store.read(TENANT) == []
        assert await store.stream_version(TENANT, PROJECTION) == 0

    async def test_a_negative_limit_raises_value_error(self, store: EventLog) -> None:
        """``limit=-1`` is refused, naming the value: not read as "no limit" nor as zero."""
        await store.append(TENANT, STREAM, events(2))
        with pytest.raises(ValueError, match="-1"):
            await store.read(TENANT, limit=-1)

    async def test_a_payload_round_trips_exactly(self, store: EventLog) -> None:
        """Any JSON survives: non-ASCII and escapes, NUL, integers past 64 bits, float extremes.

        A JSON column or driver that reads big integers as floats, or ``1e308`` as an int,
        changes what a projection replays.
        """
        payload: dict[str, JsonValue] = {
            "text": 'Zürich 東京 «quoted» "double" \\ back\nline',
            "nul": "a\x00b",
            "big": 2**70,
            "negative": -(2**64),
            "float": 0.1,
            "huge": 1e308,
            "tiny": 5e-324,
            "nested": [{"ß": None}, True, -0.5, []],
        }
        [stored] = await store.append(TENANT, STREAM, [event("Payload", **payload)])
        [read] = await store.read(TENANT)
        assert read == stored
        assert read.payload == payload
        assert type(read.payload["big"]) is int
        assert type(read.payload["huge"]) is float

    # --- tenancy -------------------------------------------------------------------------------

    async def test_the_same_stream_name_under_two_tenants_is_two_streams(
        self, store: EventLog
    ) -> None:
        """Versions, reads and counts of one tenant's stream ignore the other's."""
        mine = await store.append(TENANT, STREAM, events(2))
        theirs = await store.append(OTHER_TENANT, STREAM, events(1))
        assert [item.stream_version for item in theirs] == [1]
        assert await store.stream_version(TENANT, STREAM) == 2
        assert await store.stream_version(OTHER_TENANT, STREAM) == 1
        assert await store.read_stream(TENANT, STREAM) == mine

    async def test_expected_version_is_checked_against_the_tenants_own_stream(
        self, store: EventLog
    ) -> None:
        """Another tenant's events under the same stream name neither satisfy nor break a check."""
        await store.append(OTHER_TENANT, STREAM, events(2))
        stored = await store.append(TENANT, STREAM, events(1), expected_version=0)
        assert [item.stream_version for item in stored] == [1]
        with pytest.raises(ConcurrencyConflictError):
            await store.append(TENANT, STREAM, events(1), expected_version=2)

    async def test_the_same_event_id_under_two_tenants_is_two_events(self, store: EventLog) -> None:
        """An id stored for one tenant is new to another: it is written, not treated as a retry."""
        shared = event("EntityCreated", name="Ada")
        await store.append(TENANT, STREAM, [shared])
        theirs = await store.append(OTHER_TENANT, OTHER_STREAM, [shared])
        assert [(item.stream, item.stream_version) for item in theirs] == [(OTHER_STREAM, 1)]
        assert await store.read(OTHER_TENANT) == theirs
        assert await store.stream_version(TENANT, STREAM) == 1

    async def test_append_never_crosses_tenants(self, store: EventLog) -> None:
        """A retry answers with the tenant's own stored events, never another's with the same id."""
        shared_id = new_event_id()
        mine = await store.append(
            TENANT, STREAM, [NewEvent(event_id=shared_id, type="Seen", payload={"who": "a"})]
        )
        theirs = await store.append(
            OTHER_TENANT, STREAM, [NewEvent(event_id=shared_id, type="Seen", payload={"who": "b"})]
        )
        assert theirs[0].payload == {"who": "b"}
        retry = NewEvent(event_id=shared_id, type="Seen", payload={"who": "?"})
        assert await store.append(TENANT, STREAM, [retry]) == mine
        assert await store.append(OTHER_TENANT, STREAM, [retry]) == theirs

    async def test_read_never_crosses_tenants(self, store: EventLog) -> None:
        """A tenant's log holds only its own events, whichever streams they share names with."""
        mine = await store.append(TENANT, STREAM, events(2))
        theirs = await store.append(OTHER_TENANT, STREAM, events(2))
        mine += await store.append(TENANT, OTHER_STREAM, events(1))
        assert await store.read(TENANT) == mine
        assert await store.read(OTHER_TENANT) == theirs
        assert await store.read(TenantId("tenant-c")) == []

    async def test_read_stream_never_crosses_tenants(self, store: EventLog) -> None:
        """The same stream name under another tenant is another stream."""
        mine = await store.append(TENANT, STREAM, events(1))
        theirs = await store.append(OTHER_TENANT, STREAM, events(2))
        assert await store.read_stream(TENANT, STREAM) == mine
        assert await store.read_stream(OTHER_TENANT, STREAM) == theirs
        assert await store.read_stream(TenantId("tenant-c"), STREAM) == []

    # --- copies --------------------------------------------------------------------------------

    async def test_append_returns_copies(self, store: EventLog) -> None:
        """Mutating what append returned, or the events passed in, changes nothing stored."""
        batch = [event("EntityCreated", name="Ada", tags=["maths"])]
        stored = await store.append(TENANT, STREAM, batch)
        expected = snapshot(stored)
        stored[0].payload["name"] = "Mallory"
        stored[0].type = "Tampered"
        batch[0].payload["tags"] = ["forged"]
        assert await store.read(TENANT) == expected
        retried = await store.append(TENANT, STREAM, batch)
        retried[0].payload["name"] = "Eve"
        assert await store.read_stream(TENANT, STREAM) == expected

    async def test_read_returns_copies(self, store: EventLog) -> None:
        """Mutating an event read from the log changes nothing stored."""
        expected = snapshot(await store.append(TENANT, STREAM, [event(name="Ada", tags=["x"])]))
        first = await store.read(TENANT)
        first[0].payload["tags"] = ["forged"]
        first[0].stream_version = 99
        first.clear()
        assert await store.read(TENANT) == expected

    async def test_read_stream_returns_copies(self, store: EventLog) -> None:
        """Mutating an event read from a stream changes nothing stored."""
        expected = snapshot(await store.append(TENANT, STREAM, [event(name="Ada", tags=["x"])]))
        first = await store.read_stream(TENANT, STREAM)
        first[0].payload["tags"] = ["forged"]
        first[0].type = "Tampered"
        first.clear()
        assert await store.read_stream(TENANT, STREAM) == expected

    # --- erasure -------------------------------------------------------------------------------

    async def test_delete_by_tenant_erases_only_that_tenant_and_counts(
        self, store: EventLog
    ) -> None:
        """Every event of the tenant goes, in every stream; the other tenant keeps everything."""
        await store.append(TENANT, STREAM, events(2))
        await store.append(TENANT, OTHER_STREAM, events(1))
        theirs = await store.append(OTHER_TENANT, STREAM, events(2))
        assert await store.delete_by_tenant(TENANT) == 3
        assert await store.read(TENANT) == []
        assert await store.stream_version(TENANT, STREAM) == 0
        assert await store.read_stream(TENANT, OTHER_STREAM) == []
        assert await store.read(OTHER_TENANT) == theirs

    async def test_tenants_lists_each_tenant_with_events_once_in_id_order(
        self, store: EventLog
    ) -> None:
        """Empty at first; each tenant once however many events and streams it has, sorted;
        a tenant with only a checkpoint is not listed; an erased tenant is gone."""
        assert await store.tenants() == []
        await store.save_checkpoint(TenantId("only-a-checkpoint"), "graph", 3)
        await store.append(OTHER_TENANT, STREAM, events(2))
        await store.append(TENANT, STREAM, events(1))
        await store.append(TENANT, OTHER_STREAM, events(1))
        assert await store.tenants() == sorted([TENANT, OTHER_TENANT])
        await store.delete_by_tenant(TENANT)
        assert await store.tenants() == [OTHER_TENANT]

    async def test_tenants_returns_copies(self, store: EventLog) -> None:
        """Changing the list a call returned changes nothing the next call returns."""
        await store.append(TENANT, STREAM, events(1))
        first = await store.tenants()
        first.append(OTHER_TENANT)
        assert await store.tenants() == [TENANT]

    async def test_tenants_never_crosses_tenants(self, store: EventLog) -> None:
        """Erasing one tenant leaves every other listed; a tenant is listed by its own
        events only, never because another's stream has its name."""
        await store.append(TENANT, STREAM, events(1))
        await store.append(OTHER_TENANT, str(TENANT), events(1))
        await store.delete_by_tenant(OTHER_TENANT)
        assert await store.tenants() == [TENANT]
        await store.delete_by_tenant(TENANT)
        assert await store.tenants() == []

    async def test_delete_by_tenant_of_an_absent_tenant_returns_zero(self, store: EventLog) -> None:
        """Nothing to erase is not an error."""
        await store.append(OTHER_TENANT, STREAM, events(1))
        assert await store.delete_by_tenant(TENANT) == 0
        assert await store.delete_by_tenant(OTHER_TENANT) == 1
        assert await store.delete_by_tenant(OTHER_TENANT) == 0

    async def test_an_erased_tenant_starts_again_at_version_one(self, store: EventLog) -> None:
        """After erasure the stream is new: version 1, and an old event id is new again."""
        batch = events(2)
        await store.append(TENANT, STREAM, batch)
        await store.delete_by_tenant(TENANT)
        again = await store.append(TENANT, STREAM, batch, expected_version=0)
        assert [item.stream_version for item in again] == [1, 2]

    async def test_re_appending_an_erased_event_id_writes_it_again(self, store: EventLog) -> None:
        """Erasure forgets the tenant's event ids too: the same batch is new, and stored.

        An id index that survives ``delete_by_tenant`` turns the append into a "retry" that
        answers with the erased events and writes nothing; the versions it returns look
        right, so the read-back, the version and the new positions are what tell.
        """
        batch = events(2)
        before = await store.append(TENANT, STREAM, batch)
        await store.delete_by_tenant(TENANT)
        again = await store.append(TENANT, STREAM, batch)
        assert await store.read(TENANT) == again
        assert await store.read_stream(TENANT, STREAM) == again
        assert await store.stream_version(TENANT, STREAM) == 2
        assert min(positions(again)) > max(positions(before))

    async def test_positions_are_never_reused_after_an_erasure(self, store: EventLog) -> None:
        """A checkpoint taken before an erasure must not skip events written after it."""
        before = await store.append(TENANT, STREAM, events(2))
        await store.delete_by_tenant(TENANT)
        after = await store.append(TENANT, STREAM, events(1))
        assert after[0].position > before[-1].position

    # --- checkpoints ----------------------------------------------------------------------------

    async def test_a_checkpoint_never_saved_is_zero(self, store: EventLog) -> None:
        """A projection that never ran starts from the beginning of the log."""
        await store.append(TENANT, STREAM, events(2))
        assert await store.checkpoint(TENANT, PROJECTION) == 0

    async def test_a_saved_checkpoint_reads_back(self, store: EventLog) -> None:
        """``checkpoint`` returns what ``save_checkpoint`` stored, so a new process resumes."""
        appended = await store.append(TENANT, STREAM, events(3))
        await store.save_checkpoint(TENANT, PROJECTION, appended[1].position)
        assert await store.checkpoint(TENANT, PROJECTION) == appended[1].position

    async def test_the_last_saved_checkpoint_wins_even_backwards(self, store: EventLog) -> None:
        """Saving a lower position replaces a higher one: that is how a rebuild restarts at 0."""
        await store.save_checkpoint(TENANT, PROJECTION, 7)
        await store.save_checkpoint(TENANT, PROJECTION, 12)
        assert await store.checkpoint(TENANT, PROJECTION) == 12
        await store.save_checkpoint(TENANT, PROJECTION, 3)
        assert await store.checkpoint(TENANT, PROJECTION) == 3
        await store.save_checkpoint(TENANT, PROJECTION, 0)
        assert await store.checkpoint(TENANT, PROJECTION) == 0

    async def test_checkpoints_under_different_names_are_independent(self, store: EventLog) -> None:
        """Each projection keeps its own position; saving one leaves the others alone."""
        await store.save_checkpoint(TENANT, PROJECTION, 5)
        await store.save_checkpoint(TENANT, OTHER_PROJECTION, 9)
        await store.save_checkpoint(TENANT, PROJECTION, 2)
        assert await store.checkpoint(TENANT, PROJECTION) == 2
        assert await store.checkpoint(TENANT, OTHER_PROJECTION) == 9
        assert await store.checkpoint(TENANT, "passages") == 0

    async def test_checkpoint_never_crosses_tenants(self, store: EventLog) -> None:
        """The same name under two tenants is two checkpoints; a third tenant has none."""
        await store.save_checkpoint(TENANT, PROJECTION, 4)
        await store.save_checkpoint(OTHER_TENANT, PROJECTION, 8)
        assert await store.checkpoint(TENANT, PROJECTION) == 4
        assert await store.checkpoint(OTHER_TENANT, PROJECTION) == 8
        assert await store.checkpoint(TenantId("tenant-c"), PROJECTION) == 0

    async def test_delete_by_tenant_erases_its_checkpoints_and_no_one_elses(
        self, store: EventLog
    ) -> None:
        """Erasure takes the tenant's checkpoints too; the count still counts events only."""
        await store.append(TENANT, STREAM, events(2))
        await store.save_checkpoint(TENANT, PROJECTION, 6)
        await store.save_checkpoint(TENANT, OTHER_PROJECTION, 3)
        await store.save_checkpoint(OTHER_TENANT, PROJECTION, 5)
        assert await store.delete_by_tenant(TENANT) == 2
        assert await store.checkpoint(TENANT, PROJECTION) == 0
        assert await store.checkpoint(TENANT, OTHER_PROJECTION) == 0
        assert await store.checkpoint(OTHER_TENANT, PROJECTION) == 5

    async def test_a_negative_checkpoint_is_refused_and_saves_nothing(
        self, store: EventLog
    ) -> None:
        """``InvalidArgumentError`` naming the position; the checkpoint keeps its value."""
        await store.save_checkpoint(TENANT, PROJECTION, 4)
        with pytest.raises(InvalidArgumentError, match="-1"):
            await store.save_checkpoint(TENANT, PROJECTION, -1)
        with pytest.raises(InvalidArgumentError, match="-1"):
            await store.save_checkpoint(TENANT, OTHER_PROJECTION, -1)
        assert await store.checkpoint(TENANT, PROJECTION) == 4
        assert await store.checkpoint(TENANT, OTHER_PROJECTION) == 0

    async def test_an_invalid_checkpoint_name_is_refused_and_saves_nothing(
        self, store: EventLog
    ) -> None:
        """Names follow the stream-name rule; saving or reading a bad one raises, naming it,
        and no valid name it resembles (e.g. ``graph`` for ``" graph"``) gains a checkpoint."""
        for name in INVALID_CHECKPOINT_NAMES:
            with pytest.raises(InvalidArgumentError, match="invalid checkpoint name"):
                await store.save_checkpoint(TENANT, name, 3)
            with pytest.raises(InvalidArgumentError, match="invalid checkpoint name"):
                await store.checkpoint(TENANT, name)
        for resembling in (PROJECTION, "g" * 256):
            assert await store.checkpoint(TENANT, resembling) == 0

    async def test_a_checkpoint_name_of_256_characters_is_kept_whole(self, store: EventLog) -> None:
        """The longest valid name is stored as given, not truncated onto a shorter one."""
        longest = "p" * 256
        await store.save_checkpoint(TENANT, longest, 11)
        assert await store.checkpoint(TENANT, longest) == 11
        assert await store.checkpoint(TENANT, longest[:255]) == 0

    async def test_a_checkpoint_beyond_32_bits_round_trips(self, store: EventLog) -> None:
        """Positions of a long-lived log outgrow ``int32``; the checkpoint keeps every bit."""
        await store.save_checkpoint(TENANT, PROJECTION, 2**40)
        assert await store.checkpoint(TENANT, PROJECTION) == 2**40
        await store.save_checkpoint(TENANT, PROJECTION, 2**40 + 1)
        assert await store.checkpoint(TENANT, PROJECTION) == 2**40 + 1

    # --- a generated history against a model of the log ----------------------------------------

    @given(tenants=tenant_pairs(), history=st.lists(_appends, min_size=1, max_size=8))
    @compliance_settings()
    async def test_a_history_of_appends_matches_a_model_of_the_log(
        self, tenants: tuple[TenantId, TenantId], history: list[_Append]
    ) -> None:
        """Versions, conflicts, per-tenant reads and global order agree with the port's rules."""
        async with self.fresh_store() as store:
            model: dict[tuple[TenantId, str], list[StoredEvent]] = {}
            log: dict[TenantId, list[StoredEvent]] = {tenant: [] for tenant in tenants}
            every_position: list[int] = []
            for step in history:
                tenant = tenants[step.tenant]
                stream = model.setdefault((tenant, step.stream), [])
                expected = {
                    "none": None,
                    "current": len(stream),
                    "stale": len(stream) + 1,
                }[step.expectation]
                batch = events(step.count, event_type="Generated")
                if step.expectation == "stale":
                    with pytest.raises(ConcurrencyConflictError):
                        await store.append(tenant, step.stream, batch, expected_version=expected)
                    continue
                stored = await store.append(tenant, step.stream, batch, expected_version=expected)
                assert stored == [
                    stored_as(new, stream=step.stream, version=len(stream) + n, position=p)
                    for n, (new, p) in enumerate(zip(batch, positions(stored), strict=True), 1)
                ]
                stream.extend(stored)
                log[tenant].extend(stored)
                every_position.extend(positions(stored))
            assert strictly_increasing(every_position)
            for tenant in tenants:
                assert await store.read(tenant) == log[tenant]
            for (tenant, name), stream in model.items():
                assert await store.read_stream(tenant, name) == stream
                assert await store.stream_version(tenant, name) == len(stream)


EventLogCompliance.SUITE = EventLogCompliance
