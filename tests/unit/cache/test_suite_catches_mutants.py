"""CacheCompliance fails on each defect a Cache adapter is known to ship with.

Each mutant is MemoryCache with one planted defect, written against the public methods where
it can be. The suite must fail the named case on it, and pass everything on the intact
adapter, or the failure would say nothing about the defect.
"""

from __future__ import annotations

import functools
import math
import time

import pytest

from redstring.cache.adapters.memory import MemoryCache, _check_ttl
from redstring.domain.errors import InvalidArgumentError
from redstring.testing.cache import HOUR, CacheCompliance
from tests.suite_failures import failing_cases


class BytesCache(MemoryCache):
    """A Redis client left at its defaults: values come back as bytes."""

    async def get(self, key: str) -> str | None:
        value = await super().get(key)
        return None if value is None else value.encode()  # type: ignore[return-value]


class RefreshingTtlCache(MemoryCache):
    """PEXPIRE on every increment of a counter that has a TTL: the count never drains."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        count = await super().increment(key, ttl_seconds=ttl_seconds)
        if ttl_seconds is not None and self._values[key].deadline is not None:
            self._values[key].deadline = time.monotonic() + ttl_seconds
        return count


class Latin1Cache(MemoryCache):
    """The client's bytes decoded as Latin-1: ASCII survives, "grüße, 東京" does not."""

    async def get(self, key: str) -> str | None:
        value = await super().get(key)
        return None if value is None else value.encode().decode("latin-1")


class CollapsingHitsCache(MemoryCache):
    """A sorted set whose member is the timestamp: a second hit at one instant is an update."""

    def __init__(self) -> None:
        super().__init__()
        self._members: set[tuple[str, float]] = set()

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        _check_ttl(ttl_seconds)
        if (key, at) in self._members:
            return
        self._members.add((key, at))
        await super().record_hit(key, at=at, ttl_seconds=ttl_seconds)


class ExclusiveWindowCache(MemoryCache):
    """A naive ``>``: a hit exactly at ``since`` falls outside the window."""

    async def count_hits(self, key: str, *, since: float) -> int:
        return await super().count_hits(key, since=math.nextafter(since, math.inf))

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        return await super().oldest_hit(key, since=math.nextafter(since, math.inf))


class PrivateCounterCache(MemoryCache):
    """Counters kept in their own encoding, out of reach of ``get`` and ``set``."""

    def __init__(self) -> None:
        super().__init__()
        self._counters: dict[str, int] = {}

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        _check_ttl(ttl_seconds)
        self._counters[key] = self._counters.get(key, 0) + 1
        return self._counters[key]

    async def delete(self, key: str) -> None:
        self._counters.pop(key, None)
        await super().delete(key)


class WholeSecondTtlCache(MemoryCache):
    """``EX`` instead of ``PX``: 0.05 s truncates to zero seconds, i.e. no expiry at all."""

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        await super().set(key, value, ttl_seconds=_whole_seconds(ttl_seconds))

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        return await super().increment(key, ttl_seconds=_whole_seconds(ttl_seconds))

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        await super().record_hit(key, at=at, ttl_seconds=_whole_seconds(ttl_seconds) or HOUR)


def _whole_seconds(ttl_seconds: float | None) -> float | None:
    _check_ttl(ttl_seconds)
    if ttl_seconds is None:
        return ttl_seconds
    return float(int(ttl_seconds)) or None


class ResettingCounterCache(MemoryCache):
    """Text under a counter key silently restarts the count instead of raising."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        _check_ttl(ttl_seconds)
        try:
            return await super().increment(key, ttl_seconds=ttl_seconds)
        except ValueError:
            await self.set(key, "1")
            return 1


class FirstHitExpiryCache(MemoryCache):
    """The series' expiry is set by the hit that creates it and never moved by later hits."""

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        existing = self._live_series(key)
        first_deadline = None if existing is None else existing.deadline
        await super().record_hit(key, at=at, ttl_seconds=ttl_seconds)
        if first_deadline is not None:
            self._series[key].deadline = first_deadline


class IntParsingCache(MemoryCache):
    """Counters parsed with ``int()``: " 4", "+4", "4_0" and "٤" all count on."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        current = await self.get(key)
        if current is not None:
            try:
                parsed = int(current)
            except ValueError:
                pass
            else:
                self._values[key].text = str(parsed)
        return await super().increment(key, ttl_seconds=ttl_seconds)


class TtlCheckedOnlyOnCreationCache(MemoryCache):
    """The TTL is looked at only when the increment creates the counter, so it is never checked
    on an existing one."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        if await self.get(key) is not None:
            return await super().increment(key)
        return await super().increment(key, ttl_seconds=ttl_seconds)


