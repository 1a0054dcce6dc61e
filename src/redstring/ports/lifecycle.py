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
    """

    async def close(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
