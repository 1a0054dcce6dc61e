"""A missing backend skips an integration test on a laptop and fails it in CI."""

from __future__ import annotations

import pytest
from _pytest.outcomes import Failed, Skipped

from tests.backends import backend_unavailable


@pytest.mark.parametrize("ci", ["", "false", "0"])
def test_outside_ci_a_missing_backend_skips_naming_the_start_command(
    monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    """Locally the test is skipped, and the message says what is missing and how to start it."""
    monkeypatch.setenv("CI", ci)
    with pytest.raises(Skipped, match=r"PostgreSQL is not available: no DSN.*`./scripts/test`"):
        backend_unavailable("PostgreSQL", "no DSN")


@pytest.mark.parametrize("ci", ["true", "TRUE", "1"])
def test_in_ci_a_missing_backend_fails_the_run(monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    """With CI=true a backend that is not up is a failure, never a quiet skip."""
    monkeypatch.setenv("CI", ci)
    with pytest.raises(Failed, match=r"Redis is not available: refused.*`make redis`.*CI=true"):
        backend_unavailable("Redis", "refused", "make redis")


def test_without_the_variable_it_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unset CI is a developer's machine."""
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(Skipped):
        backend_unavailable("Neo4j", "no URI")