class NanTtlCache(MemoryCache):
    """``ttl <= 0`` as the check: NaN compares false with everything and slips through."""

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        await super().set(key, value, ttl_seconds=_nan_as_none(ttl_seconds))

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        return await super().increment(key, ttl_seconds=_nan_as_none(ttl_seconds))

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        nan = math.isnan(ttl_seconds)
        await super().record_hit(key, at=at, ttl_seconds=HOUR if nan else ttl_seconds)


def _nan_as_none(ttl_seconds: float | None) -> float | None:
    return None if ttl_seconds is not None and math.isnan(ttl_seconds) else ttl_seconds


class KeepTtlCache(MemoryCache):
    """``SET ... KEEPTTL``: a value set without a TTL inherits the one it replaced."""

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        replaced = self._live_value(key)
        await super().set(key, value, ttl_seconds=ttl_seconds)
        if ttl_seconds is None and replaced is not None:
            self._values[key].deadline = replaced.deadline


class ExpireWhenNoTtlCache(MemoryCache):
    """``INCR`` then ``EXPIRE`` when the key has no TTL: an existing count gains an expiry."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        count = await super().increment(key, ttl_seconds=ttl_seconds)
        if ttl_seconds is not None and self._values[key].deadline is None:
            self._values[key].deadline = time.monotonic() + ttl_seconds
        return count


class CaseFoldingKeysCache(MemoryCache):
    """Keys compared case-insensitively, as a SQL table with a case-insensitive collation."""

    async def get(self, key: str) -> str | None:
        return await super().get(key.casefold())

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        await super().set(key.casefold(), value, ttl_seconds=ttl_seconds)

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        return await super().increment(key.casefold(), ttl_seconds=ttl_seconds)

    async def delete(self, key: str) -> None:
        await super().delete(key.casefold())

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        await super().record_hit(key.casefold(), at=at, ttl_seconds=ttl_seconds)

    async def count_hits(self, key: str, *, since: float) -> int:
        return await super().count_hits(key.casefold(), since=since)

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        return await super().oldest_hit(key.casefold(), since=since)


class ZeroTtlMeansForeverCache(MemoryCache):
    """A TTL of zero or less read as "no expiry", the way some clients treat ``EX 0``."""

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        await super().set(key, value, ttl_seconds=_positive_or_none(ttl_seconds))

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        return await super().increment(key, ttl_seconds=_positive_or_none(ttl_seconds))

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        await super().record_hit(key, at=at, ttl_seconds=_positive_or_none(ttl_seconds) or HOUR)


def _positive_or_none(ttl_seconds: float | None) -> float | None:
    return None if ttl_seconds is not None and ttl_seconds <= 0 else ttl_seconds


class ImmortalHitsCache(MemoryCache):
    """The series' TTL is never applied: a hit window is kept forever."""

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        await super().record_hit(key, at=at, ttl_seconds=ttl_seconds)
        self._series[key].deadline = math.inf


class CountsHitsAsCountCache(MemoryCache):
    """Counter and hits in one sorted set: a new counter starts from the number of hits."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        series = self._live_series(key)
        if self._live_value(key) is None and series is not None:
            await self.set(key, str(len(series.hits)), ttl_seconds=ttl_seconds)
        return await super().increment(key, ttl_seconds=ttl_seconds)


class ImmortalCounterCache(MemoryCache):
    """The TTL of a new counter checked, then never applied."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        _check_ttl(ttl_seconds)
        return await super().increment(key)


class FloatCounterCache(MemoryCache):
    """INCRBYFLOAT's encoding: a counter reads back as "2.0"."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        current = self._live_value(key)
        if current is not None and current.text.endswith(".0"):
            current.text = current.text[:-2]
        count = await super().increment(key, ttl_seconds=ttl_seconds)
        self._values[key].text = f"{count}.0"
        return count


class DeleteKeepsCountsCache(MemoryCache):
    """Counters in their own table that ``delete`` does not reach: a deleted count resumes."""

    def __init__(self) -> None:
        super().__init__()
        self._kept: dict[str, str] = {}

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        if self._live_value(key) is None and key in self._kept:
            await self.set(key, self._kept[key])
        count = await super().increment(key, ttl_seconds=ttl_seconds)
        self._kept[key] = str(count)
        return count


class HitsReplaceTheValueCache(MemoryCache):
    """One namespace for both halves: recording a hit drops the key's value."""

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        await super().record_hit(key, at=at, ttl_seconds=ttl_seconds)
        self._values.pop(key, None)


