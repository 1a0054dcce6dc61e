"""``redstring.testing.__all__`` is the second public promise: every suite is named in it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import redstring.testing


def _modules() -> list[str]:
    """Every module of the package, a suite split into a package of its own included."""
    prefix = "redstring.testing."
    return [
        info.name.removeprefix(prefix)
        for info in pkgutil.walk_packages(redstring.testing.__path__, prefix)
    ]


def _suites() -> set[str]:
    found = set()
    for name in _modules():
        module = importlib.import_module(f"redstring.testing.{name}")
        for attr, value in vars(module).items():
            if (
                inspect.isclass(value)
                and value.__module__ == module.__name__
                and attr.endswith("Compliance")
            ):
                found.add(attr)
    return found


def test_every_compliance_class_is_exported() -> None:
    """A suite nobody can import from ``redstring.testing`` is a suite nobody runs."""
    assert _suites() - set(redstring.testing.__all__) == set()


def test_every_exported_name_exists() -> None:
    """Every name in ``redstring.testing.__all__`` resolves."""
    missing = [n for n in redstring.testing.__all__ if not hasattr(redstring.testing, n)]
    assert missing == []


def test_the_promise_is_sorted_and_unique() -> None:
    """Sorted and unique."""
    names = list(redstring.testing.__all__)
    assert names == sorted(set(names))


def test_nothing_in_the_package_is_collected_on_its_own() -> None:
    """No module matches ``test_*.py`` and no class ``Test*``: suites run only when subclassed."""
    modules = _modules()
    assert {"strategies", "graph_store", "graph_store.entities"} <= set(modules)
    assert not [name for name in modules if name.rpartition(".")[2].startswith("test")]
    for name in modules:
        module = importlib.import_module(f"redstring.testing.{name}")
        classes = [
            attr
            for attr, value in vars(module).items()
            if inspect.isclass(value) and attr.startswith("Test")
        ]
        assert classes == [], f"redstring.testing.{name} defines {classes}"
