"""ResilientLlmProvider: an LlmProvider wrapped in a shared rate limit, a breaker and retries."""

from __future__ import annotations

import asyncio
import math
import random as random_module
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.llm.resilience.circuit_breaker import CircuitBreaker, CircuitBreakerPolicy
from redstring.llm.resilience.rate_limit import RateLimiter, RateLimitPolicy
from redstring.llm.resilience.retry import RetryPolicy
from redstring.llm.resilience.timing import Clock, Sleep
from redstring.ports.cache import Cache
from redstring.ports.errors import LlmProviderError, TransientLlmError
from redstring.ports.llm_provider import LlmProvider, SchemaT

T = TypeVar("T")


class ResilientLlmProvider:
    """Wraps an LlmProvider; is one (same ``model``, same ``extract``), and fails only typed.

    Each attempt, in order: the circuit breaker (``CircuitOpenError`` while open, without
    touching the budget), the rate limit (waits, or ``RateLimitedError`` by policy), then the
    model call under ``timeout_seconds`` (expiry becomes ``TransientLlmError``). A
    ``TransientLlmError`` is counted by the breaker and retried with backoff while attempts
    remain; every retry passes the breaker and the rate limit again, because it is a real
    call. ``RefusedCompletionError``, ``EmptyCompletionError`` and
    ``MalformedCompletionError`` are never retried: asking again spends tokens on the same
    answer. Every failure of the call is an ``LlmProviderError``, a failing cache included
    (a ``TransientLlmError``: without it the shared limit cannot be kept, so calls fail
    closed); a blank ``text`` raises ``EmptyTextError`` before any budget is spent.

    The breaker and limiter state live in ``cache`` under ``scope`` (the inner model by
    default), so every wrapper sharing a cache and a scope shares one budget and one circuit.
    Pass ``None`` for a policy to leave it out. ``clock`` (epoch seconds), ``sleep`` and
    ``random`` are injected so tests name instants instead of waiting.
    """

    def __init__(
        self,
        inner: LlmProvider,
        cache: Cache,
        *,
        scope: str | None = None,
        rate_limit: RateLimitPolicy | None = None,
        circuit_breaker: CircuitBreakerPolicy | None = None,
        retry: RetryPolicy | None = None,
        timeout_seconds: float | None = 120.0,
        clock: Clock = time.time,
        sleep: Sleep = asyncio.sleep,
        random: Callable[[], float] = random_module.random,
    ) -> None:
        if timeout_seconds is not None and not (
            timeout_seconds > 0 and math.isfinite(timeout_seconds)
        ):
            raise InvalidArgumentError(
                f"timeout_seconds={timeout_seconds!r} must be a positive, finite number of "
                "seconds, or None for no timeout"
            )
        self._inner = inner
        self._retry = retry or RetryPolicy(attempts=1)
        self._timeout = timeout_seconds
        self._sleep = sleep
        self._random = random
        key = self._key = f"llm-resilience:{scope if scope is not None else inner.model}"
        self._limiter = (
            None
            if rate_limit is None
            else RateLimiter(
                cache, f"{key}:calls", rate_limit, clock=clock, sleep=sleep, random=random
            )
        )
        self._breaker = (
            None
            if circuit_breaker is None
            else CircuitBreaker(cache, f"{key}:circuit", circuit_breaker, clock=clock)
        )

    @property
    def model(self) -> str:
        """The wrapped provider's model: resilience changes how a call is made, not by whom."""
        return self._inner.model

    async def extract(
        self, text: str, schema: type[SchemaT], *, system_prompt: str | None = None
    ) -> SchemaT:
        """The inner provider's answer, with the rate limit, breaker, timeout and retries."""
        if not text.strip():
            raise EmptyTextError(
                f"text for {schema.__name__} is blank: pass at least one non-whitespace character"
            )
        retry = 0
        while True:
            try:
                return await self._attempt(text, schema, system_prompt)
            except TransientLlmError as error:
                if retry + 1 >= self._retry.attempts:
                    if self._retry.attempts > 1:
                        error.add_note(f"gave up after {self._retry.attempts} attempts")
                    raise
            await self._sleep(self._retry.delay(retry, self._random()))
            retry += 1

    async def _attempt(
        self, text: str, schema: type[SchemaT], system_prompt: str | None
    ) -> SchemaT:
        breaker = self._breaker
        probe = False if breaker is None else await self._shared(breaker.before_call())
        if self._limiter is not None:
            try:
                await self._shared(self._limiter.admit())
            except BaseException:
                if probe and breaker is not None:
                    await self._shared(breaker.release_probe())
                raise
        try:
            result = await self._call(text, schema, system_prompt)
        except TransientLlmError:
            if breaker is not None:
                await self._shared(breaker.record_failure(probe=probe))
            raise
        except LlmProviderError:
            if breaker is not None:
                await self._shared(breaker.record_answer(probe=probe))
            raise
        except BaseException:
            # Not a verdict on the model (a cancelled caller, a bug): free the probe at once
            # rather than leaving it leased for a cool-down.
            if probe and breaker is not None:
                await self._shared(breaker.release_probe())
            raise
        if breaker is not None:
            await self._shared(breaker.record_answer(probe=probe))
        return result

    async def _shared(self, step: Awaitable[T]) -> T:
        """Run a step on the shared cache; its failure is a ``TransientLlmError``.

        Without the cache the shared limit cannot be honoured, so the call fails closed (a
        key over its provider's rate limit can be suspended) and stays inside the
        LlmProviderError family, where a caller's one ``except`` and retry policy expect it.
        """
        try:
            return await step
        except LlmProviderError:
            raise
        except Exception as error:
            raise TransientLlmError(
                f"the cache holding the rate limit and circuit for {self._key!r} failed "
                f"({type(error).__name__}: {error}); calls fail closed until it answers"
            ) from error

    async def _call(self, text: str, schema: type[SchemaT], system_prompt: str | None) -> SchemaT:
        if self._timeout is None:
            return await self._inner.extract(text, schema, system_prompt=system_prompt)
        try:
            async with asyncio.timeout(self._timeout):
                return await self._inner.extract(text, schema, system_prompt=system_prompt)
        except TimeoutError:
            raise TransientLlmError(
                f"{self.model!r} did not answer within {self._timeout:g} s; raise "
                "timeout_seconds if the model is slow rather than down"
            ) from None
