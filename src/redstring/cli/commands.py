"""The ``redstring`` commands: documents in, a tenant's knowledge graph out, questions answered.

With no configuration every command works on the embedded default: a PostgreSQL + pgvector
kept in the user data directory (started on first use, left running for the next command),
the local offline embedding model and the offline extractor. See ``redstring config``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any
from uuid import UUID

import typer
from rich.table import Table

import redstring
from redstring import export as exporting
from redstring.cli import render, serving
from redstring.cli.database import db_app
from redstring.cli.errors import InputError
from redstring.cli.ingesting import IngestTally, ingest_planned, plan_files
from redstring.cli.options import Invocation, command, plain
from redstring.cli.progress import PassageProgress, counting_bar
from redstring.cli.runtime import describe_extractor, open_graph, open_tenant
from redstring.documents import SUPPORTED_SUFFIXES, Walk, walk
from redstring.domain.ids import EntityId
from redstring.ingest.reports import MergeInfo, PossibleMatchInfo
from redstring.retrieval import Answer, QueryResult

app = typer.Typer(
    name="redstring",
    help=(
        "Turn documents into a tenant's knowledge graph and answer questions from it.\n\n"
        "With no configuration it runs offline on an embedded PostgreSQL in your user data "
        "directory, with a local embedding model and the offline extractor. Point it at "
        "your own servers with --postgres-dsn, --neo4j-uri, --redis-url and --llm-base-url "
        "(or REDSTRING_* variables, or a config file: see `redstring config`). Every command "
        "takes --tenant (default: default) and --json."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class ExportFormat(StrEnum):
    """What ``export --format`` takes (a Click choice, so anything else is a usage error)."""

    json = "json"
    graphml = "graphml"
    html = "html"


assert tuple(item.value for item in ExportFormat) == exporting.FORMATS


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"redstring {redstring.__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", help="Print the version and exit.", callback=_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Turn documents into a tenant's knowledge graph and answer questions from it."""


def _progress(invocation: Invocation) -> Any:
    return counting_bar(invocation.err, disable=invocation.json)


# --- ingest and import -------------------------------------------------------------------


@command(
    app,
    "ingest",
    help=f"Ingest files, folders or glob patterns ({' '.join(SUPPORTED_SUFFIXES)}, and text "
    "files without a suffix) into the graph.\n\n"
    "Each file becomes one source (its path relative to the current directory). A file "
    "whose bytes have not changed since it was last ingested is skipped, as is one whose "
    "bytes equal another source's; every file met and not ingested is listed with why. "
    "Progress counts passages, per file and overall. Interrupting is safe: finished files "
    "are stored, and running the same command again continues.",
)
def ingest(
    invocation: Invocation,
    paths: Annotated[
        list[str], typer.Argument(help="Files, folders (walked recursively) or glob patterns.")
    ],
    schema: Annotated[
        Path | None,
        typer.Option(
            "--schema",
            help="Entity and relationship types to extract (.json or .yaml; see the README); "
            "or REDSTRING_SCHEMA, or the config key schema. Default: the built-in schema.",
            show_default=False,
        ),
    ] = None,
    chunk_chars: Annotated[
        int | None,
        typer.Option(
            "--chunk-chars",
            help="Longest passage, in characters (default 1200; REDSTRING_CHUNK_CHARS).",
            show_default=False,
        ),
    ] = None,
    max_document_chars: Annotated[
        int | None,
        typer.Option(
            "--max-document-chars",
            help="Skip documents longer than this many characters (default 10000000; "
            "REDSTRING_MAX_DOCUMENT_CHARS).",
            show_default=False,
        ),
    ] = None,
) -> None:
    found = walk(paths)
    tally = invocation.run(_ingest(invocation, found))
    if invocation.json:
        invocation.emit_json(tally)
    else:
        render.ingest_summary(invocation.out, tally)
    failed = tally.count("failed")
    if failed or tally.failed_passages:
        what = [f"{failed} file(s)"] if failed else []
        what += [f"{tally.failed_passages} passage(s)"] if tally.failed_passages else []
        invocation.err.print(
            f"error: {' and '.join(what)} failed (listed in the summary); the rest is stored, "
            "and running the same command again retries what failed",
            markup=False,
        )
        raise typer.Exit(1)


