"""Retry policy: how many attempts a transient failure gets and how long to back off between."""

from __future__ import annotations

import math
from dataclasses import dataclass

from redstring.domain.errors import InvalidArgumentError


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter, for ``TransientLlmError`` only.

    ``attempts`` counts the first call, so ``attempts=1`` means no retry. The wait before
    retry ``n`` (from 0) is ``random * min(max_delay_seconds, base_delay_seconds * 2**n)``
    with ``random`` uniform in [0, 1): full jitter spreads workers that failed together so
    they do not come back together.
    """

    attempts: int = 3
    base_delay_seconds: float = 0.5
    max_delay_seconds: float = 30.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise InvalidArgumentError(
                f"attempts={self.attempts!r} must be at least 1 (1 means no retry)"
            )
        for name in ("base_delay_seconds", "max_delay_seconds"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise InvalidArgumentError(
                    f"{name}={value!r} must be a finite number of seconds, zero or more"
                )

    def delay(self, retry: int, random: float) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first), given a draw."""
        ceiling = min(self.max_delay_seconds, self.base_delay_seconds * 2.0 ** min(retry, 64))
        return random * ceiling
