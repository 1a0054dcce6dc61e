"""The embedded default: a PostgreSQL 16 + pgvector (pgserver) that outlives each command.

The server lives in ``<data_dir>/postgres`` and listens on a unix socket only. The first
command initialises and starts it (a few seconds); later commands find it running and
connect at once. It keeps running after the command exits, so the next command starts fast;
``stop`` shuts it down (the data stays). As root, pgserver runs PostgreSQL as its own
``pgserver`` system user, because PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

from redstring.cli.errors import UnavailableError

__all__ = ["pgdata_of", "start", "stop"]


def pgdata_of(data_dir: Path) -> Path:
    """The PostgreSQL data directory under the command's data directory."""
    return data_dir / "postgres"


def start(data_dir: Path) -> str:
    """Start (or find running) the embedded server under ``data_dir``; return its DSN."""
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
    return dsn


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
