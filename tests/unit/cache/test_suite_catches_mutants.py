"""CacheCompliance fails on each defect a Cache adapter is known to ship with.

Each mutant is MemoryCache with one planted defect, written against the public methods where
it can be. The suite must fail the named case on it, and pass everything on the intact
adapter, or the failure would say nothing about the defect.
"""

from __future__ import annotations

import functools
import math

import pytest

from redstring.cache.adapters.memory import MemoryCache
from redstring.testing.cache import HOUR, CacheCompliance
from tests.suite_failures import failing_cases


class BytesCache(MemoryCache):
    """A Redis client left at its defaults: values come back as bytes."""

    async def get(self, key: str) -> str | None:
        value = await super().get(key)
        return None if value is None else value.encode()  # type: ignore[return-value]


class RefreshingTtlCache(MemoryCache):
    """EXPIRE on every increment: the TTL restarts, so the count never drains."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        count = await super().increment(key, ttl_seconds=ttl_seconds)
        if ttl_seconds is not None:
            await self.set(key, str(count), ttl_seconds=ttl_seconds)
        return count


class CollapsingHitsCache(MemoryCache):
    """A sorted set whose member is the timestamp: a second hit at one instant is an update."""

    def __init__(self) -> None:
        super().__init__()
        self._members: set[tuple[str, float]] = set()

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
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
    if ttl_seconds is None or ttl_seconds <= 0:
        return ttl_seconds
    return float(int(ttl_seconds)) or None


class ResettingCounterCache(MemoryCache):
    """Text under a counter key silently restarts the count instead of raising."""

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        try:
            return await super().increment(key, ttl_seconds=ttl_seconds)
        except ValueError:
            await self.set(key, "1")
            return 1


MUTANTS: dict[type[MemoryCache], str] = {
    BytesCache: "test_a_value_comes_back_as_str_not_bytes",
    RefreshingTtlCache: "test_a_counters_ttl_is_not_refreshed_by_later_increments",
    CollapsingHitsCache: "test_two_hits_at_the_same_instant_count_as_two",
    ExclusiveWindowCache: "test_a_hit_exactly_at_since_is_counted",
    PrivateCounterCache: "test_increment_continues_from_a_decimal_string_set_as_a_value",
    WholeSecondTtlCache: "test_a_sub_second_ttl_really_expires",
    ResettingCounterCache: "test_incrementing_a_non_numeric_value_raises_value_error",
}


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
