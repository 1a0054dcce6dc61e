"""The release trio every store capability declares: ``close``, ``__aenter__``, ``__aexit__``."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self, runtime_checkable


@runtime_checkable
class AsyncClosable(Protocol):
    """Something holding resources that a caller releases with ``close`` or an ``async with``.

    * ``close()`` releases what the object owns and is safe to call twice. Connections,
      pools and drivers it was handed rather than created are left open.
    * ``__aenter__`` returns the object itself, so ``async with X() as x`` binds it.
    * ``__aexit__`` calls ``close()`` and returns ``None``: it never suppresses an exception,
      including the ``CancelledError`` of a timed-out caller.
    * A closed object promises nothing further: calling it may raise or may still work, as
      the adapter documents (the in-memory stores stay usable with their data, ``MemoryCache``
      stays usable and empty, a PostgreSQL store that closed its own pool raises the
      driver's error). Callers close last.

    The first three rules are what ``redstring.testing.lifecycle.LifecycleCases`` checks in
    every store suite, and ``CacheCompliance`` checks for caches; the fourth is checked by
    no suite, because it is no promise.
    """

    async def close(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
