"""What an integration test does when its backend is not there: skip locally, fail in CI.

Integration tests never silently pass without their backend. On a developer's machine a
missing backend skips with a message naming the command that starts it; with ``CI=true`` the
same situation fails the run, because a CI that skipped every integration test would report
green having tested nothing. Postgres, Redis and Neo4j fixtures all call this one function.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

START_HINT = "./scripts/test"


def in_ci() -> bool:
    """True when running under CI (``CI=true``, as ``.ci/run`` sets it)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def backend_unavailable(name: str, detail: str, start_hint: str = START_HINT) -> NoReturn:
    """Skip (locally) or fail (in CI) because backend ``name`` cannot serve; never returns.

    ``detail`` says what was tried and what went wrong (the address, the error);
    ``start_hint`` is the command that starts the backend.
    """
    message = f"{name} is not available: {detail}. Start it with `{start_hint}`"
    if in_ci():
        pytest.fail(f"{message} (CI=true: a missing backend fails the run)", pytrace=False)
    pytest.skip(message)