async def _ingest(invocation: Invocation, found: Walk) -> IngestTally:
    async with open_graph(invocation.settings, extract=True) as runtime:
        tally = IngestTally(extractor=describe_extractor(runtime.extractor))
        plan = await plan_files(
            runtime.graph,
            invocation.tenant,
            found.files,
            found.skipped,
            cwd=Path.cwd(),
            bases=found.bases,
        )
        progress = PassageProgress(
            invocation.err,
            total_passages=plan.passages,
            total_files=len(plan.files),
            enabled=not invocation.json,
        )
        with progress:
            runtime.on_extractor_run(progress.passage_done)
            try:
                await ingest_planned(runtime.graph, invocation.tenant, plan, tally, progress)
            finally:
                if runtime.model_calls is not None:
                    tally.model_calls = runtime.model_calls.made
        _tell(invocation, [await runtime.graph.vector_notice(invocation.tenant)])
        return tally


def _tell(invocation: Invocation, notices: Sequence[str | None]) -> None:
    """Print what the library said about how it answered (on stderr, so --json stays JSON)."""
    for notice in notices:
        if notice:
            invocation.err.print(f"note: {notice}", markup=False, style="yellow", soft_wrap=True)


@command(
    app,
    "import",
    help="Import already-extracted entities and relationships from a JSON Lines file.\n\n"
    'One object per line: {"kind": "entity", "ref": "p1", "type": "Person", "name": "Ada"} '
    'or {"kind": "relationship", "subject": "p1", "type": "KNOWS", "object": "p2"}. '
    "Entities are resolved against the graph like extracted ones; no model is called.",
)
def import_(
    invocation: Invocation,
    file: Annotated[Path, typer.Argument(help="A .jsonl file, or - for standard input.")],
) -> None:
    if str(file) == "-":
        lines = sys.stdin.read().splitlines()
    else:
        if not file.is_file():
            raise InputError(f"{file}: no such file")
        lines = file.read_text("utf-8").splitlines()
    report = invocation.run(_import(invocation, lines))
    if invocation.json:
        invocation.emit_json(report)
    else:
        data = plain(report)
        data.pop("refs", None)
        render.key_values(invocation.out, f"Imported {file}", data)


async def _import(invocation: Invocation, lines: list[str]) -> Any:
    async with open_graph(invocation.settings) as runtime:
        with _progress(invocation) as progress:
            task = progress.add_task("importing", total=len(lines), current="")

            def counted() -> Any:
                for number, line in enumerate(lines, start=1):
                    progress.update(task, completed=number)
                    yield line

            return await runtime.graph.import_jsonl(invocation.tenant, counted())


# --- reading -----------------------------------------------------------------------------


@command(
    app,
    "query",
    help="Find the passages, entities and relationships most relevant to a text (no model).",
)
def query(
    invocation: Invocation,
    text: Annotated[str, typer.Argument(help="What to look for, in your own words.")],
    k: Annotated[int, typer.Option("--k", "-k", min=1, help="How many results.")] = 10,
) -> None:
    async def work() -> QueryResult:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.query(invocation.tenant, text, k=k)

    result = invocation.run(work())
    _tell(invocation, result.notices)
    if invocation.json:
        invocation.emit_json(result)
    else:
        invocation.out.print(result.as_context(), markup=False)


@command(
    app,
    "ask",
    help="Answer a question from the graph, citing the passages it rests on.\n\n"
    "With --llm-base-url the model writes the answer from the retrieved context; without "
    "one the answer is extractive (the best passages and facts, cited) and says so.",
)
def ask(
    invocation: Invocation,
    question: Annotated[str, typer.Argument(help="The question.")],
) -> None:
    async def work() -> Answer:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.ask(invocation.tenant, question)

    answer = invocation.run(work())
    _tell(invocation, answer.context.notices)
    if invocation.json:
        invocation.emit_json(answer)
        return
    render.answer(invocation.out, answer)


