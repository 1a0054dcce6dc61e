"""Has pytest rewrite the suites' ``assert`` statements, so a failure shows the values.

pytest rewrites test modules and conftest files on its own, not a library's modules: without
this an adapter author running a suite would read a bare ``AssertionError``. A module is
rewritten only when registered before its import, so ``redstring.testing`` imports this
first. Outside a pytest run, registering does nothing.
"""

from __future__ import annotations

import pkgutil
from pathlib import Path

import pytest

_PACKAGE = __name__.rpartition(".")[0]

pytest.register_assert_rewrite(
    *(
        f"{_PACKAGE}.{module.name}"
        for module in pkgutil.iter_modules([str(Path(__file__).parent)])
        if not module.name.startswith("_")
    )
)
