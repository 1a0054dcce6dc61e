"""ResilientLlmProvider's policies on a real Redis: the same cases as on MemoryCache."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from redstring.cache.adapters.redis import RedisCache
from tests.integration.redis.conftest import delete_prefixed, unique_prefix
from tests.resilience_cases import ResilienceCases

pytestmark = pytest.mark.integration


@pytest.fixture
async def cache(redis_client: Redis) -> AsyncIterator[RedisCache]:
    prefix = unique_prefix()
    yield RedisCache(redis_client, prefix=prefix)
    await delete_prefixed(redis_client, prefix)


class TestResilienceOnRedis(ResilienceCases):
    """Every policy case, on Redis: the state every worker would share."""
