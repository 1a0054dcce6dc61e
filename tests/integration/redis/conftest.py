"""The Redis every RedisCache test runs against: one server, one client per test.

``scripts/test`` starts Debian's ``redis-server`` on a free loopback port and exports
``REDSTRING_TEST_REDIS_URL`` (any other server can be named the same way). The server is
probed once per session by round-tripping a key, because an open socket proves nothing about
whether the thing behind it stores and returns values. The client is function-scoped: a
``redis.asyncio`` connection belongs to the event loop that opened it, and pytest-asyncio
gives each test its own loop.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.exceptions import RedisError

from tests.backends import backend_unavailable

URL_VARIABLE = "REDSTRING_TEST_REDIS_URL"


async def _probe(url: str) -> str | None:
    """``None`` when the server stores a value and hands it back as text, else what failed."""
    client = Redis.from_url(url, decode_responses=True, socket_connect_timeout=5)
    key = f"redstring-probe:{uuid.uuid4().hex}"
    try:
        await client.set(key, "round-trip", px=10_000)
        back = await client.get(key)
        await client.delete(key)
    except (OSError, RedisError) as error:
        return f"cannot round-trip a key ({type(error).__name__}: {error})"
    finally:
        await client.aclose()
    if back != "round-trip":
        return f"wrote 'round-trip' under {key!r} and read back {back!r}"
    return None


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The URL of a server proven to round-trip a key (skip locally, fail in CI, otherwise)."""
    url = os.environ.get(URL_VARIABLE, "").strip()
    if not url:
        backend_unavailable("Redis", f"{URL_VARIABLE} is not set")
    problem = asyncio.run(_probe(url))
    if problem is not None:
        backend_unavailable("Redis", f"at {URL_VARIABLE}={url}: {problem}")
    return url


def unique_prefix() -> str:
    """A key prefix no other test, worker or run shares, so nothing needs a FLUSHDB."""
    return f"redstring-test:{uuid.uuid4().hex}:"


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Redis]:
    """A decoding client for this test only, closed by the fixture, never by an adapter."""
    client = Redis.from_url(redis_url, decode_responses=True)
    try:
        yield client
    finally:
        await client.aclose()


async def delete_prefixed(client: Redis, prefix: str) -> None:
    """Remove every key under ``prefix``, so a run leaves the shared server as it found it."""
    keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=500)]
    if keys:
        await client.delete(*keys)
