"""Start or stop the pgserver PostgreSQL used by scripts/test: `start DIR` prints its DSN."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def start(directory: Path) -> str:
    import pgserver  # the test-only embedded server; the library never imports it here

    server = pgserver.get_server(directory, cleanup_mode=None)
    server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
    return str(server.get_uri())


def stop(directory: Path) -> None:
    import pgserver

    pg_ctl = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_ctl"
    data = directory / "pgdata" if (directory / "pgdata").exists() else directory
    subprocess.run([str(pg_ctl), "-D", str(data), "-m", "fast", "stop"], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    command, where = sys.argv[1], Path(sys.argv[2]).resolve()
    if command == "start":
        print(start(where))
    elif command == "stop":
        stop(where)
    else:
        raise SystemExit(f"usage: {sys.argv[0]} start|stop DIR")
