"""Running the real ``redstring`` command in-process, isolated from the user's own settings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from redstring.cli.app import app

EXTRACTOR = "tests.unit.cli.names_extractor:CapitalisedNames"
RunCli = Callable[..., "CliResult"]


class CliResult:
    """What one command run printed and how it exited."""

    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self) -> str:
        return f"exit {self.exit_code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    """An empty config file, so no test reads the user's own."""
    path = tmp_path / "config.toml"
    path.write_text("")
    return path


@pytest.fixture
def run_cli(settings_file: Path, tmp_path: Path) -> RunCli:
    """``run_cli("ingest", "x.md", backend="memory")``: the command with isolated settings.

    Keyword arguments become trailing options; the config file is always the empty one and
    no ``REDSTRING_*`` setting leaks in from the environment unless passed in ``env``.
    """

    def run(*args: str, env: dict[str, str] | None = None, **options: str) -> CliResult:
        argv = list(args)
        for name, value in options.items():
            argv += [f"--{name.replace('_', '-')}", value]
        if args and args[0] not in {"--version", "--help"}:
            argv += ["--config", str(settings_file)]
        clean = {
            f"REDSTRING_{name}": None
            for name in (
                "BACKEND", "POSTGRES_DSN", "NEO4J_URI", "REDIS_URL", "LLM_BASE_URL",
                "LLM_MODEL", "LLM_API_KEY", "DATA_DIR", "EXTRACTOR", "CONFIG",
            )
        }  # fmt: skip
        clean.update(env or {})
        result = CliRunner().invoke(app, argv, env=clean, catch_exceptions=False)
        return CliResult(result.exit_code, result.stdout, result.stderr)

    return run
