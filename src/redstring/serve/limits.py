"""What one request may ask for, and how often one key may ask.

The per-key rate limit is the model calls' shared limiter
(:class:`redstring.llm.resilience.RateLimiter`, ADR 0010) in its refusing mode, one per key:
every server process sharing one cache (Redis) shares one budget per key, and no window of
``window_seconds`` ever admits more than ``requests_per_window`` requests of a key, however
many processes race. A refused request is not counted.

Invalid keys are counted in the same cache per key id first and per client address second
(:class:`FailedKeys`, ADR 0042): a key id whose secrets keep failing is refused before its
secret is hashed again, and an address that keeps sending keys nobody has is refused before
the decoy hash; a real key from that address is still verified.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from redstring.domain.errors import InvalidArgumentError
from redstring.llm.resilience.rate_limit import OnLimit, RateLimitPolicy
from redstring.llm.resilience.rate_limit import RateLimiter as SharedLimiter
from redstring.ports.cache import Cache
from redstring.ports.errors import RateLimitedError

__all__ = [
    "FAILED_KEYS_PREFIX",
    "RATE_PREFIX",
    "FailedKeys",
    "Limits",
    "RateLimiter",
    "address_subject",
    "key_id_subject",
]

RATE_PREFIX = "redstring:serve:rate:"
"""Cache key prefix of each key id's request window."""

FAILED_KEYS_PREFIX = "redstring:serve:failed-keys:"
"""Cache key prefix of failed-key windows, per subject (:func:`key_id_subject`,
:func:`address_subject`)."""


def key_id_subject(key_id: str) -> str:
    """The failed-key subject of a key id."""
    return f"key:{key_id}"


def address_subject(address: str) -> str:
    """The failed-key subject of a client address."""
    return f"address:{address}"


@dataclass(frozen=True)
class Limits:
    """The server's limits; each is checked before any work is done.

    ``max_held_document_chars``: a document longer than this is ingested as a job (``202``,
    progress in passages) rather than while the request waits.
    """

    max_body_bytes: int = 10 * 1024 * 1024
    max_documents_per_batch: int = 100
    max_held_document_chars: int = 100_000
    max_query_chars: int = 2_000
    max_page_size: int = 100
    requests_per_window: int = 600
    window_seconds: float = 60.0
    failed_keys_per_window: int = 30

    def __post_init__(self) -> None:
        for name in (
            "max_body_bytes",
            "max_documents_per_batch",
            "max_held_document_chars",
            "max_query_chars",
            "max_page_size",
            "requests_per_window",
            "failed_keys_per_window",
        ):
            if getattr(self, name) < 1:
                raise InvalidArgumentError(f"limit {name} must be at least 1")
        if not (self.window_seconds > 0 and math.isfinite(self.window_seconds)):
            raise InvalidArgumentError("limit window_seconds must be positive and finite")


class RateLimiter:
    """Per-key request budgets in a shared cache."""

    def __init__(
        self,
        cache: Cache,
        limits: Limits,
        *,
        prefix: str = RATE_PREFIX,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._cache = cache
        self._limits = limits
        self._prefix = prefix
        self._clock = clock
        self._policy = RateLimitPolicy(
            calls=limits.requests_per_window,
            per_seconds=limits.window_seconds,
            on_limit=OnLimit.RAISE,
        )
        self._by_key: dict[str, SharedLimiter] = {}

    def key_ids(self) -> list[str]:
        """The key ids this process has limited since it last forgot."""
        return sorted(self._by_key)

    def forget(self) -> None:
        """Drop this process's limiter objects (their windows live in the cache)."""
        self._by_key.clear()

    async def admit(self, key_id: str) -> float | None:
        """Admit one request of ``key_id``: ``None`` if admitted, else seconds to wait."""
        limiter = self._by_key.get(key_id)
        if limiter is None:
            if len(self._by_key) > 10_000:
                self._by_key.clear()
            limiter = self._by_key[key_id] = SharedLimiter(
                self._cache,
                self._prefix + key_id,
                self._policy,
                clock=self._clock,
                sleep=asyncio.sleep,
                random=random.random,
            )
        try:
            await limiter.admit()
        except RateLimitedError:
            now = self._clock()
            window = self._limits.window_seconds
            oldest = await self._cache.oldest_hit(self._prefix + key_id, since=now - window)
            return max(1.0, (oldest if oldest is not None else now) + window - now)
        return None


class FailedKeys:
    """Invalid keys per subject (a key id, a client address) in a shared window: past the
    budget, the subject is refused before a secret is hashed, so guessing keys cannot buy
    hash work."""

    def __init__(
        self,
        cache: Cache,
        limits: Limits,
        *,
        prefix: str = FAILED_KEYS_PREFIX,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._cache = cache
        self._limits = limits
        self._prefix = prefix
        self._clock = clock

    async def wait(self, subject: str) -> float | None:
        """Seconds ``subject`` must wait before a key of its is verified again, or ``None``."""
        now = self._clock()
        window = self._limits.window_seconds
        key = self._prefix + subject
        if await self._cache.count_hits(key, since=now - window) < (
            self._limits.failed_keys_per_window
        ):
            return None
        oldest = await self._cache.oldest_hit(key, since=now - window)
        return max(1.0, (oldest if oldest is not None else now) + window - now)

    async def record(self, subject: str) -> None:
        """Count one invalid key of ``subject``."""
        await self._cache.record_hit(
            self._prefix + subject, at=self._clock(), ttl_seconds=self._limits.window_seconds
        )
