"""Shared state for model-call resilience; Cache adapters live in ``redstring.cache.adapters``.

The resilience that uses a cache (rate limits, the circuit breaker) stays in
``redstring.llm.resilience`` and reaches a cache through the port only.
"""
