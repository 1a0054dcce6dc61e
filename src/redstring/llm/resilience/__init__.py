"""Hardened model calls: a shared rate limit, a shared circuit breaker, retries and a timeout.

:class:`ResilientLlmProvider` wraps any LlmProvider and is one itself (same ``model``, same
``extract``). Its rate limit and breaker keep their state in a Cache, so every worker pointed
at one shared cache (Redis) obeys one budget and sees one circuit. See
``docs/how-to/harden-model-calls.md``.
"""

from __future__ import annotations

from redstring.llm.resilience.circuit_breaker import CircuitBreaker, CircuitBreakerPolicy
from redstring.llm.resilience.provider import ResilientLlmProvider
from redstring.llm.resilience.rate_limit import OnLimit, RateLimiter, RateLimitPolicy
from redstring.llm.resilience.retry import RetryPolicy
from redstring.llm.resilience.timing import Clock, Sleep

__all__ = [
    "CircuitBreaker",
    "CircuitBreakerPolicy",
    "Clock",
    "OnLimit",
    "RateLimitPolicy",
    "RateLimiter",
    "ResilientLlmProvider",
    "RetryPolicy",
    "Sleep",
]
