"""The Cache compliance suite: the executable definition of ``redstring.ports.cache``.

**Every Cache adapter must pass this suite unchanged.** An in-memory reference that is more
forgiving than the real backend lets a caller pass its tests on behaviour production does not
have, so the awkward cases (bytes, shared key space, what counts as a counter, inclusive
windows, duplicate hits, which TTLs are refreshed and which are not, sub-second, NaN and
infinite TTLs, key text that a careless backend folds together) are stated in port terms and
asserted identically for every adapter.

Opt in with a ``cache`` fixture, at module level or on the subclass, and an empty subclass::

    @pytest.fixture
    def cache() -> MemoryCache:
        return MemoryCache()

    class TestMemoryCache(CacheCompliance):
        ...

The fixture must return a fresh, open instance per test (one case closes its cache). It may
be async, and it may share one backend between tests: every case names its keys with a fresh
random suffix, so no flush is needed between tests or between hypothesis examples.

Time: window positions (``at``, ``since``) are arguments anchored on :data:`NOW`, never slept
for. Expiry is the backend's own clock, which a caller cannot supply, so the cases in the
"expiry" section really sleep, at most 0.5 s each. Adapter-specific tests should anchor on
the same :data:`NOW` rather than inventing another instant.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import time
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.errors import InvalidArgumentError
from redstring.ports.cache import LARGEST_COUNTER, MAX_TTL_SECONDS, MIN_TTL_SECONDS, Cache
from redstring.testing.harness import SuiteGuard
from redstring.testing.settings import compliance_settings

NOW = 1_700_000_000.0
"""The epoch instant every window case is anchored on: "ten minutes ago" is ``NOW - 600``."""

HOUR = 3600.0
"""A TTL long enough that no window case ever meets expiry."""

_SHORT_TTL = 0.05
_PAST_SHORT_TTL = 0.15

_NOT_COUNTERS = (" 4", "4 ", "+4", "4_0", "\u0664", "007", "-0", "4.5", "1e3", "", "open")
"""Values ``int()`` or ``float()`` parses, or nearly, that Redis ``INCR`` refuses."""

_OPERATIONS = ("set", "increment", "hit", "delete")
_TWINS = ("upper", "space", "braces", ":hits", ":value")


def _twin_of(key: str, how: str) -> str:
    """A key distinct from ``key`` that a careless adapter might store in the same place."""
    if how == "upper":
        return key.upper()
    if how == "space":
        return f"{key} "
    if how == "braces":
        return f"{{{key}}}"
    return f"{key}{how}"


def unique_key(name: str) -> str:
    """``name`` plus a random suffix, so cases sharing one backend never share a key."""
    return f"redstring-compliance:{name}:{uuid.uuid4().hex}"


class CacheCompliance(SuiteGuard):
    """Cases every Cache adapter passes; supply a module-level ``cache`` fixture.

    A failure names the port rule in the case's docstring; check that rule in
    ``redstring.ports.cache`` before suspecting the case.
    """

    # --- key/value --------------------------------------------------------------------

    async def test_the_cache_is_a_cache(self, cache: Cache) -> None:
        """The adapter has every member of the port (a smoke check before any behaviour)."""
        assert isinstance(cache, Cache)

    async def test_a_value_comes_back_as_str_not_bytes(self, cache: Cache) -> None:
        """``get`` returns ``str``: a Redis client left at its defaults returns bytes."""
        key = unique_key("greeting")
        await cache.set(key, "grüße, 東京")
        value = await cache.get(key)
        assert type(value) is str
        assert value == "grüße, 東京"

    async def test_a_missing_key_is_none(self, cache: Cache) -> None:
        """A key never written reads as ``None``, not an error and not an empty string."""
        assert await cache.get(unique_key("never-written")) is None

    async def test_set_overwrites_the_previous_value(self, cache: Cache) -> None:
        """The last ``set`` wins."""
        key = unique_key("state")
        await cache.set(key, "closed")
        await cache.set(key, "open")
        assert await cache.get(key) == "open"

    async def test_an_empty_string_is_a_value_not_a_missing_key(self, cache: Cache) -> None:
        """``""`` is stored and read back as ``""``; only an absent key is ``None``."""
        key = unique_key("empty")
        await cache.set(key, "")
        assert await cache.get(key) == ""

    async def test_delete_removes_a_value_and_tolerates_an_absent_key(self, cache: Cache) -> None:
        """After ``delete`` the key reads ``None``; deleting it again does not raise."""
        key = unique_key("doomed")
        await cache.set(key, "value")
        await cache.delete(key)
        assert await cache.get(key) is None
        await cache.delete(key)
        assert await cache.get(key) is None

    # --- counters ---------------------------------------------------------------------

    async def test_the_first_increment_returns_one(self, cache: Cache) -> None:
        """A missing counter is zero, so the first increment returns 1 (not 0, not None)."""
        assert await cache.increment(unique_key("failures")) == 1

    async def test_increments_count_up_by_one(self, cache: Cache) -> None:
        """Each increment returns the new count."""
        key = unique_key("failures")
        assert [await cache.increment(key) for _ in range(3)] == [1, 2, 3]

    async def test_a_counter_reads_back_as_its_decimal_string(self, cache: Cache) -> None:
        """``get`` and ``increment`` share one key space: two increments read back as "2"."""
        key = unique_key("failures")
        await cache.increment(key)
        await cache.increment(key)
        assert await cache.get(key) == "2"

    async def test_increment_continues_from_a_decimal_string_set_as_a_value(
        self, cache: Cache
    ) -> None:
        """``set(key, "4")`` then ``increment`` returns 5: how a breaker resets to a known count.

        An adapter storing counters in a private encoding fails here rather than in a caller.
        """
        key = unique_key("failures")
        await cache.set(key, "4")
        assert await cache.increment(key) == 5
        assert await cache.get(key) == "5"

    async def test_a_deleted_counter_starts_again_at_one(self, cache: Cache) -> None:
        """``delete`` removes the counter, so the next increment creates it afresh."""
        key = unique_key("failures")
        await cache.increment(key)
        await cache.increment(key)
        await cache.delete(key)
        assert await cache.increment(key) == 1

    async def test_incrementing_a_non_numeric_value_raises_value_error(self, cache: Cache) -> None:
        """A key holding text is not silently reset to 1, and the text is left in place."""
        key = unique_key("state")
        await cache.set(key, "open")
        with pytest.raises(ValueError, match=r"."):
            await cache.increment(key)
        assert await cache.get(key) == "open"

    async def test_increment_refuses_anything_but_a_plain_decimal_integer(
        self, cache: Cache
    ) -> None:
        """Only what Redis ``INCR`` accepts is a counter: ``int()`` is far more forgiving.

        Padding, a plus sign, underscores, leading zeros, ``-0`` and non-ASCII digits
        (``"٤"`` is Arabic-Indic four) all raise ``ValueError`` naming the key, and leave the
        value in place. A reference parsing with ``int()`` would let a caller pass its tests
        on counts production refuses.
        """
        for text in _NOT_COUNTERS:
            key = unique_key("failures")
            await cache.set(key, text)
            with pytest.raises(ValueError, match=re.escape(key)):
                await cache.increment(key)
            assert await cache.get(key) == text, f"increment over {text!r} changed the value"

    async def test_increment_continues_from_zero_and_negative_counts(self, cache: Cache) -> None:
        """``"0"`` and ``"-5"`` are decimal integers too: they count on to 1 and -4."""
        for text, expected in (("0", 1), ("-5", -4), ("41", 42)):
            key = unique_key("failures")
            await cache.set(key, text)
            assert await cache.increment(key) == expected
            assert await cache.get(key) == str(expected)

    # --- hit windows --------------------------------------------------------------------

    async def test_a_window_with_no_hits_is_empty(self, cache: Cache) -> None:
        """A key never hit counts zero and has no oldest hit."""
        key = unique_key("calls")
        assert await cache.count_hits(key, since=NOW - HOUR) == 0
        assert await cache.oldest_hit(key, since=NOW - HOUR) is None

    async def test_a_hit_exactly_at_since_is_counted(self, cache: Cache) -> None:
        """The window is inclusive at its lower bound (a naive ``>`` is not)."""
        key = unique_key("calls")
        await cache.record_hit(key, at=NOW - 60, ttl_seconds=HOUR)
        assert await cache.count_hits(key, since=NOW - 60) == 1
        assert await cache.oldest_hit(key, since=NOW - 60) == NOW - 60

    async def test_hits_before_the_window_are_not_counted(self, cache: Cache) -> None:
        """A hit ten minutes ago is outside a one-minute window; the one now is inside."""
        key = unique_key("calls")
        await cache.record_hit(key, at=NOW - 600, ttl_seconds=HOUR)
        await cache.record_hit(key, at=NOW, ttl_seconds=HOUR)
        assert await cache.count_hits(key, since=NOW - 60) == 1
        assert await cache.count_hits(key, since=NOW - 601) == 2

    async def test_two_hits_at_the_same_instant_count_as_two(self, cache: Cache) -> None:
        """Duplicates are kept: a member keyed on the timestamp would make the second an update."""
        key = unique_key("calls")
        await cache.record_hit(key, at=NOW, ttl_seconds=HOUR)
        await cache.record_hit(key, at=NOW, ttl_seconds=HOUR)
        assert await cache.count_hits(key, since=NOW) == 2

    async def test_oldest_hit_is_the_earliest_within_the_window(self, cache: Cache) -> None:
        """``oldest_hit`` ignores hits before ``since`` and whatever order hits were recorded in."""
        key = unique_key("calls")
        for at in (NOW - 30, NOW - 600, NOW - 45, NOW):
            await cache.record_hit(key, at=at, ttl_seconds=HOUR)
        assert await cache.oldest_hit(key, since=NOW - 60) == NOW - 45
        assert await cache.oldest_hit(key, since=NOW - 700) == NOW - 600

    async def test_a_hit_at_minus_zero_reads_back_as_zero(self, cache: Cache) -> None:
        """A hit recorded at ``-0.0`` is the hit at ``0.0``: ``oldest_hit`` answers ``0.0``,
        sign included, as Redis holds the score (issue 28). Equal as numbers, ``-0.0`` and
        ``0.0`` differ on the wire (``"-0.0"`` in JSON), so adapters must not. On failure
        normalise the instant on the way in (``ports.cache.check_instant`` returns it so).
        """
        key = unique_key("zero")
        await cache.record_hit(key, at=-0.0, ttl_seconds=HOUR)
        for since in (-0.0, 0.0, -1.0):
            oldest = await cache.oldest_hit(key, since=since)
            assert oldest == 0.0
            assert math.copysign(1.0, oldest) == 1.0, f"oldest_hit(since={since!r}) = {oldest!r}"
        assert await cache.count_hits(key, since=0.0) == 1

    async def test_oldest_hit_is_none_when_every_hit_precedes_since(self, cache: Cache) -> None:
        """Hits exist, but none in the window: ``None``, not the older hit."""
        key = unique_key("calls")
        await cache.record_hit(key, at=NOW - 600, ttl_seconds=HOUR)
        assert await cache.oldest_hit(key, since=NOW - 60) is None
        assert await cache.count_hits(key, since=NOW - 60) == 0

    async def test_a_hit_window_and_a_value_share_a_key_without_colliding(
        self, cache: Cache
    ) -> None:
        """One key may hold a value and a hit window; neither disturbs the other."""
        key = unique_key("shared")
        await cache.set(key, "half-open")
        await cache.record_hit(key, at=NOW, ttl_seconds=HOUR)
        await cache.increment(unique_key("unrelated"))
        assert await cache.get(key) == "half-open"
        assert await cache.count_hits(key, since=NOW) == 1

    async def test_a_counter_and_a_hit_window_share_a_key_without_colliding(
        self, cache: Cache
    ) -> None:
        """Incrementing a key with a hit window counts from 1 and leaves the hits alone."""
        key = unique_key("shared")
        await cache.record_hit(key, at=NOW, ttl_seconds=HOUR)
        assert await cache.increment(key) == 1
        assert await cache.count_hits(key, since=NOW) == 1

    async def test_delete_clears_the_value_and_the_hit_window(self, cache: Cache) -> None:
        """``delete(key)`` removes both halves of a shared key."""
        key = unique_key("shared")
        await cache.set(key, "open")
        await cache.record_hit(key, at=NOW, ttl_seconds=HOUR)
        await cache.delete(key)
        assert await cache.get(key) is None
        assert await cache.count_hits(key, since=NOW - HOUR) == 0
        assert await cache.oldest_hit(key, since=NOW - HOUR) is None

    @given(
        offsets=st.lists(st.integers(min_value=-20, max_value=20), max_size=12),
        since_offset=st.integers(min_value=-21, max_value=21),
    )
    @compliance_settings()
    async def test_windows_count_and_find_exactly_the_hits_at_or_after_since(
        self, cache: Cache, offsets: list[int], since_offset: int
    ) -> None:
        """Against an oracle: count and oldest over hits 30 s apart, duplicates and all.

        Each example uses its own key, because the fixture is shared by every example.
        """
        key = unique_key("calls")
        hits = [NOW + 30.0 * offset for offset in offsets]
        for at in hits:
            await cache.record_hit(key, at=at, ttl_seconds=HOUR)
        since = NOW + 30.0 * since_offset
        inside = [at for at in hits if at >= since]
        assert await cache.count_hits(key, since=since) == len(inside)
        assert await cache.oldest_hit(key, since=since) == min(inside, default=None)

    @given(
        name=st.text(min_size=1, max_size=12),
        twin=st.sampled_from(_TWINS),
        operations=st.lists(
            st.tuples(
                st.sampled_from(_OPERATIONS),
                st.booleans(),
            ),
            max_size=12,
        ),
    )
    @compliance_settings()
    async def test_any_key_text_keeps_its_value_and_hits_apart_from_every_other_key(
        self, cache: Cache, name: str, twin: str, operations: list[tuple[str, bool]]
    ) -> None:
        """Against a model: any mix of operations on two keys leaves each exactly as written.

        Keys are any text, braces and colons included, and the second key differs from the
        first only by case, a space, braces or a ``:hits``/``:value`` suffix: where derived
        backend keys collide, where a case-insensitive collation merges two keys, or where one
        key's value meets another key's hit window.
        """
        first = unique_key(name)
        keys = (first, _twin_of(first, twin))
        values: dict[str, str | None] = dict.fromkeys(keys)
        hits = dict.fromkeys(keys, 0)
        for step, (operation, on_twin) in enumerate(operations):
            key = keys[on_twin]
            if operation == "set":
                values[key] = str(step)
                await cache.set(key, str(step), ttl_seconds=HOUR if step % 2 else None)
            elif operation == "increment":
                current = values[key]
                count = 1 if current is None else int(current) + 1
                values[key] = str(count)
                ttl = HOUR if step % 2 else None
                assert await cache.increment(key, ttl_seconds=ttl) == count
            elif operation == "hit":
                hits[key] += 1
                await cache.record_hit(key, at=NOW + step, ttl_seconds=HOUR)
            else:
                values[key], hits[key] = None, 0
                await cache.delete(key)
            for each in keys:
                assert await cache.get(each) == values[each], f"get after {operation}"
                assert await cache.count_hits(each, since=NOW - HOUR) == hits[each]
                oldest = await cache.oldest_hit(each, since=NOW - HOUR)
                assert (oldest is None) == (hits[each] == 0), f"oldest_hit after {operation}"

    # --- expiry (the only cases that sleep: TTLs run on the backend's clock) -------------

    async def test_a_sub_second_ttl_really_expires(self, cache: Cache) -> None:
        """``ttl_seconds=0.05`` expires; whole-second truncation would make it never expire."""
        key = unique_key("brief")
        await cache.set(key, "value", ttl_seconds=_SHORT_TTL)
        assert await cache.get(key) == "value"
        await asyncio.sleep(_PAST_SHORT_TTL)
        assert await cache.get(key) is None

    async def test_a_counter_created_with_a_ttl_expires(self, cache: Cache) -> None:
        """A counter's TTL applies from its creation; once expired it counts from 1 again."""
        key = unique_key("failures")
        assert await cache.increment(key, ttl_seconds=_SHORT_TTL) == 1
        await asyncio.sleep(_PAST_SHORT_TTL)
        assert await cache.get(key) is None
        assert await cache.increment(key) == 1

    async def test_a_counters_ttl_is_not_refreshed_by_later_increments(self, cache: Cache) -> None:
        """The TTL is set when the counter is created and never extended.

        EXPIRE on every increment gives a failure count that only ever grows, so a breaker
        opens on failures minutes apart. Created at 0 with 0.12 s, incremented at 0.09 s
        (a refresh would move expiry to 0.21 s), checked at 0.15 s. A host too slow to keep
        those instants apart (the second increment after 0.12 s, or the check after 0.21 s)
        repeats the case at twice, four and eight times the scale, so a delay neither fails a
        correct adapter nor lets a refreshing one pass.
        """
        for scale in (1, 2, 4, 8):
            ttl = 0.12 * scale
            key = unique_key("failures")
            asked = time.monotonic()
            assert await cache.increment(key, ttl_seconds=ttl) == 1
            created = time.monotonic()
            await asyncio.sleep(0.09 * scale)
            incremented = time.monotonic()
            count = await cache.increment(key, ttl_seconds=ttl)
            if time.monotonic() - asked >= ttl:
                continue  # the counter may have expired before the second increment
            assert count == 2
            await asyncio.sleep(max(0.0, created + 0.15 * scale - time.monotonic()))
            value = await cache.get(key)
            if time.monotonic() - incremented >= ttl:
                continue  # a refreshed counter may have expired too: nothing told apart
            assert value is None
            return
        pytest.fail("the host was too slow to time a 0.96 s counter; rerun on a quieter one")

    async def test_each_hit_restarts_its_series_ttl(self, cache: Cache) -> None:
        """``record_hit`` moves the whole series' expiry to ``ttl_seconds`` after this call.

        Expiry set only by the first hit drops a live series mid-window, and a rate limit
        then admits a fresh burst. Hit at 0 with 0.4 s, hit again at 0.25 s (expiry moves to
        0.65 s), checked at 0.5 s: both hits are there. Any delay only moves the check
        later, so an adapter keeping the first expiry fails however loaded the host is.
        """
        key = unique_key("calls")
        await cache.record_hit(key, at=NOW, ttl_seconds=0.4)
        await asyncio.sleep(0.25)
        await cache.record_hit(key, at=NOW + 0.25, ttl_seconds=0.4)
        await asyncio.sleep(0.25)
        assert await cache.count_hits(key, since=NOW - HOUR) == 2
        assert await cache.oldest_hit(key, since=NOW - HOUR) == NOW

    async def test_set_without_a_ttl_clears_the_ttl_of_the_value_it_replaces(
        self, cache: Cache
    ) -> None:
        """A plain ``set`` replaces the value and its expiry: the new value never expires.

        ``SET ... KEEPTTL`` (or an update that leaves the old deadline) would expire the
        breaker's "closed" state along with the "open" it replaced.
        """
        key = unique_key("state")
        await cache.set(key, "open", ttl_seconds=_SHORT_TTL)
        await cache.set(key, "closed")
        await asyncio.sleep(_PAST_SHORT_TTL)
        assert await cache.get(key) == "closed"

    async def test_increment_with_a_ttl_puts_no_expiry_on_an_existing_key(
        self, cache: Cache
    ) -> None:
        """The TTL applies only when the increment creates the key, even if the key has none.

        ``INCR`` then ``EXPIRE``-when-there-is-no-TTL would make a count set without expiry
        (a breaker reset to a known count) vanish after the first increment's TTL.
        """
        key = unique_key("failures")
        await cache.set(key, "4")
        assert await cache.increment(key, ttl_seconds=_SHORT_TTL) == 5
        await asyncio.sleep(_PAST_SHORT_TTL)
        assert await cache.get(key) == "5"

    async def test_a_hit_series_expires_after_its_ttl(self, cache: Cache) -> None:
        """A series whose last hit was recorded with a short TTL is gone after it."""
        key = unique_key("calls")
        await cache.record_hit(key, at=NOW, ttl_seconds=_SHORT_TTL)
        assert await cache.count_hits(key, since=NOW) == 1
        await asyncio.sleep(_PAST_SHORT_TTL)
        assert await cache.count_hits(key, since=NOW - HOUR) == 0
        assert await cache.oldest_hit(key, since=NOW - HOUR) is None

    async def test_increment_is_exact_past_2_to_the_53(self, cache: Cache) -> None:
        """Counts past a double's exact range come back exactly, with and without a TTL."""
        for ttl in (None, HOUR):
            key = unique_key("big-counter")
            await cache.set(key, str(2**53))
            assert await cache.increment(key, ttl_seconds=ttl) == 2**53 + 1
            assert await cache.increment(key, ttl_seconds=ttl) == 2**53 + 2
            assert await cache.get(key) == str(2**53 + 2)

    async def test_a_counter_stops_at_64_bits(self, cache: Cache) -> None:
        """Incrementing ``LARGEST_COUNTER``, or a value past 64 bits, raises and keeps the value."""
        for held in (str(LARGEST_COUNTER), str(LARGEST_COUNTER + 1), str(-LARGEST_COUNTER - 2)):
            key = unique_key("full-counter")
            await cache.set(key, held)
            with pytest.raises(InvalidArgumentError, match=re.escape(repr(key))):
                await cache.increment(key)
            with pytest.raises(InvalidArgumentError):
                await cache.increment(key, ttl_seconds=HOUR)
            assert await cache.get(key) == held
        key = unique_key("almost-full")
        await cache.set(key, str(LARGEST_COUNTER - 1))
        assert await cache.increment(key) == LARGEST_COUNTER

    async def test_a_ttl_outside_the_ports_range_raises(self, cache: Cache) -> None:
        """Infinity, TTLs over ``MAX_TTL_SECONDS`` and under a millisecond are refused by every
        method taking a TTL, and write nothing; the bounds themselves are accepted (NaN has
        its own case)."""
        key = unique_key("odd-ttl")
        for ttl in (math.inf, 1e300, MAX_TTL_SECONDS * 2, MIN_TTL_SECONDS / 2):
            with pytest.raises(InvalidArgumentError, match="ttl_seconds"):
                await cache.set(key, "value", ttl_seconds=ttl)
            with pytest.raises(InvalidArgumentError, match="ttl_seconds"):
                await cache.increment(key, ttl_seconds=ttl)
            with pytest.raises(InvalidArgumentError, match="ttl_seconds"):
                await cache.record_hit(key, at=NOW, ttl_seconds=ttl)
        assert await cache.get(key) is None
        assert await cache.count_hits(key, since=NOW - HOUR) == 0
        await cache.set(key, "kept", ttl_seconds=MAX_TTL_SECONDS)
        assert await cache.get(key) == "kept"

    async def test_hit_times_must_be_finite(self, cache: Cache) -> None:
        """A NaN or infinite ``at`` or ``since`` raises ``InvalidArgumentError``, keeping hits."""
        key = unique_key("odd-time")
        await cache.record_hit(key, at=NOW, ttl_seconds=HOUR)
        for instant in (math.nan, math.inf, -math.inf):
            with pytest.raises(InvalidArgumentError, match="at="):
                await cache.record_hit(key, at=instant, ttl_seconds=HOUR)
            with pytest.raises(InvalidArgumentError, match="since="):
                await cache.count_hits(key, since=instant)
            with pytest.raises(InvalidArgumentError, match="since="):
                await cache.oldest_hit(key, since=instant)
        assert await cache.count_hits(key, since=NOW - HOUR) == 1

    # --- arguments and lifecycle ----------------------------------------------------------

    async def test_a_lone_surrogate_in_a_key_or_value_is_refused(self, cache: Cache) -> None:
        """No UTF-8 store holds a lone surrogate: every method refuses such a key, ``set``
        such a value, with ``InvalidArgumentError``, and nothing is written."""
        key = unique_key("surrogate")
        odd = f"{key}\ud800"
        calls = (
            lambda: cache.get(odd),
            lambda: cache.set(odd, "value"),
            lambda: cache.increment(odd),
            lambda: cache.delete(odd),
            lambda: cache.record_hit(odd, at=NOW, ttl_seconds=HOUR),
            lambda: cache.count_hits(odd, since=NOW),
            lambda: cache.oldest_hit(odd, since=NOW),
            lambda: cache.set(key, "value \udfff"),
        )
        for call in calls:
            with pytest.raises(InvalidArgumentError, match="surrogate"):
                await call()
        assert await cache.get(key) is None

    async def test_a_non_positive_ttl_raises_value_error(self, cache: Cache) -> None:
        """Zero and negative TTLs are refused by every method taking one, and write nothing."""
        key = unique_key("refused")
        for ttl in (0.0, -1.0):
            with pytest.raises(ValueError, match=r"."):
                await cache.set(key, "value", ttl_seconds=ttl)
            with pytest.raises(ValueError, match=r"."):
                await cache.increment(key, ttl_seconds=ttl)
            with pytest.raises(ValueError, match=r"."):
                await cache.record_hit(key, at=NOW, ttl_seconds=ttl)
        assert await cache.get(key) is None
        assert await cache.count_hits(key, since=NOW - HOUR) == 0

    async def test_a_nan_or_infinite_ttl_raises_value_error(self, cache: Cache) -> None:
        """NaN and infinity are not a number of seconds: refused everywhere, nothing written.

        ``ttl <= 0`` lets NaN through (every comparison with NaN is false), and an infinite
        TTL means "never expire" on one backend and an overflow on another.
        """
        key = unique_key("refused")
        for ttl in (math.nan, math.inf):
            with pytest.raises(ValueError, match=r"."):
                await cache.set(key, "value", ttl_seconds=ttl)
            with pytest.raises(ValueError, match=r"."):
                await cache.increment(key, ttl_seconds=ttl)
            with pytest.raises(ValueError, match=r"."):
                await cache.record_hit(key, at=NOW, ttl_seconds=ttl)
        assert await cache.get(key) is None
        assert await cache.count_hits(key, since=NOW - HOUR) == 0

    async def test_increment_refuses_a_bad_ttl_on_an_existing_counter_too(
        self, cache: Cache
    ) -> None:
        """The TTL is checked on every call, not only when the increment would create the key.

        The count is left as it was: a refused call increments nothing.
        """
        key = unique_key("failures")
        assert await cache.increment(key) == 1
        for ttl in (0.0, -1.0):
            with pytest.raises(ValueError, match=r"."):
                await cache.increment(key, ttl_seconds=ttl)
        assert await cache.get(key) == "1"

    async def test_close_is_safe_to_call_twice(self, cache: Cache) -> None:
        """A second ``close`` is a no-op, not an error."""
        await cache.close()
        await cache.close()

    async def test_the_block_form_closes_the_cache_once(self, cache: Cache) -> None:
        """Leaving ``async with cache`` calls ``cache.close()`` exactly once, also on an error."""
        calls: list[str] = []
        original = cache.close

        async def counting_close() -> None:
            calls.append("close")  # counted, not performed: closing twice is another case

        cache.close = counting_close  # type: ignore[method-assign]
        try:
            async with cache:
                pass
            assert calls == ["close"], f"close was called {len(calls)} times on leaving the block"
            with contextlib.suppress(RuntimeError):  # propagating it is another case
                async with cache:
                    raise RuntimeError("body failed")
            assert calls == ["close", "close"], "close was not called when the block raised"
        finally:
            cache.close = original  # type: ignore[method-assign]

    async def test_the_block_form_binds_the_cache_and_never_suppresses(self, cache: Cache) -> None:
        """``async with cache as bound`` binds the cache itself and lets exceptions through."""
        bound: list[Cache] = []

        async def fail_inside_the_block() -> None:
            async with cache as entered:
                bound.append(entered)
                raise RuntimeError("body failed")

        with pytest.raises(RuntimeError, match="body failed"):
            await fail_inside_the_block()
        assert len(bound) == 1
        assert bound[0] is cache


CacheCompliance.SUITE = CacheCompliance
