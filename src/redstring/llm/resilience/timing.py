"""The two ways resilience code touches time, both injected so tests name instants.

``Clock`` returns epoch seconds, not a monotonic reading: hit windows and cool-downs are
shared through a cache by processes (and machines) whose monotonic clocks have unrelated
origins. ``Sleep`` is awaited for every wait, so a test passes one that advances its clock.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

Clock: TypeAlias = Callable[[], float]
"""Returns the current time as epoch seconds (``time.time`` in production)."""

Sleep: TypeAlias = Callable[[float], Awaitable[None]]
"""Waits the given number of seconds (``asyncio.sleep`` in production)."""