@command(app, "sources", help="List the tenant's sources (documents and imports).")
def sources(invocation: Invocation) -> None:
    async def work() -> Any:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.sources(invocation.tenant)

    found = invocation.run(work())
    if invocation.json:
        invocation.emit_json(found)
        return
    render.rows(
        invocation.out,
        f"Sources of tenant {invocation.tenant}",
        [
            {
                "source": str(info.source_id),
                "passages": info.chunks,
                "format": info.metadata.get("format", ""),
            }
            for info in found
        ],
        empty=f"tenant {invocation.tenant} has no sources",
    )


@command(app, "stats", help="Count the tenant's sources, passages, entities and relationships.")
def stats(invocation: Invocation) -> None:
    async def work() -> Any:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.stats(invocation.tenant)

    found = invocation.run(work())
    if invocation.json:
        invocation.emit_json(found)
    else:
        render.stats(invocation.out, invocation.tenant, found)


# --- changing ----------------------------------------------------------------------------


@command(
    app,
    "delete-source",
    help="Delete one source: its passages, and the facts no other source supports.",
)
def delete_source(
    invocation: Invocation,
    source: Annotated[str, typer.Argument(help="The source id, as `redstring sources` lists it.")],
) -> None:
    async def work() -> Any:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.delete_source(invocation.tenant, source)

    report = invocation.run(work())
    if invocation.json:
        invocation.emit_json(report)
        return
    if not report.existed:
        raise InputError(f"tenant {invocation.tenant} has no source {source!r}")
    render.key_values(invocation.out, f"Deleted {source}", plain(report))


