"""``redstring.__all__`` is the public promise, and it is exactly what the package exposes."""

from __future__ import annotations

import types

import redstring


def test_every_promised_name_exists() -> None:
    """A name in ``__all__`` that does not resolve is a broken promise."""
    missing = [name for name in redstring.__all__ if not hasattr(redstring, name)]
    assert missing == []


def test_every_public_name_is_promised() -> None:
    """A public top-level name missing from ``__all__`` is an accidental promise."""
    exposed = {
        name
        for name, value in vars(redstring).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name != "annotations"
    }
    assert exposed - set(redstring.__all__) == set()


def test_the_promise_is_sorted_and_unique() -> None:
    """Sorted and unique, so a diff of the promise reads as a diff of names."""
    assert list(redstring.__all__) == sorted(set(redstring.__all__))
