"""What several benchmarks share: a throwaway embedded PostgreSQL and a plain-text table."""

from __future__ import annotations

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
