"""RedisCache: the Cache port on Redis, so every worker on every machine shares one state.

Rate limits and the circuit breaker (``redstring.llm.resilience``) keep their counters and hit
windows here; pointing every process at one Redis is what makes a limit a limit across them.

What a caller may rely on, beyond the port (``redstring.ports.cache``):

* Values come back as ``str``: :meth:`RedisCache.from_url` builds its client with
  ``decode_responses=True``, and a value read through an injected client that returns bytes
  is decoded as UTF-8 rather than leaked.
* Every key lives under ``prefix``, so two caches with different prefixes on one database
  (two test workers, two deployments) never see each other's keys.
* A value (or counter) and a hit window under one port key are two Redis keys,
  ``<prefix>{<key>}:value`` and ``<prefix>{<key>}:hits``, so a ``ZADD`` never lands on a
  string and ``WRONGTYPE`` cannot surface. The braces are a Redis Cluster hash tag: both land
  in one slot, so ``delete`` stays one command on a cluster too.
* TTLs have millisecond precision (``PX``), so a sub-second TTL really expires.
* The adapter never reads a clock: window positions are the caller's epoch floats, and
  expiry is Redis's own.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self
from uuid import uuid4

from redis.asyncio import Redis
from redis.exceptions import ResponseError

from redstring.domain.errors import InvalidArgumentError
from redstring.ports.cache import LARGEST_COUNTER, check_instant, check_text, check_ttl

__all__ = ["RedisCache"]

_INCREMENT_CREATING = """
redis.call('SET', KEYS[1], '0', 'NX', 'PX', ARGV[1])
redis.call('INCR', KEYS[1])
return redis.call('GET', KEYS[1])
"""
"""INCR whose PX TTL applies only when this call creates the key. ARGV: ttl in ms.

It returns the count as Redis's own string: a Lua number is a double, exact only to 2**53."""

_RECORD_HIT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
"""
"""Drop hits before ARGV[1], add member ARGV[3] at score ARGV[2], expire in ARGV[4] ms."""


class RedisCache:
    """The Cache port over a ``redis.asyncio`` client, every key under one prefix.

    The client is the caller's unless ``owns_client=True``: ``close()`` leaves an injected
    client open, because a shared client closed by whichever component finishes first breaks
    every other component using it. :meth:`from_url` creates, and therefore owns, its client.
    """

    def __init__(self, client: Redis, *, prefix: str = "", owns_client: bool = False) -> None:
        self._client = client
        self._prefix = prefix
        self._owns_client = owns_client
        self._closed = False
        self._increment_creating = client.register_script(_INCREMENT_CREATING)
        self._record_hit = client.register_script(_RECORD_HIT)

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "") -> Self:
        """A cache over a new client for ``url`` (``redis://host:port/db``) that it owns."""
        return cls(Redis.from_url(url, decode_responses=True), prefix=prefix, owns_client=True)

    @property
    def prefix(self) -> str:
        """The string every Redis key of this cache starts with."""
        return self._prefix

    def _value_key(self, key: str) -> str:
        check_text(key, what="cache key")
        return f"{self._prefix}{{{key}}}:value"

    def _hits_key(self, key: str) -> str:
        check_text(key, what="cache key")
        return f"{self._prefix}{{{key}}}:hits"

    async def get(self, key: str) -> str | None:
        """The value or counter under ``key`` as ``str``, or ``None`` when absent or expired."""
        value = await self._client.get(self._value_key(key))
        if isinstance(value, bytes):
            return value.decode("utf-8")
        return None if value is None else str(value)

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        """Store ``value``, replacing any value or counter and its TTL; expire after the TTL."""
        check_text(value, what="cache value")
        if ttl_seconds is None:
            await self._client.set(self._value_key(key), value)
        else:
            await self._client.set(self._value_key(key), value, px=_milliseconds(ttl_seconds))

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        """Add one and return the count; the TTL is set only when this call creates the counter.

        With a TTL, one Lua script runs ``SET key 0 NX PX ttl`` then ``INCR key``: the ``SET``
        creates the counter with its TTL only when it is absent, and ``INCR`` keeps whatever
        TTL the key already has. A script runs atomically, so no client sees the counter
        between the two and no crash leaves it created without its TTL (INCR-then-PEXPIRE
        can: a process dying between the two leaves a failure count that never expires).
        It is also one round trip where MULTI/EXEC costs a pipeline's. Raises
        ``InvalidArgumentError`` (a ``ValueError``) when the key holds something that is not
        an integer, leaving it in place.
        """
        name = self._value_key(key)
        milliseconds = None if ttl_seconds is None else _milliseconds(ttl_seconds)
        try:
            if milliseconds is None:
                return int(await self._client.incr(name))
            return int(await self._increment_creating(keys=[name], args=[milliseconds]))
        except ResponseError as error:
            if "overflow" in str(error):
                raise InvalidArgumentError(
                    f"cannot increment {key!r}: it holds {LARGEST_COUNTER}, the largest count "
                    "a counter holds; delete it to start again"
                ) from None
            raise InvalidArgumentError(
                f"cannot increment {key!r}: it holds a value that is not a 64-bit integer "
                f"({error}); a counter key must only be written by increment or set to a "
                "decimal string"
            ) from None

    async def delete(self, key: str) -> None:
        """Remove the value, counter and hit window under ``key``; an absent key is fine."""
        await self._client.delete(self._value_key(key), self._hits_key(key))

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        """Add one hit at epoch ``at`` and make the whole series expire ``ttl_seconds`` from now.

        Each hit is its own sorted-set member, ``f"{at!r}:{uuid4().hex}"``, so two hits at the
        same instant are two members; a member derived from the timestamp or from this
        object would turn the second into an update and under-count exactly a burst. Hits
        older than ``at - ttl_seconds`` (caller time) are dropped in the same transaction, so
        a series that steady traffic keeps alive does not grow without bound. Prune, add and
        expire are one Lua script: atomic, and one round trip.
        """
        milliseconds = _milliseconds(ttl_seconds)
        at = check_instant(at, what="at")
        member = f"{at!r}:{uuid4().hex}"
        await self._record_hit(
            keys=[self._hits_key(key)],
            args=[repr(at - ttl_seconds), repr(at), member, milliseconds],
        )

    async def count_hits(self, key: str, *, since: float) -> int:
        """Hits at or after ``since``; ``ZCOUNT`` is inclusive at its lower bound."""
        since = check_instant(since, what="since")
        return int(await self._client.zcount(self._hits_key(key), since, "+inf"))

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        """The earliest hit at or after ``since``, or ``None``."""
        since = check_instant(since, what="since")
        found = await self._client.zrangebyscore(
            self._hits_key(key), since, "+inf", start=0, num=1, withscores=True
        )
        return float(found[0][1]) if found else None

    async def close(self) -> None:
        """Close the client when this cache created it; safe to call twice."""
        if self._owns_client and not self._closed:
            self._closed = True
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def _milliseconds(ttl_seconds: float) -> int:
    """A TTL in whole milliseconds, at least one: ``EX`` would truncate 0.05 s to no expiry."""
    return max(1, round(check_ttl(ttl_seconds) * 1000))
