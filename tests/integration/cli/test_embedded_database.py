"""`redstring db status|stop` and the idle shutdown of the embedded PostgreSQL, on a data
directory of their own (real pgserver processes, stopped afterwards)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from redstring.cli import embedded
from tests.cli_runner import CliResult, clean_environment

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "data"
    directory.mkdir()
    (tmp_path / "config.toml").write_text("")
    yield directory
    embedded.stop(directory)


def _run(data_dir: Path, *args: str) -> CliResult:
    done = subprocess.run(
        [sys.executable, "-m", "redstring", *args, "--data-dir", str(data_dir),
         "--config", str(data_dir.parent / "config.toml")],
        env=clean_environment({"PYTHONPATH": str(ROOT)}),
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )  # fmt: skip
    return CliResult(done.returncode, done.stdout, done.stderr)


def test_db_status_and_stop_see_and_stop_the_server_without_starting_it(data_dir: Path) -> None:
    """status says stopped before any command; running (with its pid and size) after one;
    stop stops it, and status then says stopped (before: no command to see or stop it)."""
    before = _run(data_dir, "db", "status", "--json")
    assert before.exit_code == 0, before
    assert json.loads(before.stdout)["running"] is False
    assert not (data_dir / "postgres" / "postmaster.pid").exists()

    used = _run(data_dir, "stats", "--db-idle-minutes", "0")
    assert used.exit_code == 3, used  # nothing ingested: but the server started
    up = json.loads(_run(data_dir, "db", "status", "--json").stdout)
    assert up["running"] is True
    assert up["pid"] == embedded.running(data_dir)
    assert up["disk_bytes"] > 1_000_000
    assert up["last_used"] is not None
    text = _run(data_dir, "db", "status").stdout
    assert f"running (pid {up['pid']})" in text

    stopped = _run(data_dir, "db", "stop")
    assert stopped.exit_code == 0, stopped
    assert "stopped the embedded PostgreSQL" in stopped.stdout
    assert json.loads(_run(data_dir, "db", "status", "--json").stdout)["running"] is False
    assert "was not running" in _run(data_dir, "db", "stop").stdout


def test_the_server_stops_by_itself_after_the_idle_time(data_dir: Path) -> None:
    """With db_idle_minutes 0.05 (3 s) the watcher stops the server soon after the last
    command, and exits; a later command starts it again."""
    used = _run(data_dir, "stats", "--db-idle-minutes", "0.05")
    assert used.exit_code == 3, used
    assert embedded.running(data_dir) is not None
    deadline = time.monotonic() + 60
    while embedded.running(data_dir) is not None:
        assert time.monotonic() < deadline, "the idle watcher did not stop the server"
        time.sleep(0.5)
    time.sleep(1)
    assert not embedded.watcher_pid_file(data_dir).exists()
    again = _run(data_dir, "stats", "--db-idle-minutes", "0")
    assert again.exit_code == 3, again
    assert embedded.running(data_dir) is not None
