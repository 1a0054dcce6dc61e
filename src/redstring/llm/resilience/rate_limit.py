"""A rate limit over a Cache hit window: at most N calls per window across every process.

The algorithm, and what it guarantees
-------------------------------------
Every admission is a hit in one sliding window shared through the cache. A caller reads its
clock once (``now``) and then:

1. counts the hits in ``[now - W, now]``; when the window is already full it records
   nothing, so a caller waiting for a slot does not fill the window with hits that were
   never admitted;
2. records its own hit at ``now``;
3. counts again, and is admitted only when the count, its own hit included, is at most N.

Recording before the deciding count is what makes the limit hold under races. Take any
closed interval of length W and the admitted hit in it whose record reached the cache last:
every other admitted hit of that interval was recorded before it, lies at or after its
``now - W``, and so was in its deciding count; a count above N would have refused it. So no
interval of W seconds (on the callers' clocks) ever holds more than N admitted calls, however
many processes race. This needs nothing else below to be true.

Losing a race costs throughput, never safety: the loser's hit stays recorded without a call
until it leaves the window. When the window is nearly full (three quarters of the budget or
more is spent, or a race was just lost) and many workers wake for the same freed slot, those
losses would waste a large share of the budget, so a limiter in that state takes a **turn**:
a cache counter whose first incrementer holds it, released by deleting it, with a short TTL
set at creation so a crashed holder blocks nobody for long. Turns serialise steps 1 and 2
across processes exactly when racing is likely (the holder hands the turn on once its hit
is recorded, since the next holder's first count sees it), and cost nothing (no extra round
trip) while the window has plenty of room. Within one process an ``asyncio.Lock`` queues
admissions, so tasks sharing a limiter never race each other and only one of them polls the
cache.

Hits are recorded with a TTL of two windows, so the cache's pruning of hits older than one
TTL never removes a hit another caller's deciding count still needs, unless that caller
stalls for a whole window between reading its clock and counting. The guarantee is on the
callers' clocks: processes whose clocks disagree by D seconds can together admit N calls
within W - D seconds of real time.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from redstring.domain.errors import InvalidArgumentError
from redstring.llm.resilience.timing import Clock, Sleep
from redstring.ports.cache import Cache
from redstring.ports.errors import RateLimitedError

_WAKE_MARGIN_SECONDS = 0.001
"""Slept past the instant the oldest hit leaves, so the window has certainly moved past it."""

_MAX_WAKE_JITTER_SECONDS = 0.01
"""Upper bound of the random extra wait that keeps waiting processes from waking together."""

_TURN_LEASE_SECONDS = 1.0
"""How long a turn outlives a holder that never releases it (its process died)."""

_TURN_POLL_SECONDS = 0.001
"""How often, at least, a limiter waiting for a turn asks again (up to twice this)."""


class OnLimit(StrEnum):
    """What a call does when the window is full."""

    WAIT = "wait"
    """Sleep until the oldest hit leaves the window, then try again (the default)."""

    RAISE = "raise"
    """Raise ``RateLimitedError`` at once; the caller decides what to do."""


@dataclass(frozen=True)
class RateLimitPolicy:
    """At most ``calls`` model calls in any ``per_seconds`` window, shared by every worker."""

    calls: int
    per_seconds: float
    on_limit: OnLimit = OnLimit.WAIT

    def __post_init__(self) -> None:
        if self.calls < 1:
            raise InvalidArgumentError(f"calls={self.calls!r} must be at least 1")
        if not (self.per_seconds > 0 and math.isfinite(self.per_seconds)):
            raise InvalidArgumentError(
                f"per_seconds={self.per_seconds!r} must be a positive, finite number of seconds"
            )


class RateLimiter:
    """Admits calls against a :class:`RateLimitPolicy` kept in a shared hit window.

    ``admit()`` returns once this call may go ahead, or raises ``RateLimitedError`` under
    ``OnLimit.RAISE``. Every limiter built on the same cache and ``key`` shares one budget.
    """

    def __init__(
        self,
        cache: Cache,
        key: str,
        policy: RateLimitPolicy,
        *,
        clock: Clock,
        sleep: Sleep,
        random: Callable[[], float],
    ) -> None:
        self._cache = cache
        self._key = key
        self._policy = policy
        self._clock = clock
        self._sleep = sleep
        self._random = random
        self._turn_key = f"{key}:turn"
        self._queue = asyncio.Lock()
        self._contended = False

    @property
    def policy(self) -> RateLimitPolicy:
        """The limit this limiter enforces."""
        return self._policy

    async def admit(self) -> None:
        """Return when the call is admitted; wait or raise, by policy, while the window is full."""
        async with self._queue:
            while True:
                if self._contended:
                    admitted, now = await self._admit_in_turn()
                else:
                    now = self._clock()
                    admitted = await self._try_admit(now)
                if admitted:
                    return
                wait = await self._until_a_slot_frees(now)
                if self._policy.on_limit is OnLimit.RAISE:
                    raise RateLimitedError(
                        f"the rate limit of {self._policy.calls} calls per "
                        f"{self._policy.per_seconds:g} s for {self._key!r} is spent; the next "
                        f"slot frees in {wait:.3f} s (use OnLimit.WAIT to wait for it)"
                    )
                await self._sleep(wait + self._jitter())

    async def _try_admit(self, now: float) -> bool:
        """Steps 1-3 without the turn: count, record, count again."""
        since = now - self._policy.per_seconds
        if not await self._has_room(since):
            return False
        await self._record(now)
        return await self._decide(since)

    async def _admit_in_turn(self) -> tuple[bool, float]:
        """Steps 1-3 holding the turn; whether admitted, and the clock reading they used.

        While another process holds the turn this one keeps looking at the window without
        it, so a crowd woken for one freed slot learns that the slot went without queueing
        for the turn one by one. The turn is handed on as soon as the hit is recorded: the
        next holder's first count already sees it, so the deciding counts of two holders
        never race and the turn is held for two round trips rather than three.
        """
        while True:
            now = self._clock()
            if await self._cache.count_hits(self._key, since=now - self._policy.per_seconds) >= (
                self._policy.calls
            ):
                return False, now
            if await self._cache.increment(self._turn_key, ttl_seconds=_TURN_LEASE_SECONDS) == 1:
                break
            await self._sleep(_TURN_POLL_SECONDS * (1.0 + self._random()))
        try:
            now = self._clock()
            since = now - self._policy.per_seconds
            if not await self._has_room(since):
                return False, now
            await self._record(now)
        finally:
            await self._cache.delete(self._turn_key)
        return await self._decide(since), now

    async def _has_room(self, since: float) -> bool:
        """Step 1. Also decides whether the next attempt takes a turn: a quarter left."""
        spent = await self._cache.count_hits(self._key, since=since)
        self._contended = 4 * spent >= 3 * self._policy.calls
        return spent < self._policy.calls

    async def _record(self, now: float) -> None:
        """Step 2, with a TTL of two windows (see the module docstring)."""
        await self._cache.record_hit(self._key, at=now, ttl_seconds=2 * self._policy.per_seconds)

    async def _decide(self, since: float) -> bool:
        """Step 3: admitted when the window, this call's hit included, holds at most N."""
        if await self._cache.count_hits(self._key, since=since) <= self._policy.calls:
            return True
        self._contended = True
        return False

    async def _until_a_slot_frees(self, now: float) -> float:
        """Seconds until the oldest hit in the window leaves it (zero when it already has)."""
        window = self._policy.per_seconds
        oldest = await self._cache.oldest_hit(self._key, since=now - window)
        return 0.0 if oldest is None else max(0.0, oldest + window - now)

    def _jitter(self) -> float:
        spread = min(_MAX_WAKE_JITTER_SECONDS, 0.25 * self._policy.per_seconds / self._policy.calls)
        return _WAKE_MARGIN_SECONDS + self._random() * spread
