"""MemoryCache: the in-process Cache, for one worker and for tests.

It passes ``redstring.testing.cache.CacheCompliance`` unchanged. What a caller may rely on
beyond the port:

* Nothing is shared between instances or processes; two workers each holding a
  ``MemoryCache`` count their rate limits separately. Use a shared backend (Redis) for that.
* Expiry is lazy: an expired value, counter or hit series is dropped when it is next touched.
  Recording a hit also drops that series' hits older than ``at - ttl_seconds`` (caller time),
  so a series kept alive by steady traffic does not grow without bound.
* ``close`` discards every value, counter and hit. That is right for expiring state and
  would be wrong for a store; the cache stays usable, empty, after it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

from redstring.domain.errors import InvalidArgumentError
from redstring.ports.cache import (
    LARGEST_COUNTER,
    check_instant,
    check_text,
    check_ttl,
    counter_value,
)


@dataclass
class _Value:
    text: str
    deadline: float | None


@dataclass
class _Series:
    deadline: float
    hits: list[float] = field(default_factory=list)


class MemoryCache:
    """Values, counters and hit windows in dictionaries, with monotonic-clock expiry.

    ``clock`` is accepted and ignored. It is here so that a reader who expects a cache to
    read the time finds the reason it does not: hit windows take the caller's epoch times
    (``at``, ``since``) and never read a clock, and TTL deadlines are measured with
    ``time.monotonic()``, which no caller ever names. Do not wire a clock through it.
    """

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        del clock  # deliberately unused; see the class docstring
        self._values: dict[str, _Value] = {}
        self._series: dict[str, _Series] = {}

    async def get(self, key: str) -> str | None:
        """The value or counter under ``key`` as ``str``, or ``None`` when absent or expired."""
        check_text(key, what="cache key")
        value = self._live_value(key)
        return None if value is None else value.text

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        """Store ``value``; without ``ttl_seconds`` it never expires, whatever it replaced."""
        check_text(key, what="cache key")
        check_text(value, what="cache value")
        _check_ttl(ttl_seconds)
        self._values[key] = _Value(value, _deadline(ttl_seconds))

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        """Add one and return the count; ``ttl_seconds`` applies only when this creates the key.

        Raises :class:`InvalidArgumentError` (a ``ValueError``) when the key holds a value that
        is not a decimal integer, leaving that value in place.
        """
        check_text(key, what="cache key")
        _check_ttl(ttl_seconds)
        current = self._live_value(key)
        if current is None:
            self._values[key] = _Value("1", _deadline(ttl_seconds))
            return 1
        # A reference more forgiving than Redis would let callers pass tests on behaviour
        # production does not have, hence the port's counter rule rather than int().
        count = counter_value(current.text)
        if count is None:
            raise InvalidArgumentError(
                f"cannot increment {key!r}: it holds {current.text!r}, not a decimal integer "
                "of 64 bits; delete it or set it to a number such as '0' first"
            )
        if count == LARGEST_COUNTER:
            raise InvalidArgumentError(
                f"cannot increment {key!r}: it holds {count}, the largest count a counter "
                "holds; delete it to start again"
            )
        count += 1
        current.text = str(count)
        return count

    async def delete(self, key: str) -> None:
        """Remove the value, counter and hit series under ``key``; absent keys are fine."""
        check_text(key, what="cache key")
        self._values.pop(key, None)
        self._series.pop(key, None)

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        """Record one hit at epoch ``at``; the series expires ``ttl_seconds`` after this call."""
        check_text(key, what="cache key")
        check_ttl(ttl_seconds)
        at = check_instant(at, what="at")
        series = self._live_series(key)
        if series is None:
            series = self._series[key] = _Series(deadline=0.0)
        horizon = at - ttl_seconds
        series.hits = [hit for hit in series.hits if hit >= horizon]
        series.hits.append(at)
        series.deadline = time.monotonic() + ttl_seconds

    async def count_hits(self, key: str, *, since: float) -> int:
        """Hits at or after ``since``, two hits at one instant counting as two."""
        check_text(key, what="cache key")
        since = check_instant(since, what="since")
        series = self._live_series(key)
        return 0 if series is None else sum(1 for hit in series.hits if hit >= since)

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        """The earliest hit at or after ``since``, or ``None``."""
        check_text(key, what="cache key")
        since = check_instant(since, what="since")
        series = self._live_series(key)
        if series is None:
            return None
        return min((hit for hit in series.hits if hit >= since), default=None)

    async def close(self) -> None:
        """Discard everything held. Safe to call twice; the cache stays usable, empty."""
        self._values.clear()
        self._series.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def _live_value(self, key: str) -> _Value | None:
        value = self._values.get(key)
        if value is not None and value.deadline is not None and value.deadline <= time.monotonic():
            del self._values[key]
            return None
        return value

    def _live_series(self, key: str) -> _Series | None:
        series = self._series.get(key)
        if series is not None and series.deadline <= time.monotonic():
            del self._series[key]
            return None
        return series


def _check_ttl(ttl_seconds: float | None) -> None:
    if ttl_seconds is not None:
        check_ttl(ttl_seconds)


def _deadline(ttl_seconds: float | None) -> float | None:
    return None if ttl_seconds is None else time.monotonic() + ttl_seconds