class NeverWrittenIsEmptyCache(MemoryCache):
    """A key never written reads as "" (a default), only a deleted one as None."""

    def __init__(self) -> None:
        super().__init__()
        self._written: set[str] = set()

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        self._written.add(key)
        await super().set(key, value, ttl_seconds=ttl_seconds)

    async def get(self, key: str) -> str | None:
        value = await super().get(key)
        return "" if value is None and key not in self._written else value


class OldestOfNothingIsSinceCache(MemoryCache):
    """``oldest_hit`` of a key with no series answers ``since`` rather than None."""

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        if self._live_series(key) is None:
            return since
        return await super().oldest_hit(key, since=since)


class EmptyIsMissingCache(MemoryCache):
    """``value or None``: the empty string reads as a missing key."""

    async def get(self, key: str) -> str | None:
        return (await super().get(key)) or None


class ExitLeavesItOpenCache(MemoryCache):
    """``__aexit__`` that returns without calling ``close``."""

    async def __aexit__(self, *exc: object) -> None:  # type: ignore[override]
        return None


class CloseOnceCache(MemoryCache):
    """A second ``close`` raises, as closing an already-closed client does."""

    _closed = False

    async def close(self) -> None:
        if self._closed:
            raise RuntimeError("already closed")
        self._closed = True
        await super().close()


class SwallowingBlockCache(MemoryCache):
    """``__aexit__`` returning True: the block's exception vanishes."""

    async def __aexit__(self, *exc: object) -> bool:  # type: ignore[override]
        await self.close()
        return True


class DeleteSparesHitsCache(MemoryCache):
    """``delete`` removes the value and leaves the hit window."""

    async def delete(self, key: str) -> None:
        self._values.pop(key, None)


class DeleteOfAbsentRaisesCache(MemoryCache):
    """``del`` without a default: deleting an absent key raises KeyError."""

    async def delete(self, key: str) -> None:
        if self._live_value(key) is None and self._live_series(key) is None:
            raise KeyError(key)
        await super().delete(key)


class CountsEveryHitCache(MemoryCache):
    """``count_hits`` ignores ``since``: ZCARD instead of ZCOUNT."""

    async def count_hits(self, key: str, *, since: float) -> int:
        return await super().count_hits(key, since=-math.inf)


class NonNegativeCountersCache(MemoryCache):
    """Counters matched with ``[0-9]+``: a negative count is refused as text."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        current = await self.get(key)
        if current is not None and current.startswith("-"):
            raise InvalidArgumentError(f"cannot increment {key!r}: {current!r} is not a counter")
        return await super().increment(key, ttl_seconds=ttl_seconds)


class StepsByTwoCache(MemoryCache):
    """Each increment after the first adds two (a retried INCR counted twice)."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        existed = self._live_value(key) is not None
        count = await super().increment(key, ttl_seconds=ttl_seconds)
        return await super().increment(key) if existed else count


class OldestOfAllWhenNoneInWindowCache(MemoryCache):
    """No hit in the window falls back to the oldest hit there is."""

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        found = await super().oldest_hit(key, since=since)
        return found if found is not None else await super().oldest_hit(key, since=-math.inf)


class OldestIsTheFirstRecordedCache(MemoryCache):
    """The first hit recorded in the window, not the earliest instant."""

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        series = self._live_series(key)
        if series is None:
            return None
        return next((hit for hit in series.hits if hit >= since), None)


class FirstSetWinsCache(MemoryCache):
    """``SET NX``: a value once set is never replaced by a later ``set``."""

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        _check_ttl(ttl_seconds)
        if self._live_value(key) is None:
            await super().set(key, value, ttl_seconds=ttl_seconds)


class ReturnsTheOldCountCache(MemoryCache):
    """``GETSET``-style: the increment returns the count before it, so the first is 0."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        return await super().increment(key, ttl_seconds=ttl_seconds) - 1


class UnboundedCounterCache(MemoryCache):
    """Counts on past 64 bits with Python's integers, as the in-memory cache did."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        held = await self.get(key)
        if held is not None and held.lstrip("-").isdigit():
            await self.set(key, str(int(held) + 1))
            return int(held) + 1
        return await super().increment(key, ttl_seconds=ttl_seconds)


