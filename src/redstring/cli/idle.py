"""Stop the embedded PostgreSQL once nobody has used it for a while (ADR 0046).

``python -m redstring.cli.idle DATA_DIR MINUTES`` is started, detached, by the command that
starts (or finds) the embedded server when ``db_idle_minutes`` is not 0; one runs per data
directory (its pid in ``idle-watch.pid``). Every command touches ``last-used``; the watcher
looks every ``min(30 s, a third of the idle time)`` and stops the server when the stamp is
older than the idle time and no client is connected (``redstring serve`` holds connections
open, so a serving process keeps it up). It exits when the server is gone, stopped by it or
by anyone else.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path

from redstring.cli import embedded


def clients(dsn: str) -> int:
    """Client connections to the server other than this one (a failure counts as one, so a
    server in trouble is left alone)."""

    async def count() -> int:
        from redstring.postgres.pool import create_pool

        pool = await create_pool(dsn, min_size=1, max_size=1)
        try:
            found: int = await pool.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                "AND pid <> pg_backend_pid()"
            )
            return found
        finally:
            await pool.close()

    try:
        return asyncio.run(count())
    except Exception:
        return 1


def watch(data_dir: Path, minutes: float) -> None:
    """Loop until the server stops (see the module's docstring)."""
    idle = minutes * 60
    pause = max(1.0, min(30.0, idle / 3))
    while embedded.running(data_dir) is not None:
        time.sleep(pause)
        if time.time() - embedded.last_used(data_dir) < idle:
            continue
        dsn = embedded.recorded_dsn(data_dir)
        if dsn is None or clients(dsn) == 0:
            embedded.stop(data_dir)
            return


def main(argv: list[str]) -> int:
    data_dir, minutes = Path(argv[0]), float(argv[1])
    marker = embedded.watcher_pid_file(data_dir)
    marker.write_text(str(os.getpid()))
    try:
        watch(data_dir, minutes)
    finally:
        with contextlib.suppress(OSError):
            if marker.read_text().strip() == str(os.getpid()):
                marker.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
