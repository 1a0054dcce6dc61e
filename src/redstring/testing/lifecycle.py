"""The lifecycle cases every store suite runs: ``close`` and the ``async with`` block form.

``redstring.ports.lifecycle.AsyncClosable`` is declared by every store capability; these
cases are its executable definition for stores, mixed into each store suite (graph, vector,
chunks, event log) so an adapter cannot pass one suite and fail the same promise in another.
The Cache suite states the same three rules against its ``cache`` fixture.

What a closed store does afterwards is not checked: the port leaves it to the adapter.
"""

from __future__ import annotations

import contextlib
from typing import TypeVar

import pytest

from redstring.ports.lifecycle import AsyncClosable
from redstring.testing.harness import StoreSuite

ClosableT = TypeVar("ClosableT", bound=AsyncClosable)


class LifecycleCases(StoreSuite[ClosableT]):
    """``close`` is safe twice, ``__aenter__`` returns the store, ``__aexit__`` closes it once
    and never swallows."""

    async def test_close_is_safe_to_call_twice(self, store: ClosableT) -> None:
        """``close()`` twice does not raise (dispose may close a store a test already closed)."""
        await store.close()
        await store.close()

    async def test_the_block_form_binds_the_store(self, store: ClosableT) -> None:
        """``async with store as bound`` binds the store itself, not ``None`` or a wrapper."""
        async with store as bound:
            assert bound is store, f"__aenter__ returned {bound!r}; expected the store itself"

    async def test_the_block_form_closes_the_store_once(self, store: ClosableT) -> None:
        """Leaving ``async with store`` calls ``store.close()`` exactly once, also on an error.

        ``close`` is replaced on the instance by one that only counts its calls; an
        ``__aexit__`` that releases nothing leaks a pool per block.
        """
        calls: list[str] = []
        original = store.close

        async def counting_close() -> None:
            calls.append("close")  # counted, not performed: closing twice is another case

        store.close = counting_close  # type: ignore[method-assign]
        try:
            async with store:
                pass
            assert calls == ["close"], f"close was called {len(calls)} times on leaving the block"
            with contextlib.suppress(RuntimeError):  # propagating it is another case
                async with store:
                    raise RuntimeError("raised inside the block")
            assert calls == ["close", "close"], "close was not called when the block raised"
        finally:
            store.close = original  # type: ignore[method-assign]

    async def test_the_block_form_never_suppresses_an_exception(self, store: ClosableT) -> None:
        """An exception raised in the block reaches the caller: ``__aexit__`` returns ``None``.

        A true return value would swallow it, including the ``CancelledError`` of a caller
        that timed out.
        """
        with pytest.raises(RuntimeError, match="raised inside the block"):
            async with store:
                raise RuntimeError("raised inside the block")
