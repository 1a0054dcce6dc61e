"""Errors that are part of the ports' contracts.

Argument errors (``InvalidArgumentError``, ``DimensionMismatchError``, ``ZeroVectorError``)
live in ``redstring.domain.errors`` and are re-exported here for adapters' convenience.
"""

from __future__ import annotations

from redstring.domain.errors import (
    DimensionMismatchError,
    InvalidArgumentError,
    RedstringError,
    ZeroVectorError,
)
from redstring.domain.ids import EntityId

__all__ = [
    "CircuitOpenError",
    "ConcurrencyConflictError",
    "DimensionMismatchError",
    "EmptyCompletionError",
    "ExtractionError",
    "InvalidArgumentError",
    "LlmProviderError",
    "MalformedCompletionError",
    "MissingEntityError",
    "RateLimitedError",
    "RedstringError",
    "RefusedCompletionError",
    "TransientLlmError",
    "ZeroVectorError",
]


class MissingEntityError(RedstringError, LookupError):
    """A write referenced an entity the tenant does not hold (e.g. a relationship endpoint)."""

    def __init__(self, entity_ids: list[EntityId], *, tenant_id: str) -> None:
        shown = ", ".join(str(entity_id) for entity_id in entity_ids)
        super().__init__(
            f"tenant {tenant_id!r} holds no entity {shown}: upsert the entities before "
            "relationships or aliases that reference them"
        )
        self.entity_ids = entity_ids
        self.tenant_id = tenant_id


class ConcurrencyConflictError(RedstringError):
    """An append expected a stream version the stream no longer has; re-read and retry."""

    def __init__(self, *, stream: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream!r} is at version {actual}, not the expected {expected}: another "
            "writer appended first; re-read the stream and decide again"
        )
        self.stream = stream
        self.expected = expected
        self.actual = actual


class LlmProviderError(RedstringError):
    """A model call failed. Every LlmProvider failure is one of these, so one ``except`` holds."""


class EmptyCompletionError(LlmProviderError):
    """The model returned no usable content (blank, or truncated at its token limit)."""


class MalformedCompletionError(LlmProviderError):
    """The model returned content that does not validate against the requested schema."""


class RefusedCompletionError(LlmProviderError):
    """The model refused the request. Permanent for that content: do not retry."""


class TransientLlmError(LlmProviderError):
    """A failure worth retrying: a timeout, a 429, a 5xx or a dropped connection."""


class RateLimitedError(LlmProviderError):
    """The shared call budget for the current window is spent and the policy is not to wait."""


class CircuitOpenError(LlmProviderError):
    """Too many recent transient failures: calls fail fast until the cool-down has passed."""


class ExtractionError(RedstringError):
    """An extractor failed on a passage for a reason other than a model call (which raises an
    :class:`LlmProviderError`); ingest with ``skip_failed_chunks`` records it and carries on."""
