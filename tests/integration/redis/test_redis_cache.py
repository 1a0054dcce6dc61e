"""RedisCache runs the Cache compliance suite unchanged on a real Redis, plus its specifics."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from redstring.cache.adapters.redis import RedisCache
from redstring.ports.cache import Cache
from redstring.testing.cache import HOUR, NOW, CacheCompliance
from tests.integration.redis.conftest import delete_prefixed, unique_prefix

pytestmark = pytest.mark.integration


@pytest.fixture
async def cache(redis_client: Redis) -> AsyncIterator[RedisCache]:
    prefix = unique_prefix()
    yield RedisCache(redis_client, prefix=prefix)
    await delete_prefixed(redis_client, prefix)


class TestRedisCache(CacheCompliance):
    """The compliance suite, run against Redis through an injected client."""


class TestRedisCacheSpecifics:
    def test_the_adapter_satisfies_the_port(self, redis_client: Redis) -> None:
        """A cheap check that the method names line up before any behaviour is exercised."""
        assert isinstance(RedisCache(redis_client), Cache)

    async def test_an_injected_client_survives_close(self, redis_client: Redis) -> None:
        """``owns_client`` defaults to False: closing the cache never closes the caller's client."""
        closes: list[str] = []
        original = redis_client.aclose

        async def recording_aclose(close_connection_pool: bool | None = None) -> None:
            closes.append("aclose")
            await original(close_connection_pool)

        redis_client.aclose = recording_aclose
        prefix = unique_prefix()
        async with RedisCache(redis_client, prefix=prefix) as cache:
            await cache.set("state", "open")
        await cache.close()
        assert closes == []
        assert await redis_client.get(f"{prefix}{{state}}:value") == "open"
        await delete_prefixed(redis_client, prefix)

    async def test_from_url_owns_and_closes_its_client(self, redis_url: str) -> None:
        """``from_url`` builds a decoding client it owns; ``close`` closes it once, twice safely."""
        cache = RedisCache.from_url(redis_url, prefix=unique_prefix())
        await cache.set("greeting", "hello")
        assert await cache.get("greeting") == "hello"
        await cache.delete("greeting")
        client = cache._client
        closes: list[str] = []
        original = client.aclose

        async def recording_aclose(close_connection_pool: bool | None = None) -> None:
            closes.append("aclose")
            await original(close_connection_pool)

        client.aclose = recording_aclose
        await cache.close()
        await cache.close()
        assert closes == ["aclose"]

    async def test_a_client_returning_bytes_still_reads_as_str(self, redis_url: str) -> None:
        """An injected client at redis-py's defaults returns bytes; ``get`` decodes them."""
        raw = Redis.from_url(redis_url)
        prefix = unique_prefix()
        try:
            cache = RedisCache(raw, prefix=prefix)
            await cache.set("greeting", "grüße")
            assert await cache.get("greeting") == "grüße"
            await cache.increment("failures")
            assert await cache.get("failures") == "1"
        finally:
            await raw.delete(f"{prefix}{{greeting}}:value", f"{prefix}{{failures}}:value")
            await raw.aclose()

    async def test_two_prefixes_never_see_each_other(self, redis_client: Redis) -> None:
        """Two caches on one database with different prefixes share no value, counter or hit."""
        first_prefix, second_prefix = unique_prefix(), unique_prefix()
        first = RedisCache(redis_client, prefix=first_prefix)
        second = RedisCache(redis_client, prefix=second_prefix)
        await first.set("state", "open")
        await first.increment("failures")
        await first.record_hit("calls", at=NOW, ttl_seconds=HOUR)
        assert await second.get("state") is None
        assert await second.increment("failures") == 1
        assert await second.count_hits("calls", since=NOW - HOUR) == 0
        await second.delete("state")
        assert await first.get("state") == "open"
        for prefix in (first_prefix, second_prefix):
            await delete_prefixed(redis_client, prefix)

    async def test_every_key_lives_under_the_prefix(
        self, cache: RedisCache, redis_client: Redis
    ) -> None:
        """Nothing the cache writes escapes its prefix, so deleting the prefix cleans up."""
        await cache.set("state", "open")
        await cache.increment("failures", ttl_seconds=HOUR)
        await cache.record_hit("calls", at=NOW, ttl_seconds=HOUR)
        written = [key async for key in redis_client.scan_iter(match=f"{cache.prefix}*")]
        assert len(written) == 3

    async def test_a_sub_second_ttl_is_set_in_milliseconds(
        self, cache: RedisCache, redis_client: Redis
    ) -> None:
        """0.05 s becomes PX 50, not EX 0 (which Redis rejects or truncates to no expiry)."""
        await cache.set("brief", "value", ttl_seconds=0.05)
        assert 0 < await redis_client.pttl(f"{cache.prefix}{{brief}}:value") <= 50

    async def test_two_hits_at_one_instant_from_one_cache_are_two_members(
        self, cache: RedisCache, redis_client: Redis
    ) -> None:
        """The member is unique per hit, not per cache object: a burst is not collapsed."""
        for _ in range(5):
            await cache.record_hit("calls", at=NOW, ttl_seconds=HOUR)
        assert await redis_client.zcard(f"{cache.prefix}{{calls}}:hits") == 5
        assert await cache.count_hits("calls", since=NOW) == 5

    async def test_a_hit_older_than_its_ttl_is_pruned_when_the_series_is_hit_again(
        self, cache: RedisCache
    ) -> None:
        """Steady traffic keeps a series alive; its hits older than one TTL are dropped."""
        await cache.record_hit("calls", at=NOW - 600, ttl_seconds=60)
        await cache.record_hit("calls", at=NOW - 60, ttl_seconds=60)
        await cache.record_hit("calls", at=NOW, ttl_seconds=60)
        assert await cache.oldest_hit("calls", since=0.0) == NOW - 60
        assert await cache.count_hits("calls", since=0.0) == 2

    async def test_a_counter_with_a_ttl_is_created_with_it_atomically(
        self, cache: RedisCache, redis_client: Redis
    ) -> None:
        """The first increment leaves a TTL on the key; later ones do not extend it."""
        await cache.increment("failures", ttl_seconds=HOUR)
        first = await redis_client.pttl(f"{cache.prefix}{{failures}}:value")
        await cache.increment("failures", ttl_seconds=2 * HOUR)
        second = await redis_client.pttl(f"{cache.prefix}{{failures}}:value")
        assert 0 < second <= first <= HOUR * 1000
