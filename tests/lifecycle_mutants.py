"""Three lifecycle defects planted on any store adapter, for every store suite's mutant tests.

Each is the adapter with one broken promise of ``redstring.ports.lifecycle.AsyncClosable``;
``redstring.testing.lifecycle.LifecycleCases`` names the case that must fail on it.
"""

from __future__ import annotations

import functools
from types import TracebackType
from typing import Any, TypeVar

StoreT = TypeVar("StoreT")

CAUGHT_BY = {
    "ExitSwallowsExceptions": "test_the_block_form_never_suppresses_an_exception",
    "EnterReturnsNone": "test_the_block_form_binds_the_store",
    "ClosesOnlyOnce": "test_close_is_safe_to_call_twice",
    "ExitLeavesItOpen": "test_the_block_form_closes_the_store_once",
}
"""Mutant name suffix -> the LifecycleCases case written for it."""


@functools.cache
def lifecycle_mutants(adapter: type[StoreT]) -> dict[type[StoreT], str]:
    """``adapter`` with each lifecycle defect, mapped to the case that must catch it.

    Cached, so every call for one adapter names the same three classes.
    """
    base: Any = adapter

    class ExitSwallowsExceptions(base):  # type: ignore[misc]
        """``__aexit__`` returning True: the block's exception, and a cancellation, vanish."""

        async def __aexit__(
            self,
            exc_type: type[BaseException] | None,
            exc: BaseException | None,
            tb: TracebackType | None,
        ) -> bool:
            await self.close()
            return True

    class EnterReturnsNone(base):  # type: ignore[misc]
        """``__aenter__`` without ``return self``: ``async with X() as x`` binds None."""

        async def __aenter__(self) -> None:
            return None

    class ClosesOnlyOnce(base):  # type: ignore[misc]
        """A second ``close`` raises, as closing an already-closed pool does."""

        _closed_once = False

        async def close(self) -> None:
            if self._closed_once:
                raise RuntimeError("already closed")
            self._closed_once = True
            await super().close()

    class ExitLeavesItOpen(base):  # type: ignore[misc]
        """``__aexit__`` that returns without calling ``close``: every block leaks."""

        async def __aexit__(
            self,
            exc_type: type[BaseException] | None,
            exc: BaseException | None,
            tb: TracebackType | None,
        ) -> None:
            return None

    mutants: dict[type[StoreT], str] = {}
    for mutant in (ExitSwallowsExceptions, EnterReturnsNone, ClosesOnlyOnce, ExitLeavesItOpen):
        suffix = mutant.__name__
        mutant.__name__ = mutant.__qualname__ = f"{adapter.__name__}{suffix}"
        mutants[mutant] = CAUGHT_BY[suffix]
    return mutants
