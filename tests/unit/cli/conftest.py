"""Fixtures that run the real ``redstring`` command in-process with isolated settings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_runner import EXTRACTOR, CliResult, invoke

__all__ = ["EXTRACTOR", "RunCli"]

RunCli = Callable[..., CliResult]


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    """An empty config file, so no test reads the user's own."""
    path = tmp_path / "config.toml"
    path.write_text("")
    return path


@pytest.fixture
def run_cli(settings_file: Path) -> RunCli:
    """``run_cli("ingest", "x.md", backend="memory")``: keyword arguments become options."""

    def run(*args: str, env: dict[str, str] | None = None, **options: str) -> CliResult:
        return invoke(args, config_file=settings_file, env=env, options=options)

    return run
