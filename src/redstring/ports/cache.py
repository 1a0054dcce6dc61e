"""Cache: values, counters and hit windows shared by every worker using one backend.

This is deliberately not a general cache; it carries what the model-call resilience needs
(``redstring.llm.resilience``). Rules (enforced by ``redstring.testing.cache.CacheCompliance``):

* ``get`` returns ``str`` or ``None`` for a missing key, never bytes.
* ``get`` and ``increment`` share one key space: a counter reads back as its decimal string,
  and ``set(key, "4")`` then ``increment(key)`` returns 5. A missing counter is zero, so the
  first increment returns 1. A counter is exactly what Redis ``INCR`` accepts: ASCII digits
  with an optional leading minus, no padding, no ``+``, no ``_``, no leading zeros, no
  ``-0``, within signed 64 bits. Incrementing anything else raises ``ValueError`` naming the
  key and leaves the value in place.
* Counts are returned exactly (past 2**53 too), and an increment past ``LARGEST_COUNTER``
  raises ``InvalidArgumentError``, leaving the value in place (ADR 0023).
* A counter's TTL is applied when the increment creates it and is never refreshed; an
  increment with a TTL over an existing key (with or without a TTL of its own) leaves that
  key's expiry as it was. ``set`` replaces the value and its TTL: without ``ttl_seconds``
  the new value never expires, whatever the old one had.
* ``record_hit`` moves the whole series' expiry to ``ttl_seconds`` after that call.
* Every ``ttl_seconds`` lies in ``MIN_TTL_SECONDS..MAX_TTL_SECONDS`` (1 ms to 1e9 s): zero,
  negatives, NaN, infinity and anything under a millisecond raise ``InvalidArgumentError``
  (a ``ValueError``) from ``set``, ``increment`` (also on an existing counter) and
  ``record_hit``, and write nothing. TTLs are real below one second (``ttl_seconds=0.05``
  expires).
* Hit times (``at``, ``since``) are finite numbers; NaN or an infinity raises
  ``InvalidArgumentError``. A hit at ``-0.0`` is a hit at ``0.0`` and reads back so, as
  Redis holds it (``check_instant``).
* Keys and values are UTF-8 text: a lone surrogate in a key or a value raises
  ``InvalidArgumentError`` and writes nothing (no UTF-8 store can hold it; ADR 0023).
* Keys are any other text and distinct keys never meet: no case folding, trimming or collision
  between one key's value and another key's hit window. A hit window and a value may share
  a key; ``delete`` clears both.
* Lifecycle (``redstring.ports.lifecycle``): ``close`` is safe twice and ``async with``
  binds the cache and never suppresses. What a closed cache does is the adapter's to state;
  the suite asks nothing of it (``MemoryCache`` stays usable and empty).
* **Time is passed in, never read.** Windows take caller-supplied epoch floats (``at``,
  ``since``); an adapter never reads a clock to fill them, so tests name instants instead of
  sleeping and a cluster with clock drift cannot disagree with its caller. Windows include a
  hit exactly at ``since`` and count two hits at the same instant as two.
"""

from __future__ import annotations

import math
import re
from typing import Protocol, runtime_checkable

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.portable import check_unicode
from redstring.ports.lifecycle import AsyncClosable

LARGEST_COUNTER = 2**63 - 1
"""The largest count ``increment`` returns: Redis's INCR range, which every adapter keeps."""

MIN_TTL_SECONDS = 0.001
"""The shortest TTL: one millisecond, the finest expiry Redis (``PX``) can express."""

MAX_TTL_SECONDS = 1e9
"""The longest TTL (about 31 years): longer is a mistake, and no backend's clock overflows."""


@runtime_checkable
class KeyValueCache(AsyncClosable, Protocol):
    """String values and integer counters with optional expiry."""

    async def get(self, key: str) -> str | None:
        """The value under ``key`` as ``str``, or ``None``."""
        ...

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        """Store ``value`` and replace its TTL: expire after ``ttl_seconds``, or never when None."""
        ...

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        """Add one and return the new count; a TTL applies only when this creates the key.

        ``ttl_seconds`` is checked on every call (positive and finite) even when it will not
        be applied; a value that is not a decimal integer raises ``ValueError``.
        """
        ...

    async def delete(self, key: str) -> None:
        """Remove the value, counter and hit window under ``key``; absent keys are fine."""
        ...


@runtime_checkable
class HitWindow(AsyncClosable, Protocol):
    """Timestamped hits counted over a sliding window, with caller-supplied time."""

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        """Record one hit at epoch ``at``; the series expires ``ttl_seconds`` after this call.

        Every hit restarts the series' expiry; ``ttl_seconds`` must be positive and finite.
        """
        ...

    async def count_hits(self, key: str, *, since: float) -> int:
        """Hits at or after ``since`` (inclusive), duplicates counted."""
        ...

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        """The earliest hit at or after ``since``, or ``None`` when there is none."""
        ...


@runtime_checkable
class Cache(KeyValueCache, HitWindow, Protocol):
    """The whole cache port: key/value with counters, and hit windows."""


def check_ttl(ttl_seconds: float) -> float:
    """``ttl_seconds`` if it lies in ``MIN_TTL_SECONDS..MAX_TTL_SECONDS``.

    Raises :class:`InvalidArgumentError` naming it otherwise (NaN included).
    """
    if not MIN_TTL_SECONDS <= ttl_seconds <= MAX_TTL_SECONDS:
        raise InvalidArgumentError(
            f"ttl_seconds={ttl_seconds!r} is out of range: pass a number of seconds from "
            f"{MIN_TTL_SECONDS} to {MAX_TTL_SECONDS:.0f}, or None for no expiry where allowed"
        )
    return ttl_seconds


def check_text(value: str, *, what: str) -> str:
    """``value`` if it encodes as UTF-8; :class:`InvalidArgumentError` naming the lone
    surrogate otherwise. NUL is fine: Redis and dictionaries hold it."""
    return check_unicode(value, what=what)


def check_instant(value: float, *, what: str) -> float:
    """``value`` as the epoch time a cache holds; :class:`InvalidArgumentError` if not finite.

    ``-0.0`` comes back as ``0.0``: Redis keeps a score of -0 as 0, so a hit recorded at
    ``-0.0`` must read back as ``0.0`` from every adapter (issue 28, ADR 0028).
    """
    if not math.isfinite(value):
        raise InvalidArgumentError(f"{what}={value!r} is not a finite epoch time in seconds")
    return value + 0.0


def counter_value(text: str) -> int | None:
    """The count ``text`` holds, or ``None`` when it is not a counter.

    A counter is Redis's integer form: an optional minus, no plus, no padding, no leading
    zeros, within signed 64 bits. Python's ``int()`` is more forgiving (" 4", "+4", "4_0").
    """
    if not _DECIMAL.fullmatch(text):
        return None
    count = int(text)
    return count if -LARGEST_COUNTER - 1 <= count <= LARGEST_COUNTER else None


_DECIMAL = re.compile(r"0|-?[1-9][0-9]{0,18}")
