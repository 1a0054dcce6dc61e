"""Start or stop the pgserver PostgreSQL used by scripts/test and the benchmarks.

    python scripts/lib/pgserver_ctl.py start DIR    prints the DSN (unix socket) on stdout
    python scripts/lib/pgserver_ctl.py stop DIR     fast shutdown; does nothing if not running

The server is PostgreSQL 16 with pgvector from the ``pgserver`` wheel. pgserver itself starts
it on a unix socket only (``-h ""``); we restart it once with a free loopback TCP port as well,
so tools that cannot use a socket directory (and a person with psql) can reach it at
``postgresql://postgres@127.0.0.1:PORT/postgres``. The printed DSN uses the socket, which
asyncpg accepts and which is faster on one machine. ``CREATE EXTENSION vector`` is run once.

As root, pgserver runs PostgreSQL as its own ``pgserver`` system user (PostgreSQL refuses
root), so every pg_ctl call here runs as that user too: a pg_ctl run as root exits at once
with "cannot be run as root", which is how an earlier ``stop`` silently stopped nothing.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _run_as(directory: Path) -> dict[str, Any]:
    """subprocess options that run a PostgreSQL binary as the owner of the data directory."""
    if os.geteuid() != 0:
        return {}
    return {"user": directory.stat().st_uid, "group": directory.stat().st_gid}


def _pg_ctl(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    import pgserver  # test and benchmark infrastructure only; the library never imports it

    pg_ctl = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_ctl"
    return subprocess.run(
        [str(pg_ctl), "-D", str(directory), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        **_run_as(directory),
    )


def start(directory: Path) -> str:
    """Initialise (first time) and start the server in ``directory``; return its socket DSN."""
    import pgserver

    server = pgserver.get_server(directory, cleanup_mode=None)
    socket_dir = server.get_postmaster_info().socket_dir
    if socket_dir is None:
        raise SystemExit(f"pgserver started {directory} without a unix socket; cannot continue")
    port = _free_port()
    stopped = _pg_ctl(directory, "-w", "-m", "fast", "stop")
    if stopped.returncode != 0:
        raise SystemExit(f"could not restart PostgreSQL in {directory}: {stopped.stderr}")
    started = _pg_ctl(
        directory,
        "-w",
        "-l",
        str(directory / "log"),
        "-o",
        f"-h 127.0.0.1 -p {port} -k {socket_dir}",
        "start",
    )
    if started.returncode != 0:
        log = (directory / "log").read_text(errors="replace")[-4000:]
        raise SystemExit(f"PostgreSQL did not start in {directory}: {started.stderr}\n{log}")
    dsn = f"postgresql://postgres@/postgres?host={socket_dir}&port={port}"
    _create_vector_extension(directory, dsn)
    print(
        f"PostgreSQL also listens on postgresql://postgres@127.0.0.1:{port}/postgres",
        file=sys.stderr,
    )
    return dsn


def _create_vector_extension(directory: Path, dsn: str) -> None:
    import pgserver

    psql = Path(pgserver.__file__).parent / "pginstall" / "bin" / "psql"
    result = subprocess.run(
        [
            str(psql),
            "-v",
            "ON_ERROR_STOP=1",
            "-q",
            "-c",
            "CREATE EXTENSION IF NOT EXISTS vector",
            dsn,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode != 0:
        raise SystemExit(f"CREATE EXTENSION vector failed in {directory}: {result.stderr}")


def stop(directory: Path) -> None:
    """Stop the server in ``directory`` (fast shutdown); a server already down is fine."""
    if (directory / "postmaster.pid").exists():
        result = _pg_ctl(directory, "-w", "-m", "fast", "stop")
        if result.returncode != 0:
            print(f"pg_ctl stop in {directory}: {result.stderr.strip()}", file=sys.stderr)


if __name__ == "__main__":
    # platformdirs warns on every run when XDG_RUNTIME_DIR is unset (CI, root shells); the
    # fallback it takes is fine for pgserver's lock file.
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    if len(sys.argv) != 3 or sys.argv[1] not in {"start", "stop"}:
        raise SystemExit(f"usage: {sys.argv[0]} start|stop DIR")
    command, where = sys.argv[1], Path(sys.argv[2]).resolve()
    if command == "start":
        print(start(where))
    else:
        stop(where)
