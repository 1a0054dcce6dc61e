"""The options every command takes, and the one place a command's failure becomes an exit code.

A command is a plain function whose first parameter is a :class:`Invocation`; ``command``
adds ``--tenant``, ``--json``, ``--debug`` and the connection settings to its signature, so
each appears in that command's ``--help`` and may be written after the command's name.
Exit codes: 0 success, 1 bad input or configuration (or a failure the message explains),
2 usage (Click's own), 3 a tenant that holds nothing, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import sys
import traceback
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.text import Text

from redstring.cli import settings as settings_module
from redstring.cli.errors import CliError
from redstring.cli.settings import Settings
from redstring.domain.errors import RedstringError

T = TypeVar("T")

CONNECTION = "Connection (flag > REDSTRING_* variable > config file)"
OUTPUT = "Output"


@dataclass
class Invocation:
    """One run of one command: its tenant, output mode and effective settings."""

    tenant: str
    json: bool
    debug: bool
    flags: dict[str, object | None]
    config_file: Path | None
    out: Console
    err: Console

    @functools.cached_property
    def settings(self) -> Settings:
        """Flags, then ``REDSTRING_*`` variables, then the config file; read on first use."""
        return settings_module.resolve(self.flags, config_file=self.config_file)

    def emit_json(self, value: object) -> None:
        """Write ``value`` as JSON on stdout (pydantic models through ``model_dump``)."""
        sys.stdout.write(json.dumps(plain(value), indent=2, ensure_ascii=False) + "\n")

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run the command's async work to completion on a fresh event loop."""
        return asyncio.run(work)


