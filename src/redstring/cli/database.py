"""``redstring db status`` and ``redstring db stop``: the embedded PostgreSQL, seen and stopped.

Neither starts the server. ``status`` says whether it runs (and its pid), where its data
lives and how much disk it takes, when a command last used it and when it stops by itself
(``db_idle_minutes``); ``stop`` shuts it down cleanly (the data stays; the next command
starts it again in a few seconds).
"""

from __future__ import annotations

import typer

from redstring.cli import embedded
from redstring.cli.errors import ConfigError
from redstring.cli.options import Invocation, command

__all__ = ["db_app"]

db_app = typer.Typer(
    name="db",
    help="See or stop the embedded PostgreSQL (it stops by itself after db_idle_minutes).",
    no_args_is_help=True,
)


def _embedded_only(invocation: Invocation) -> None:
    if not invocation.settings.embedded:
        raise ConfigError(
            "the settings name a PostgreSQL of your own (or --backend memory): redstring "
            "runs no embedded server for them"
        )


def _size(count: int) -> str:
    size = float(count)
    for unit in ("B", "KB", "MB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


@command(db_app, "status", help="Whether the embedded PostgreSQL runs, where, and its size.")
def db_status(invocation: Invocation) -> None:
    _embedded_only(invocation)
    found = embedded.status(invocation.settings.data_dir, invocation.settings.db_idle_minutes)
    if invocation.json:
        invocation.emit_json(found)
        return
    state = f"running (pid {found.pid})" if found.running else "stopped"
    idle = (
        f"stops after {found.idle_minutes:g} minutes without a command"
        if found.idle_minutes > 0
        else "never stops by itself (db_idle_minutes = 0)"
    )
    invocation.out.print(f"embedded PostgreSQL: {state}", markup=False)
    invocation.out.print(f"data: {found.pgdata} ({_size(found.disk_bytes)})", markup=False)
    invocation.out.print(f"last used: {found.last_used or 'never'}; {idle}", markup=False)


@command(db_app, "stop", help="Stop the embedded PostgreSQL now (the data stays).")
def db_stop(invocation: Invocation) -> None:
    _embedded_only(invocation)
    stopped = embedded.stop(invocation.settings.data_dir)
    if invocation.json:
        invocation.emit_json({"stopped": stopped})
        return
    invocation.out.print(
        "stopped the embedded PostgreSQL" if stopped else "the embedded PostgreSQL was not running"
    )
