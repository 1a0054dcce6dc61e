"""The machinery every store suite shares: fresh stores per example, disposal, the guard.

A store suite subclasses :class:`StoreSuite` and an adapter's test class subclasses that
suite, supplying ``new_store()`` (and ``dispose()`` when ``new_store`` acquired something).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import ClassVar, Generic, TypeVar

import pytest

StoreT = TypeVar("StoreT")


class SuiteGuard:
    """Fails when an adapter's subclass overrides or deletes one of the suite's tests.

    The suite is what makes adapters interchangeable; a subclass that relaxes one test has
    found either a bug in itself or a gap in the port, and neither is fixed by an override.
    Each suite names itself in ``SUITE``.
    """

    SUITE: ClassVar[type]

    def test_the_suite_is_run_unchanged(self) -> None:
        """Every ``test_*`` of the suite (and its nested classes) is the suite's own."""
        suite = type(self).SUITE
        changed = [
            name
            for name in _test_names(suite)
            if inspect.getattr_static(type(self), name, None)
            is not inspect.getattr_static(suite, name, None)
        ]
        assert changed == [], (
            f"{type(self).__name__} overrides or deletes suite tests {changed}; run "
            f"{suite.__name__} unchanged"
        )


def _test_names(cls: type) -> list[str]:
    return sorted(
        name
        for klass in cls.__mro__
        if klass is not object
        for name in vars(klass)
        if name.startswith("test_")
    )


class StoreSuite(SuiteGuard, Generic[StoreT]):
    """Base of the store suites: ``new_store`` per example and ``dispose`` that always runs.

    ``new_store()`` must return an empty store isolated from every other store it returned;
    it is called once per hypothesis example, because a function-scoped fixture would be
    shared across the examples of one ``@given``. ``dispose(store)`` is a no-op here;
    override it when ``new_store`` acquired a connection.
    """

    async def new_store(self) -> StoreT:
        """Return a fresh, empty, isolated store. Adapters must override this."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement `async def new_store(self)` returning a "
            "fresh, empty store"
        )

    async def dispose(self, store: StoreT) -> None:
        """Release what ``new_store`` acquired. The default does nothing."""

    @asynccontextmanager
    async def fresh_store(self) -> AsyncIterator[StoreT]:
        """A new store, disposed of whether the body completes or raises."""
        store = await self.new_store()
        try:
            yield store
        finally:
            await self.dispose(store)

    @pytest.fixture
    async def store(self) -> AsyncIterator[StoreT]:
        """A fresh store for an example-based test."""
        async with self.fresh_store() as store:
            yield store