class DoubleCountCache(MemoryCache):
    """Returns the count through a double, as the Redis Lua script did."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        return int(float(await super().increment(key, ttl_seconds=ttl_seconds)))


class AnyPositiveTtlCache(MemoryCache):
    """Takes every positive TTL, infinity and a microsecond included."""

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        if ttl_seconds is not None and ttl_seconds > 0:
            ttl_seconds = min(max(ttl_seconds, 0.001), 1e9)
        await super().set(key, value, ttl_seconds=ttl_seconds)


class NanTimesCache(MemoryCache):
    """Counts NaN-time windows as empty instead of refusing them."""

    async def count_hits(self, key: str, *, since: float) -> int:
        if math.isnan(since) or math.isinf(since):
            return 0
        return await super().count_hits(key, since=since)


class SurrogateValuesCache(MemoryCache):
    """Checks keys but stores a value holding a lone surrogate, which Redis cannot."""

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        await super().set(key, "", ttl_seconds=ttl_seconds)
        self._values[key].text = value  # the planted defect: the value is never checked


class SignedZeroHitsCache(MemoryCache):
    """Holds a hit at ``-0.0`` as given, as the in-memory cache did (Redis answers 0.0)."""

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        await super().record_hit(key, at=at, ttl_seconds=ttl_seconds)
        series = self._live_series(key)
        assert series is not None
        series.hits[-1] = at  # the planted defect: the sign of zero survives


MUTANTS: dict[type[MemoryCache], str] = {
    UnboundedCounterCache: "test_a_counter_stops_at_64_bits",
    DoubleCountCache: "test_increment_is_exact_past_2_to_the_53",
    AnyPositiveTtlCache: "test_a_ttl_outside_the_ports_range_raises",
    NanTimesCache: "test_hit_times_must_be_finite",
    SignedZeroHitsCache: "test_a_hit_at_minus_zero_reads_back_as_zero",
    SurrogateValuesCache: "test_a_lone_surrogate_in_a_key_or_value_is_refused",
    BytesCache: "test_a_value_comes_back_as_str_not_bytes",
    Latin1Cache: "test_a_value_comes_back_as_str_not_bytes",
    RefreshingTtlCache: "test_a_counters_ttl_is_not_refreshed_by_later_increments",
    CollapsingHitsCache: "test_two_hits_at_the_same_instant_count_as_two",
    ExclusiveWindowCache: "test_a_hit_exactly_at_since_is_counted",
    PrivateCounterCache: "test_increment_continues_from_a_decimal_string_set_as_a_value",
    WholeSecondTtlCache: "test_a_sub_second_ttl_really_expires",
    ResettingCounterCache: "test_incrementing_a_non_numeric_value_raises_value_error",
    FirstHitExpiryCache: "test_each_hit_restarts_its_series_ttl",
    IntParsingCache: "test_increment_refuses_anything_but_a_plain_decimal_integer",
    TtlCheckedOnlyOnCreationCache: "test_increment_refuses_a_bad_ttl_on_an_existing_counter_too",
    NanTtlCache: "test_a_nan_or_infinite_ttl_raises_value_error",
    KeepTtlCache: "test_set_without_a_ttl_clears_the_ttl_of_the_value_it_replaces",
    ExpireWhenNoTtlCache: "test_increment_with_a_ttl_puts_no_expiry_on_an_existing_key",
    CaseFoldingKeysCache: "test_any_key_text_keeps_its_value_and_hits_apart_from_every_other_key",
    ZeroTtlMeansForeverCache: "test_a_non_positive_ttl_raises_value_error",
    ImmortalHitsCache: "test_a_hit_series_expires_after_its_ttl",
    CountsHitsAsCountCache: "test_a_counter_and_a_hit_window_share_a_key_without_colliding",
    ImmortalCounterCache: "test_a_counter_created_with_a_ttl_expires",
    FloatCounterCache: "test_a_counter_reads_back_as_its_decimal_string",
    DeleteKeepsCountsCache: "test_a_deleted_counter_starts_again_at_one",
    HitsReplaceTheValueCache: "test_a_hit_window_and_a_value_share_a_key_without_colliding",
    NeverWrittenIsEmptyCache: "test_a_missing_key_is_none",
    OldestOfNothingIsSinceCache: "test_a_window_with_no_hits_is_empty",
    EmptyIsMissingCache: "test_an_empty_string_is_a_value_not_a_missing_key",
    CloseOnceCache: "test_close_is_safe_to_call_twice",
    ExitLeavesItOpenCache: "test_the_block_form_closes_the_cache_once",
    SwallowingBlockCache: "test_the_block_form_binds_the_cache_and_never_suppresses",
    DeleteSparesHitsCache: "test_delete_clears_the_value_and_the_hit_window",
    DeleteOfAbsentRaisesCache: "test_delete_removes_a_value_and_tolerates_an_absent_key",
    CountsEveryHitCache: "test_hits_before_the_window_are_not_counted",
    NonNegativeCountersCache: "test_increment_continues_from_zero_and_negative_counts",
    StepsByTwoCache: "test_increments_count_up_by_one",
    OldestOfAllWhenNoneInWindowCache: "test_oldest_hit_is_none_when_every_hit_precedes_since",
    OldestIsTheFirstRecordedCache: "test_oldest_hit_is_the_earliest_within_the_window",
    FirstSetWinsCache: "test_set_overwrites_the_previous_value",
    ReturnsTheOldCountCache: "test_the_first_increment_returns_one",
}

ALSO_NAMED = {
    "test_windows_count_and_find_exactly_the_hits_at_or_after_since": CollapsingHitsCache,
}
"""Cases named by a mutant whose own row names another case (checked below)."""

NO_MUTANT_OF_ITS_OWN = {
    "test_the_cache_is_a_cache": (
        "an isinstance smoke check: a cache missing a member fails every case that calls it"
    ),
    "test_the_suite_is_run_unchanged": "the guard against overridden cases, tested in graph",
}
"""Suite cases no mutant names, and why none is written for them."""


class _Run(CacheCompliance):
    """The suite, instantiated outside pytest's collection."""


