"""What several benchmarks share: a throwaway embedded PostgreSQL, a plain-text table, a free
port and percentiles."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path


def start_pgserver(name: str) -> tuple[str, Callable[[], None]]:
    """Start a pgserver in a fresh temporary directory; its DSN and a function stopping it."""
    directory = tempfile.mkdtemp(prefix=f"redstring-{name}-")
    ctl = Path(__file__).resolve().parents[1] / "scripts" / "lib" / "pgserver_ctl.py"
    dsn = subprocess.run(
        [sys.executable, str(ctl), "start", directory], check=True, capture_output=True, text=True
    ).stdout.strip()

    def stop() -> None:
        subprocess.run([sys.executable, str(ctl), "stop", directory], check=False)

    return dsn, stop


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print ``rows`` under ``header`` as columns separated by `` | ``, padded to fit."""
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print(" | ".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    print()


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def percentile(values: Sequence[float], share: float) -> float:
    """The value at ``share`` (0-1) of the sorted ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
