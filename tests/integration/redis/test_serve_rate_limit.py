"""Per-key rate limits shared through Redis: two server processes, one budget per key."""

from __future__ import annotations

import asyncio

import pytest

from redstring.cache.adapters.redis import RedisCache
from redstring.serve.limits import Limits, RateLimiter
from tests.integration.redis.conftest import unique_prefix

pytestmark = pytest.mark.integration


async def test_two_servers_share_one_budget_per_key(redis_url: str) -> None:
    """Requests through two caches (two server processes) share each key's budget."""
    prefix = unique_prefix()
    limits = Limits(requests_per_window=3, window_seconds=30)
    first = RedisCache.from_url(redis_url, prefix=prefix)
    second = RedisCache.from_url(redis_url, prefix=prefix)
    now = [1000.0]
    try:
        limiters = (
            RateLimiter(first, limits, clock=lambda: now[0]),
            RateLimiter(second, limits, clock=lambda: now[0]),
        )
        # Racing requests never get more than the budget (a lost race may cost a slot).
        waits = await asyncio.gather(*(limiters[n % 2].admit("key-a") for n in range(20)))
        assert 1 <= sum(wait is None for wait in waits) <= 3
        refused = [wait for wait in waits if wait is not None]
        assert all(1.0 <= wait <= 30.0 for wait in refused)
        # Requests one after another, alternating processes, get exactly the budget.
        turns = [await limiters[n % 2].admit("key-b") for n in range(5)]
        assert [wait is None for wait in turns] == [True, True, True, False, False]
        now[0] = 1029.0
        assert await limiters[0].admit("key-a") is not None  # still inside the window
        now[0] = 1031.0
        assert await limiters[0].admit("key-a") is None  # the window has passed
    finally:
        await first.close()
        await second.close()
