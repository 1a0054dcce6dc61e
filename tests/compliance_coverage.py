"""Which read methods a port has, derived from its Protocol, for the coverage gates.

Every read method of a store port needs ``test_<method>_returns_copies`` and
``test_<method>_never_crosses_tenants`` in its compliance suite. A method is a read when its
return annotation mentions a domain type (e.g. ``Entity``, ``StoredChunk``) or is or contains
a mutable container (``list``, ``dict``, ``set``): ``existing_ids`` returns ``set[ChunkId]``
and ``ChunkId`` is a ``str``, so only the second axis finds it.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any

_MUTABLE = (list, dict, set)


def _protocol_members(protocol: type) -> list[str]:
    names = {
        name
        for klass in protocol.__mro__
        if klass is not object and getattr(klass, "_is_protocol", False)
        for name, value in vars(klass).items()
        if not name.startswith("_") and inspect.isfunction(value)
    }
    return sorted(names)


def _mentions_read_type(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if annotation in _MUTABLE or origin in _MUTABLE:
        return True
    if inspect.isclass(annotation) and annotation.__module__.startswith("redstring.domain"):
        return True
    return any(_mentions_read_type(arg) for arg in typing.get_args(annotation))


def read_methods(protocol: type) -> list[str]:
    """The protocol's methods whose return type makes them reads (see the module docstring)."""
    reads = []
    for name in _protocol_members(protocol):
        hints = typing.get_type_hints(getattr(protocol, name))
        if _mentions_read_type(hints.get("return")):
            reads.append(name)
    return reads


def suite_test_names(suite: type) -> set[str]:
    """Every ``test_*`` name on ``suite`` or on a class nested in it."""
    names = {name for name in dir(suite) if name.startswith("test_")}
    for value in vars(suite).values():
        if inspect.isclass(value):
            names |= {name for name in dir(value) if name.startswith("test_")}
    return names


def isolation_test_names(protocol: type) -> list[str]:
    """``test_<read>_returns_copies`` and ``test_<read>_never_crosses_tenants`` for every read."""
    return [
        f"test_{method}_{suffix}"
        for method in read_methods(protocol)
        for suffix in ("returns_copies", "never_crosses_tenants")
    ]


def missing_isolation_tests(protocol: type, suite: type) -> list[str]:
    """The copy and tenant tests the suite still lacks for the protocol's read methods."""
    present = suite_test_names(suite)
    return [name for name in isolation_test_names(protocol) if name not in present]
