"""ResilientLlmProvider's policies on MemoryCache, plus the policies' own argument checks.

The behaviour cases live in ``tests/resilience_cases.py`` and run again on Redis in
``tests/integration/redis/test_resilience_on_redis.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redstring.cache.adapters.memory import MemoryCache
from redstring.domain.errors import InvalidArgumentError
from redstring.llm.resilience import (
    CircuitBreakerPolicy,
    RateLimitPolicy,
    ResilientLlmProvider,
    RetryPolicy,
)
from redstring.ports.errors import TransientLlmError
from tests.resilience_cases import FakeTime, Found, ResilienceCases, YieldingCache, answering, wrap


@pytest.fixture
def cache() -> MemoryCache:
    return MemoryCache()


class TestResilienceOnMemoryCache(ResilienceCases):
    """Every policy case, on the in-process cache."""


class TestPolicies:
    def test_backoff_doubles_from_the_base_up_to_the_cap(self) -> None:
        """The ceiling doubles per retry and stops at ``max_delay_seconds``."""
        policy = RetryPolicy(attempts=7, base_delay_seconds=1.0, max_delay_seconds=4.0)
        assert [policy.delay(retry, 1.0) for retry in range(5)] == [1.0, 2.0, 4.0, 4.0, 4.0]

    def test_full_jitter_scales_the_ceiling_by_the_draw(self) -> None:
        """A draw of 0 waits nothing and 0.25 waits a quarter: workers spread out."""
        policy = RetryPolicy(base_delay_seconds=2.0)
        assert policy.delay(1, 0.0) == 0.0
        assert policy.delay(1, 0.25) == 1.0

    def test_a_huge_retry_number_does_not_overflow(self) -> None:
        """The exponent is bounded, so a long-running retry loop still gets the cap."""
        assert RetryPolicy(max_delay_seconds=30.0).delay(10_000, 1.0) == 30.0

    @pytest.mark.parametrize(
        ("build", "message"),
        [
            (lambda: RetryPolicy(attempts=0), r"attempts=0 must be at least 1"),
            (lambda: RetryPolicy(base_delay_seconds=-1), r"base_delay_seconds=-1"),
            (lambda: RateLimitPolicy(0, 1.0), r"calls=0 must be at least 1"),
            (lambda: RateLimitPolicy(1, 0.0), r"per_seconds=0\.0 must be a positive"),
            (lambda: RateLimitPolicy(1, float("inf")), r"per_seconds=inf"),
            (lambda: CircuitBreakerPolicy(0, 1.0, 1.0), r"failures=0 must be at least 1"),
            (lambda: CircuitBreakerPolicy(1, float("nan"), 1.0), r"within_seconds=nan"),
            (lambda: CircuitBreakerPolicy(1, 1.0, -5.0), r"cooldown_seconds=-5\.0"),
        ],
    )
    def test_a_policy_out_of_range_names_the_value_and_what_is_valid(
        self, build: Callable[[], object], message: str
    ) -> None:
        """Bad thresholds fail at construction, not as a limiter that never admits."""
        with pytest.raises(InvalidArgumentError, match=message):
            build()


class UnreachableCache(YieldingCache):
    """Every operation fails the way a client fails when its server has gone away."""

    def __init__(self) -> None:
        super().__init__(MemoryCache())

    async def get(self, key: str) -> str | None:
        raise ConnectionError("Connection refused by 127.0.0.1:6379")

    async def count_hits(self, key: str, *, since: float) -> int:
        raise ConnectionError("Connection refused by 127.0.0.1:6379")


class TestAFailingCache:
    @pytest.mark.parametrize(
        ("rate_limit", "circuit_breaker"),
        [(RateLimitPolicy(5, 10.0), None), (None, CircuitBreakerPolicy(3, 10.0, 30.0))],
        ids=["rate-limit", "circuit-breaker"],
    )
    async def test_a_failing_cache_is_a_transient_failure_and_no_call_is_made(
        self, rate_limit: RateLimitPolicy | None, circuit_breaker: CircuitBreakerPolicy | None
    ) -> None:
        """Without the shared state the limit cannot be kept: fail closed, typed, retryable."""
        time = FakeTime()
        inner = answering(time)
        wrapper = wrap(
            inner,
            UnreachableCache(),
            time,
            rate_limit=rate_limit,
            circuit_breaker=circuit_breaker,
            retry=RetryPolicy(attempts=2),
        )
        with pytest.raises(TransientLlmError, match=r"cache .* failed \(ConnectionError"):
            await wrapper.extract("text", Found)
        assert inner.call_count == 0
        assert len(time.sleeps) == 1


def test_a_timeout_out_of_range_names_the_value() -> None:
    """A zero or negative timeout would fail every call; it fails at construction instead."""
    with pytest.raises(InvalidArgumentError, match=r"timeout_seconds=0 must be a positive"):
        ResilientLlmProvider(answering(FakeTime()), MemoryCache(), timeout_seconds=0)
