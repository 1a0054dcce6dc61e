"""Every adapter of a closable capability honours the block form, derived structurally.

An adapter class is found by matching the members of a closable port capability, not by a
list, so the next adapter is checked by being written. Adapters that need a live backend to
be constructed are named in NEEDS_BACKEND and tested in their integration specifics; that
list is guarded so a stale entry fails.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest

from redstring.ports.lifecycle import AsyncClosable
from tests.unit.test_ports_declare_the_block_form import CLOSABLE

ADAPTER_PACKAGES = (
    "redstring.graph.adapters",
    "redstring.vector.adapters",
    "redstring.chunks.adapters",
    "redstring.eventlog.adapters",
    "redstring.cache.adapters",
)

FACTORIES: dict[str, Callable[[type], Any]] = {
    "InMemoryVectorStore": lambda cls: cls(dimension=8),
}

NEEDS_BACKEND: frozenset[str] = frozenset(
    {
        "Neo4jGraphStore",
        "PgVectorStore",
        "PostgresChunkStore",
        "PostgresEventLog",
        "PostgresGraphStore",
        "RedisCache",
    }
)

_CLOSE = {"close", "__aenter__", "__aexit__"}


def _members(protocol: type) -> set[str]:
    own = {
        name
        for klass in protocol.__mro__
        if klass is not object and getattr(klass, "_is_protocol", False)
        for name in vars(klass)
        if not name.startswith("_") or name in _CLOSE
    }
    return own - {"_is_protocol", "_is_runtime_protocol"}


def adapter_classes() -> list[type]:
    """Every class in an adapter package that has all members of some closable capability."""
    found: dict[str, type] = {}
    for package_name in ADAPTER_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package_name}.{info.name}")
            for name, value in vars(module).items():
                if not inspect.isclass(value) or value.__module__ != module.__name__:
                    continue
                if any(_members(p) <= set(dir(value)) for p in CLOSABLE):
                    found[f"{module.__name__}.{name}"] = value
    return [found[key] for key in sorted(found)]


ADAPTERS = adapter_classes()


def _build(cls: type) -> Any:
    return FACTORIES[cls.__name__](cls) if cls.__name__ in FACTORIES else cls()


def test_needs_backend_names_only_real_adapters() -> None:
    """A stale NEEDS_BACKEND entry would excuse nothing and hide nothing."""
    assert {cls.__name__ for cls in ADAPTERS} >= NEEDS_BACKEND


@pytest.mark.parametrize("cls", ADAPTERS, ids=lambda c: c.__name__)
def test_adapter_declares_async_block_methods(cls: type) -> None:
    """close, __aenter__ and __aexit__ are coroutines and the adapter satisfies AsyncClosable."""
    for name in _CLOSE:
        assert inspect.iscoroutinefunction(getattr(cls, name)), f"{cls.__name__}.{name}"
    assert issubclass(cls, AsyncClosable)


@pytest.mark.parametrize(
    "cls", [c for c in ADAPTERS if c.__name__ not in NEEDS_BACKEND], ids=lambda c: c.__name__
)
def test_block_returns_the_adapter_closes_it_and_never_suppresses(cls: type) -> None:
    """``async with`` binds the adapter, calls close on exit and lets exceptions through."""

    async def scenario() -> None:
        adapter = _build(cls)
        calls: list[str] = []
        original = adapter.close

        async def counting_close() -> None:
            calls.append("close")
            await original()

        adapter.close = counting_close
        async with adapter as bound:
            assert bound is adapter
        assert calls == ["close"]
        with pytest.raises(RuntimeError, match="body failed"):
            async with adapter:
                raise RuntimeError("body failed")
        assert calls == ["close", "close"]
        await adapter.close()

    asyncio.run(scenario())
