"""MemoryCache runs the Cache compliance suite unchanged, plus what only it promises."""

from __future__ import annotations

import pytest

from redstring.cache.adapters.memory import MemoryCache
from redstring.ports.cache import Cache
from redstring.testing.cache import HOUR, NOW, CacheCompliance


@pytest.fixture
def cache() -> MemoryCache:
    return MemoryCache()


class TestMemoryCache(CacheCompliance):
    """The compliance suite, run against the in-process adapter."""


class TestMemoryCacheSpecifics:
    def test_the_adapter_satisfies_the_port(self) -> None:
        """A cheap check that the method names line up before any behaviour is exercised."""
        assert isinstance(MemoryCache(), Cache)

    async def test_a_hit_older_than_its_ttl_is_pruned_when_the_series_is_hit_again(
        self, cache: MemoryCache
    ) -> None:
        """The series a steady stream of traffic keeps alive does not keep every hit forever."""
        await cache.record_hit("calls", at=NOW - 600, ttl_seconds=60)
        await cache.record_hit("calls", at=NOW - 30, ttl_seconds=60)
        await cache.record_hit("calls", at=NOW, ttl_seconds=60)
        assert await cache.oldest_hit("calls", since=0.0) == NOW - 30
        assert await cache.count_hits("calls", since=0.0) == 2

    async def test_a_hit_exactly_one_ttl_old_survives_pruning(self, cache: MemoryCache) -> None:
        """Pruning keeps what a window of ``ttl_seconds`` ending now would still include."""
        await cache.record_hit("calls", at=NOW - 60, ttl_seconds=60)
        await cache.record_hit("calls", at=NOW, ttl_seconds=60)
        assert await cache.oldest_hit("calls", since=0.0) == NOW - 60

    async def test_close_discards_every_value_counter_and_hit(self, cache: MemoryCache) -> None:
        """Expiring state has no value past the cache's life; the cache stays usable, empty."""
        await cache.set("state", "open")
        await cache.increment("failures")
        await cache.record_hit("calls", at=NOW, ttl_seconds=HOUR)
        await cache.close()
        assert await cache.get("state") is None
        assert await cache.count_hits("calls", since=NOW - HOUR) == 0
        assert await cache.increment("failures") == 1

    async def test_two_caches_share_nothing(self) -> None:
        """Each instance is its own key space: nothing is module-level state."""
        first, second = MemoryCache(), MemoryCache()
        await first.set("state", "open")
        await first.record_hit("calls", at=NOW, ttl_seconds=HOUR)
        assert await second.get("state") is None
        assert await second.count_hits("calls", since=NOW - HOUR) == 0

    async def test_the_ttl_error_names_the_value_and_what_is_valid(
        self, cache: MemoryCache
    ) -> None:
        """The message says what was passed and what would have been accepted."""
        with pytest.raises(
            ValueError, match=r"ttl_seconds=nan is out of range.*seconds from 0.001"
        ):
            await cache.set("state", "open", ttl_seconds=float("nan"))

    async def test_the_clock_argument_is_accepted_and_never_called(self) -> None:
        """The parameter exists to document the absence of a clock, not to supply one."""

        def clock() -> float:
            raise AssertionError("MemoryCache read the clock it was handed")

        cache = MemoryCache(clock=clock)
        await cache.record_hit("calls", at=NOW, ttl_seconds=HOUR)
        await cache.set("state", "open", ttl_seconds=HOUR)
        await cache.increment("failures", ttl_seconds=HOUR)
        assert await cache.count_hits("calls", since=NOW) == 1