@command(
    app,
    "delete-tenant",
    help="Delete everything the tenant holds: its graph, log, API keys and jobs; running "
    "servers refuse its keys at once (asks first unless --yes).",
)
def delete_tenant(
    invocation: Invocation,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    if not yes:
        if invocation.json or not sys.stdin.isatty():
            raise InputError("delete-tenant asks for confirmation: pass --yes to run it unattended")
        typer.confirm(
            f"Delete every source, entity and relationship of tenant {invocation.tenant!r}?",
            abort=True,
        )

    erased = invocation.run(serving.erase_tenant(invocation.settings, invocation.tenant))
    if invocation.json:
        invocation.emit_json({**erased, "deleted": True})
    else:
        invocation.out.print(
            f"deleted tenant {invocation.tenant}: {erased['events']} events, "
            f"{erased['keys']} API keys, {erased['jobs']} jobs"
        )


@command(
    app,
    "rebuild",
    help="Replay the tenant's event log into fresh graph, vector and passage stores.\n\n"
    "Every passage and entity is embedded again with the configured --embedding-model: this "
    "is how a tenant embedded with another model moves to it. No extraction model is called.",
)
def rebuild(invocation: Invocation) -> None:
    async def work() -> tuple[int, str]:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            with _progress(invocation) as progress:
                progress.add_task("replaying the event log", total=None, current="")
                replayed: int = await runtime.graph.rebuild(invocation.tenant)
            return replayed, runtime.graph.embeddings.model

    replayed, model = invocation.run(work())
    if invocation.json:
        invocation.emit_json(
            {"tenant": invocation.tenant, "events_replayed": replayed, "embedding_model": model}
        )
    else:
        invocation.out.print(
            f"rebuilt tenant {invocation.tenant}: {replayed} events replayed, embedded with {model}"
        )


# --- merges ------------------------------------------------------------------------------


@command(
    app,
    "merges",
    help="List the merges resolution made (and people made): one line each with the rule, "
    "the score and the fields that decided.\n\n"
    "`merges --explain ID` (an id, or its first characters, as the list shows it) prints "
    "everything recorded about one merge; --json gives every merge in full.",
)
def merges(
    invocation: Invocation,
    explain: Annotated[
        str | None,
        typer.Option(
            "--explain", help="Explain one merge in full: its id or the id's first characters."
        ),
    ] = None,
) -> None:
    async def work() -> list[MergeInfo]:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.merges(invocation.tenant)

    found = invocation.run(work())
    if explain is not None:
        chosen = _one_merge(found, explain, invocation.tenant)
        if invocation.json:
            invocation.emit_json(chosen)
        else:
            render.explain_merge(invocation.out, chosen)
        return
    if invocation.json:
        invocation.emit_json(found)
        return
    if not found:
        invocation.out.print(f"tenant {invocation.tenant} has no merges")
        return
    render.merges(invocation.out, found)
    invocation.out.print(
        "Explain one with: redstring merges --explain ID; undo one with: redstring unmerge ID"
    )


def _one_merge(found: list[MergeInfo], wanted: str, tenant: str) -> MergeInfo:
    prefix = wanted.strip().lower()
    if not prefix:
        raise InputError("--explain needs a merge id (or its first characters)")
    matching = [merge for merge in found if str(merge.loser_id).startswith(prefix)]
    if not matching:
        raise InputError(f"tenant {tenant} has no merge whose id starts with {wanted!r}")
    if len({merge.loser_id for merge in matching}) > 1:
        raise InputError(
            f"{wanted!r} starts {len(matching)} merge ids; give more characters "
            f"({', '.join(str(m.loser_id)[:12] for m in matching[:5])}...)"
        )
    return matching[-1]


@command(
    app,
    "possible-matches",
    help="List pairs that scored between the thresholds: left apart, for you to review.",
)
def possible_matches(invocation: Invocation) -> None:
    async def work() -> list[PossibleMatchInfo]:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.possible_matches(invocation.tenant)

    found = invocation.run(work())
    if invocation.json:
        invocation.emit_json(found)
        return
    if not found:
        invocation.out.print(f"tenant {invocation.tenant} has no possible matches to review")
        return
    table = Table(title=f"Possible matches ({len(found)})", title_justify="left")
    for column in ("entity", "candidate", "rule", "score", "why"):
        table.add_column(column, overflow="fold")
    for match in found:
        table.add_row(
            f"{match.entity_name or '?'} ({match.entity_id})",
            f"{match.candidate_name or '?'} ({match.candidate_id})",
            match.rule,
            "" if match.score is None else f"{match.score:.2f}",
            render.why(match.explanation),
        )
    invocation.out.print(table)
    invocation.out.print("Merge a pair with: redstring merge ENTITY-ID CANDIDATE-ID")


@command(app, "merge", help="Merge entity B into entity A (a reviewed decision).")
def merge(
    invocation: Invocation,
    a: Annotated[str, typer.Argument(help="The entity id that stays.")],
    b: Annotated[str, typer.Argument(help="The entity id merged into it (becomes an alias).")],
) -> None:
    keep, absorb = _entity_id(a), _entity_id(b)

    async def work() -> EntityId:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.merge(invocation.tenant, keep, absorb)

    survivor = invocation.run(work())
    if invocation.json:
        invocation.emit_json({"kept": str(survivor), "alias": str(absorb)})
    else:
        invocation.out.print(f"merged {absorb} into {survivor}")


@command(
    app,
    "unmerge",
    help="Undo a merge: restore the merged entity and never merge the pair again.",
)
def unmerge(
    invocation: Invocation,
    alias: Annotated[
        str, typer.Argument(help="The alias id of the merged entity, as `merges` lists it.")
    ],
) -> None:
    alias_id = _entity_id(alias)

    async def work() -> EntityId:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.unmerge(invocation.tenant, alias_id)

    restored = invocation.run(work())
    if invocation.json:
        invocation.emit_json({"restored": str(restored)})
    else:
        invocation.out.print(f"restored {restored} as its own entity; the pair stays apart")


def _entity_id(text: str) -> EntityId:
    try:
        return EntityId(UUID(text))
    except ValueError as error:
        raise InputError(
            f"{text!r} is not an entity id (a UUID, as `merges` or `export` show)"
        ) from error


# --- export, config ----------------------------------------------------------------------


@command(
    app,
    "export",
    help="Write the tenant's graph as JSON, GraphML or a self-contained HTML page.\n\n"
    "The HTML page works offline: it opens on the --top most connected entities (raise it "
    "on the page), a click opens an entity's neighbours and shows its passages with their "
    "citations, and it filters by type and source and searches names and aliases.",
)
def export(
    invocation: Invocation,
    format: Annotated[ExportFormat, typer.Option("--format", "-f", help="The format.")] = (
        ExportFormat.json
    ),
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="File to write (default: standard output; for html, <tenant>-graph.html).",
            show_default=False,
        ),
    ] = None,
    top: Annotated[
        int,
        typer.Option(
            "--top", min=1, help="html: how many of the most connected entities to draw first."
        ),
    ] = exporting.TOP_ENTITIES,
) -> None:
    async def work() -> Any:
        async with open_tenant(invocation.settings, invocation.tenant) as runtime:
            return await runtime.graph.export(invocation.tenant)

    snapshot = invocation.run(work())
    if format is ExportFormat.html:
        text = exporting.to_html(snapshot, top=top)
    elif format is ExportFormat.graphml:
        text = exporting.to_graphml(snapshot)
    else:
        text = exporting.to_json(snapshot)
    if output is None and format is ExportFormat.html:
        output = Path(f"{invocation.tenant}-graph.html")
    if output is None:
        sys.stdout.write(text)
        return
    output.write_text(text, "utf-8")
    summary = {
        "format": format.value,
        "output": str(output),
        "entities": len(snapshot.entities),
        "relationships": len(snapshot.relationships),
    }
    if invocation.json:
        invocation.emit_json(summary)
    else:
        invocation.out.print(
            f"wrote {output} ({summary['entities']} entities, "
            f"{summary['relationships']} relationships)"
        )