@functools.cache
def _failures(adapter: type[MemoryCache]) -> dict[str, BaseException]:
    return failing_cases(_Run(), {"cache": {"": adapter}})


def test_the_intact_adapter_passes_every_case() -> None:
    """The control: without it, a mutant's failures could be the runner's."""
    assert _failures(MemoryCache) == {}


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda cls: cls.__name__)
def test_the_suite_catches_the_mutant(mutant: type[MemoryCache]) -> None:
    """The case written for the defect fails on it."""
    failures = _failures(mutant)
    assert MUTANTS[mutant] in failures, f"{mutant.__name__} survived; failures: {sorted(failures)}"


def test_collapsed_duplicates_are_caught_by_the_property_case_too() -> None:
    """The oracle-based window property is evidence in its own right, not only the example."""
    failures = _failures(CollapsingHitsCache)
    assert "test_windows_count_and_find_exactly_the_hits_at_or_after_since" in failures


ALONE: frozenset[type[MemoryCache]] = frozenset(
    {
        RefreshingTtlCache,
        FirstHitExpiryCache,
        IntParsingCache,
        TtlCheckedOnlyOnCreationCache,
        NanTtlCache,
        KeepTtlCache,
        ExpireWhenNoTtlCache,
        CaseFoldingKeysCache,
        ImmortalHitsCache,
        CloseOnceCache,
        SwallowingBlockCache,
        ExitLeavesItOpenCache,
        NonNegativeCountersCache,
        SignedZeroHitsCache,
    }
)
"""Mutants that exactly one case catches: that case is the only thing standing between them
and a pass, so removing or weakening it is visible here."""


@pytest.mark.parametrize(
    "mutant", sorted(ALONE, key=lambda c: c.__name__), ids=lambda c: c.__name__
)
def test_the_mutant_is_caught_by_its_case_alone(mutant: type[MemoryCache]) -> None:
    """Nothing else in the suite fails on it."""
    assert sorted(_failures(mutant)) == [MUTANTS[mutant]]


def test_every_case_is_named_by_a_mutant_or_says_why_not() -> None:
    """A new suite case arrives with its mutant; a case without one is a visible decision."""
    cases = {name for name in dir(CacheCompliance) if name.startswith("test_")}
    named = set(MUTANTS.values()) | set(ALSO_NAMED)
    assert cases - named - set(NO_MUTANT_OF_ITS_OWN) == set()


@pytest.mark.parametrize("case", sorted(ALSO_NAMED))
def test_the_also_named_cases_catch_their_mutant(case: str) -> None:
    """Each extra name really fails on its mutant."""
    assert case in _failures(ALSO_NAMED[case])
