"""What one request may ask for, and how often one key may ask.

The rate limit counts each key's requests in a sliding window through the ``Cache`` port's
hit windows, so every server process sharing one cache (Redis) shares one budget per key.
A request records its hit first and then counts, so concurrent requests can never get more
than ``requests_per_window`` through between them; a refused request counts too, which keeps
a client that ignores ``Retry-After`` refused.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from redstring.domain.errors import InvalidArgumentError
from redstring.ports.cache import Cache

__all__ = ["Limits", "RateLimiter"]


@dataclass(frozen=True)
class Limits:
    """The server's limits; each is checked before any work is done."""

    max_body_bytes: int = 10 * 1024 * 1024
    max_documents_per_batch: int = 100
    max_query_chars: int = 2_000
    max_page_size: int = 100
    requests_per_window: int = 600
    window_seconds: float = 60.0

    def __post_init__(self) -> None:
        for name in (
            "max_body_bytes",
            "max_documents_per_batch",
            "max_query_chars",
            "max_page_size",
            "requests_per_window",
        ):
            if getattr(self, name) < 1:
                raise InvalidArgumentError(f"limit {name} must be at least 1")
        if not (self.window_seconds > 0 and math.isfinite(self.window_seconds)):
            raise InvalidArgumentError("limit window_seconds must be positive and finite")


class RateLimiter:
    """Per-key request budgets in a shared cache."""

    def __init__(self, cache: Cache, limits: Limits, *, prefix: str = "redstring:serve:rate:"):
        self._cache = cache
        self._limits = limits
        self._prefix = prefix

    async def admit(self, key_id: str, *, now: float | None = None) -> float | None:
        """Record a request of ``key_id``: ``None`` if admitted, else seconds to wait."""
        at = time.time() if now is None else now
        window = self._limits.window_seconds
        key = self._prefix + key_id
        await self._cache.record_hit(key, at=at, ttl_seconds=window)
        since = at - window
        if await self._cache.count_hits(key, since=since) <= self._limits.requests_per_window:
            return None
        oldest = await self._cache.oldest_hit(key, since=since)
        return max(1.0, (oldest if oldest is not None else at) + window - at)