def plain(value: object) -> Any:
    """JSON-ready data from reports, models, dataclasses, mappings and sequences."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(item) for item in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


_COMMON: list[inspect.Parameter] = [
    inspect.Parameter(
        name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=annotation,
    )
    for name, annotation, default in [
        (
            "tenant",
            Annotated[
                str,
                typer.Option("--tenant", "-t", help="Tenant to work in.", rich_help_panel=OUTPUT),
            ],
            "default",
        ),
        (
            "json_output",
            Annotated[
                bool,
                typer.Option(
                    "--json", help="Print the result as JSON (for scripts).", rich_help_panel=OUTPUT
                ),
            ],
            False,
        ),
        (
            "debug",
            Annotated[
                bool,
                typer.Option(
                    "--debug", help="On failure, show the full traceback.", rich_help_panel=OUTPUT
                ),
            ],
            False,
        ),
        (
            "backend",
            Annotated[
                str | None,
                typer.Option(
                    "--backend",
                    help="postgres (default: embedded unless --postgres-dsn) or memory.",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "postgres_dsn",
            Annotated[
                str | None,
                typer.Option(
                    "--postgres-dsn",
                    help="A PostgreSQL server with pgvector, instead of the embedded one.",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "neo4j_uri",
            Annotated[
                str | None,
                typer.Option(
                    "--neo4j-uri",
                    help="Keep the graph in Neo4j (neo4j://user:password@host:7687).",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "redis_url",
            Annotated[
                str | None,
                typer.Option(
                    "--redis-url",
                    help="Share the model-call rate limit and circuit through Redis.",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "llm_base_url",
            Annotated[
                str | None,
                typer.Option(
                    "--llm-base-url",
                    help="An OpenAI-compatible server (Ollama, vLLM, OpenAI) for extraction "
                    "and answers.",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "llm_model",
            Annotated[
                str | None,
                typer.Option(
                    "--llm-model",
                    help="The model name that server knows.",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "llm_api_key",
            Annotated[
                str | None,
                typer.Option(
                    "--llm-api-key",
                    help="API key for that server (local servers need none).",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "llm_timeout",
            Annotated[
                float | None,
                typer.Option(
                    "--llm-timeout",
                    help="Seconds one model call may take before it counts as failed "
                    "(default 120).",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "db_idle_minutes",
            Annotated[
                float | None,
                typer.Option(
                    "--db-idle-minutes",
                    help="Stop the embedded PostgreSQL after this many minutes without a "
                    "command (default 30; 0: never).",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "data_dir",
            Annotated[
                str | None,
                typer.Option(
                    "--data-dir",
                    help="Where the embedded PostgreSQL keeps its data.",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "extractor",
            Annotated[
                str | None,
                typer.Option(
                    "--extractor",
                    help="auto (LLM if --llm-base-url, else offline), offline, llm, or "
                    "package.module:factory for your own Extractor.",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "embedding_model",
            Annotated[
                str | None,
                typer.Option(
                    "--embedding-model",
                    help="minilm (the default: all-MiniLM-L6-v2), static (the 64-d model: "
                    "fast, much weaker), a path to MiniLM's model.onnx, or "
                    "package.module:factory for your own EmbeddingProvider. Changing it "
                    "needs `redstring rebuild` for tenants embedded before.",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
        (
            "config",
            Annotated[
                Path | None,
                typer.Option(
                    "--config",
                    help="A TOML config file (default: config.toml in the user config "
                    "directory; or REDSTRING_CONFIG).",
                    rich_help_panel=CONNECTION,
                    show_default=False,
                ),
            ],
            None,
        ),
    ]
]
_COMMON_NAMES = {parameter.name for parameter in _COMMON}
_SETTING_FLAGS = set(settings_module.SETTING_NAMES)


def command(
    app: typer.Typer, name: str, *, help: str, tenant: str = "default"
) -> Callable[[Callable[..., None]], None]:
    """Register ``function(invocation, **own_options)`` as ``name`` with the common options
    (``tenant`` is the default of ``--tenant``)."""

    def register(function: Callable[..., None]) -> None:
        own = list(inspect.signature(function, eval_str=True).parameters.values())[1:]
        setting_flags = [p.name for p in own if p.name in _SETTING_FLAGS]
        common = [
            parameter.replace(default=tenant) if parameter.name == "tenant" else parameter
            for parameter in _COMMON
        ]

        @functools.wraps(function)
        def wrapper(**options: Any) -> None:
            common = {key: options.pop(key) for key in _COMMON_NAMES}
            flags = {key: common[key] for key in _SETTING_FLAGS if key in common}
            # A command's own option named like a setting (ingest's --chunk-chars) is that
            # setting's flag: it beats the variable and the config key.
            flags.update({key: options.pop(key) for key in _SETTING_FLAGS if key in options})
            invocation = Invocation(
                tenant=common["tenant"],
                json=common["json_output"],
                debug=common["debug"],
                flags=flags,
                config_file=common["config"],
                out=Console(highlight=False, soft_wrap=False),
                err=Console(stderr=True, highlight=False, soft_wrap=True),
            )
            code = guarded(
                invocation,
                lambda: function(invocation, **options, **{n: flags[n] for n in setting_flags}),
            )
            if code:
                raise typer.Exit(code)

        wrapper.__signature__ = inspect.Signature(own + common)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in own + common}
        first_line = help.split("\n", 1)[0]
        app.command(name, help=help, short_help=first_line)(wrapper)

    return register


def guarded(invocation: Invocation, work: Callable[[], None]) -> int:
    """Run ``work``; turn a failure into one line on stderr and an exit code."""
    try:
        work()
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        invocation.err.print(
            "interrupted: every source finished before this point is stored; run the same "
            "command again to continue"
        )
        return 130
    except Exception as error:
        if invocation.debug:
            traceback.print_exc()
        hint = (
            " (run again with --debug for the traceback)"
            if not invocation.debug and not isinstance(error, CliError | RedstringError)
            else ""
        )
        invocation.err.print(Text.assemble(("error: ", "bold red"), describe(error), hint))
        return error.exit_code if isinstance(error, CliError) else 1
    return 0


def describe(error: BaseException) -> str:
    """One line for a person: ours verbatim, a validation error by its first problem."""
    if isinstance(error, CliError | RedstringError):
        return str(error)
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "value"
        return f"invalid {where}: {first['msg']}"
    message = str(error).strip().splitlines()
    return f"{type(error).__name__}: {message[0] if message else 'no message'}"