@command(
    app,
    "config",
    help="Show the effective settings and where each comes from (secrets masked).",
)
def config(invocation: Invocation) -> None:
    settings = invocation.settings
    shown = settings.masked()
    if invocation.json:
        invocation.emit_json({"settings": shown, "origins": dict(settings.origins)})
        return
    table = Table(title="Effective settings", title_justify="left")
    table.add_column("setting")
    table.add_column("value", overflow="fold")
    table.add_column("from")
    for name, value in shown.items():
        table.add_row(name, "" if value is None else value, settings.origins.get(name, ""))
    invocation.out.print(table)
    invocation.out.print(
        "store: "
        + (
            f"embedded PostgreSQL in {settings.data_dir / 'postgres'}"
            if settings.embedded
            else settings.backend
        )
    )


@command(
    app,
    "demo",
    tenant="demo",
    help="Run the shipped demo corpus end to end: ingest, resolved entities and merges, "
    "cited answers, and the HTML view.\n\n"
    "Uses the same settings as every other command (the embedded default unless you "
    "configure servers) and the tenant 'demo' unless --tenant says otherwise. Running it "
    "again skips the documents already ingested.",
)
def demo(
    invocation: Invocation,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Where to write the HTML view (default: demo-graph.html in the data directory).",
            show_default=False,
        ),
    ] = None,
) -> None:
    from redstring.cli import demo as demo_module

    target = output or invocation.settings.data_dir / "demo-graph.html"
    result = invocation.run(demo_module.run_demo(invocation))
    demo_module.write_view(result, target)
    if invocation.json:
        invocation.emit_json(
            {
                "tenant": invocation.tenant,
                "store": result.where,
                "summary": result.tally,
                "entities": result.entities,
                "merges": result.merges,
                "answers": [{"question": q, "answer": a} for q, a in result.answers],
                "html": result.html,
            }
        )
    else:
        demo_module.show(invocation, result)


serving.register(app)
app.add_typer(db_app)
