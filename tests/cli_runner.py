"""Running the real ``redstring`` command in-process (Typer's runner), isolated from the
user's own settings: an explicit empty config file and no ``REDSTRING_*`` setting from the
environment unless a test passes one."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner

from redstring.cli.commands import app
from redstring.cli.settings import SETTING_NAMES

EXTRACTOR = "tests.unit.cli.names_extractor:CapitalisedNames"
SETTING_VARIABLES = (
    *(f"REDSTRING_{name.upper()}" for name in SETTING_NAMES),
    "REDSTRING_CONFIG",
)


class CliResult:
    """What one command run printed and how it exited."""

    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self) -> str:
        return f"exit {self.exit_code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def invoke(
    args: tuple[str, ...],
    *,
    config_file: Path,
    env: dict[str, str] | None = None,
    options: dict[str, str] | None = None,
) -> CliResult:
    """Run ``redstring ARGS... --OPTION VALUE... --config CONFIG_FILE`` in this process."""
    argv = list(args)
    for name, value in (options or {}).items():
        argv += [f"--{name.replace('_', '-')}", value]
    if args and args[0] not in {"--version", "--help"}:
        argv += ["--config", str(config_file)]
    clean: dict[str, str | None] = dict.fromkeys(SETTING_VARIABLES)
    clean.update(env or {})
    result = CliRunner().invoke(app, argv, env=clean, catch_exceptions=False)
    return CliResult(result.exit_code, result.stdout, result.stderr)


def clean_environment(extra: dict[str, str]) -> dict[str, str]:
    """``os.environ`` without REDSTRING_* settings, plus ``extra`` (for subprocesses)."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in SETTING_VARIABLES}
    env.update(extra)
    return env


@contextmanager
def serving(
    options: Sequence[str], *, env: dict[str, str], cwd: Path | None = None
) -> Iterator[str]:
    """``redstring serve OPTIONS...`` in a subprocess on a free loopback port; yields its base
    URL once ``/v1/ready`` answers 200 (failing with its stderr if it exits first, or after
    two minutes), and stops it on exit (SIGINT, then kill)."""
    import requests

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "redstring", "serve", "--port", str(port), *options],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            try:
                if requests.get(f"{base}/v1/ready", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.5)
        yield base
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
