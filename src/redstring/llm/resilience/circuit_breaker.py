"""A circuit breaker over Cache counters, shared by every worker using one cache.

States, all kept in the cache under ``key``:

* **closed** (no ``open-until`` value): calls go through. A transient failure increments the
  counter of the current failure window; windows are ``within_seconds`` long and aligned to
  multiples of it on the caller's clock, so no clock is read inside the cache and tests name
  instants. When a window's count reaches ``failures`` the circuit opens. A failure burst
  straddling a window boundary can take up to ``2 * failures - 1`` failures to open it.
* **open** (``open-until`` in the future): every call fails fast with ``CircuitOpenError``
  and never reaches the model.
* **half-open** (``open-until`` passed): exactly one call, the probe, goes through; the
  first process to increment the probe counter wins it, and every other call still fails
  fast. The probe's success closes the circuit and resets the failure count with a ``set``;
  its transient failure reopens the circuit for another cool-down. A probe that never
  reports (its process died) holds the lease for one cool-down, after which another call may
  probe.

"Success" means the model answered: a refusal or a malformed answer proves the endpoint is
up, so only ``TransientLlmError`` counts as a failure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from redstring.domain.errors import InvalidArgumentError
from redstring.llm.resilience.timing import Clock
from redstring.ports.cache import KeyValueCache
from redstring.ports.errors import CircuitOpenError


@dataclass(frozen=True)
class CircuitBreakerPolicy:
    """Open after ``failures`` transient failures within ``within_seconds``; cool down, probe."""

    failures: int
    within_seconds: float
    cooldown_seconds: float

    def __post_init__(self) -> None:
        if self.failures < 1:
            raise InvalidArgumentError(f"failures={self.failures!r} must be at least 1")
        for name in ("within_seconds", "cooldown_seconds"):
            value = getattr(self, name)
            if not (value > 0 and math.isfinite(value)):
                raise InvalidArgumentError(
                    f"{name}={value!r} must be a positive, finite number of seconds"
                )


class CircuitBreaker:
    """Decides whether a call may go ahead and records how it ended.

    Call :meth:`before_call` first; it raises ``CircuitOpenError`` or returns whether this
    call is the half-open probe. Then report the outcome with :meth:`record_failure` (a
    transient failure) or :meth:`record_answer` (the model answered), or hand the probe back
    with :meth:`release_probe` when the call never reached the model.
    """

    def __init__(
        self, cache: KeyValueCache, key: str, policy: CircuitBreakerPolicy, *, clock: Clock
    ) -> None:
        self._cache = cache
        self._key = key
        self._policy = policy
        self._clock = clock
        self._open_until_key = f"{key}:open-until"
        self._probe_key = f"{key}:probe"

    @property
    def policy(self) -> CircuitBreakerPolicy:
        """The thresholds this breaker applies."""
        return self._policy

    async def before_call(self) -> bool:
        """Raise ``CircuitOpenError`` while open; return True when this call is the probe."""
        raw = await self._cache.get(self._open_until_key)
        if raw is None:
            return False
        open_until = float(raw)
        now = self._clock()
        if now < open_until:
            raise CircuitOpenError(
                f"the circuit for {self._key!r} is open after {self._policy.failures} transient "
                f"failures within {self._policy.within_seconds:g} s; calls fail fast for "
                f"another {open_until - now:.3f} s, then one probe call tests the model"
            )
        lease = self._policy.cooldown_seconds
        if await self._cache.increment(self._probe_key, ttl_seconds=lease) == 1:
            return True
        raise CircuitOpenError(
            f"the circuit for {self._key!r} is half-open and another call is probing the model; "
            "calls fail fast until that probe succeeds"
        )

    async def record_failure(self, *, probe: bool) -> None:
        """Count a transient failure; open the circuit at the threshold, or reopen on a probe."""
        now = self._clock()
        if probe:
            await self._open(now)
            await self._cache.delete(self._probe_key)
            return
        count = await self._cache.increment(
            self._failures_key(now), ttl_seconds=2 * self._policy.within_seconds
        )
        if count >= self._policy.failures:
            await self._open(now)

    async def record_answer(self, *, probe: bool) -> None:
        """The model answered. A probe's answer closes the circuit and resets the count."""
        if not probe:
            return
        await self._cache.set(
            self._failures_key(self._clock()), "0", ttl_seconds=2 * self._policy.within_seconds
        )
        await self._cache.delete(self._open_until_key)
        await self._cache.delete(self._probe_key)

    async def release_probe(self) -> None:
        """Hand the probe back unused (the call never reached the model)."""
        await self._cache.delete(self._probe_key)

    async def _open(self, now: float) -> None:
        # The open-until value is written before the probe lease is released, so no other
        # process can find the cool-down over and the lease free in between.
        await self._cache.set(self._open_until_key, repr(now + self._policy.cooldown_seconds))

    def _failures_key(self, now: float) -> str:
        window = math.floor(now / self._policy.within_seconds)
        return f"{self._key}:failures:{window}"
