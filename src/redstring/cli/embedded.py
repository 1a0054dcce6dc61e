"""The embedded default: a PostgreSQL 16 + pgvector (pgserver) that outlives each command.

The server lives in ``<data_dir>/postgres`` and listens on a unix socket only. The first
command initialises and starts it (a few seconds); later commands find it running and
connect at once. It keeps running after the command exits, so the next command starts fast,
until it has been idle for ``db_idle_minutes`` (30 by default; :mod:`redstring.cli.idle`) or
``redstring db stop`` (``stop``) shuts it down; the data stays. As root, pgserver runs
PostgreSQL as its own ``pgserver`` system user, because PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from redstring.cli.errors import UnavailableError

__all__ = ["Status", "last_used", "pgdata_of", "running", "start", "status", "stop"]


def pgdata_of(data_dir: Path) -> Path:
    """The PostgreSQL data directory under the command's data directory."""
    return data_dir / "postgres"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running(data_dir: Path) -> int | None:
    """The pid of the embedded server under ``data_dir`` when it runs, else None."""
    try:
        first = (pgdata_of(data_dir) / "postmaster.pid").read_text().split("\n", 1)[0]
        pid = int(first.strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def _stamp(data_dir: Path) -> Path:
    return data_dir / "last-used"


def last_used(data_dir: Path) -> float:
    """When a command last used the embedded server (epoch seconds; 0 when never)."""
    try:
        return _stamp(data_dir).stat().st_mtime
    except OSError:
        return 0.0


def recorded_dsn(data_dir: Path) -> str | None:
    """The DSN the server was last started with (for the idle watcher)."""
    try:
        return (data_dir / "postgres.dsn").read_text().strip() or None
    except OSError:
        return None


def watcher_pid_file(data_dir: Path) -> Path:
    """Where the idle watcher of ``data_dir`` keeps its pid."""
    return data_dir / "idle-watch.pid"


def _watcher(data_dir: Path) -> int | None:
    try:
        pid = int(watcher_pid_file(data_dir).read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def _ensure_watcher(data_dir: Path, idle_minutes: float) -> None:
    if idle_minutes <= 0 or _watcher(data_dir) is not None:
        return
    process = subprocess.Popen(
        [sys.executable, "-m", "redstring.cli.idle", str(data_dir), f"{idle_minutes:g}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    watcher_pid_file(data_dir).write_text(str(process.pid))


def start(data_dir: Path, *, idle_minutes: float = 0) -> str:
    """Start (or find running) the embedded server under ``data_dir``; return its DSN.

    Marks it used now; with ``idle_minutes`` > 0 a detached watcher stops it after that
    long without a command (and without a connected client)."""
    pgdata = pgdata_of(data_dir)
    pgdata.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (root shells, CI); its fallback
        # is fine for pgserver's lock file.
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        try:
            from pgserver.postgres_server import get_server
        except ImportError as error:
            raise UnavailableError(
                "the embedded PostgreSQL needs the pgserver package (the 'postgres' extra); "
                "install redstring[cli], or pass --postgres-dsn or --backend memory"
            ) from error
        try:
            server = get_server(pgdata, cleanup_mode=None)
        except (subprocess.SubprocessError, OSError) as error:
            raise UnavailableError(
                f"the embedded PostgreSQL in {pgdata} did not start ({error}); see {pgdata / 'log'}"
            ) from error
    dsn: str = server.get_uri()
    (data_dir / "postgres.dsn").write_text(dsn)
    _stamp(data_dir).touch()
    _ensure_watcher(data_dir, idle_minutes)
    return dsn


@dataclass(frozen=True)
class Status:
    """What ``redstring db status`` reports."""

    data_dir: str
    pgdata: str
    running: bool
    pid: int | None
    disk_bytes: int
    last_used: str | None
    idle_minutes: float
    idle_watcher_pid: int | None


def _disk(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += (Path(root) / name).stat().st_size
            except OSError:
                continue
    return total


def status(data_dir: Path, idle_minutes: float) -> Status:
    """The embedded server's state, without starting it."""
    stamp = last_used(data_dir)
    return Status(
        data_dir=str(data_dir),
        pgdata=str(pgdata_of(data_dir)),
        running=running(data_dir) is not None,
        pid=running(data_dir),
        disk_bytes=_disk(pgdata_of(data_dir)),
        last_used=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp)) if stamp else None,
        idle_minutes=idle_minutes,
        idle_watcher_pid=_watcher(data_dir),
    )


def stop(data_dir: Path) -> bool:
    """Stop the embedded server under ``data_dir`` if it runs; True when one was stopped."""
    pgdata = pgdata_of(data_dir)
    if not (pgdata / "postmaster.pid").exists():
        return False
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import pgserver

    pg_ctl = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_ctl"
    owner = pgdata.stat()
    root = _is_root()
    # pg_ctl refuses to run as root; the server's own user (pgserver's) may stop it.
    result = subprocess.run(
        [str(pg_ctl), "-D", str(pgdata), "-w", "-m", "fast", "stop"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        user=owner.st_uid if root else None,
        group=owner.st_gid if root else None,
    )
    stopped: bool = result.returncode == 0
    return stopped


def _is_root() -> bool:
    import os

    return hasattr(os, "geteuid") and os.geteuid() == 0
