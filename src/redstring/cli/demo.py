"""``redstring demo``: the shipped gold corpus, end to end, on whatever the settings select.

It ingests every document of ``redstring.corpus`` (skipping those already ingested), shows
the entities it resolved with the merges it made and why, answers a few questions with
citations, writes the HTML view and says which extractor ran and how to switch to a model.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from redstring import export as exporting
from redstring.cli import render
from redstring.cli.ingesting import FileOutcome, IngestTally, failed_passages
from redstring.cli.options import Invocation
from redstring.cli.progress import counting_bar
from redstring.cli.runtime import SWITCH_TO_LLM, describe_extractor, open_graph
from redstring.corpus import load_corpus
from redstring.domain.schema import Schema
from redstring.ingest.reports import GraphSnapshot, MergeInfo
from redstring.retrieval import Answer

CORPUS_PACKAGE = "redstring.corpus"
QUESTIONS = 3
ANSWER_CHARS = 600


@dataclass
class DemoResult:
    """What the demo did and found."""

    tally: IngestTally
    where: str
    entities: list[dict[str, Any]] = field(default_factory=list)
    merges: list[MergeInfo] = field(default_factory=list)
    answers: list[tuple[str, Answer]] = field(default_factory=list)
    html: str = ""
    snapshot: GraphSnapshot | None = None


def corpus_documents() -> tuple[list[tuple[str, str]], Schema]:
    """``(name, text)`` of every document of the shipped corpus, and the schema they are
    annotated to."""
    corpus = load_corpus()
    documents = [(f"{document.id}.md", document.text) for document in corpus.documents]
    return sorted(documents), corpus.schema


def _questions(entities: list[dict[str, Any]]) -> list[str]:
    """A question about each of the most mentioned entities."""
    return [
        f"{'Who' if entity['type'] == 'Person' else 'What'} is {entity['name']}?"
        for entity in entities[:QUESTIONS]
    ]


async def run_demo(invocation: Invocation) -> DemoResult:
    """Ingest the corpus into the invocation's tenant and gather what the demo shows."""
    documents, schema = corpus_documents()
    async with open_graph(invocation.settings, extract=True) as runtime:
        graph = runtime.graph
        tally = IngestTally(extractor=describe_extractor(runtime.extractor))
        result = DemoResult(tally=tally, where=runtime.where)
        progress = counting_bar(invocation.err, disable=invocation.json)
        with progress:
            task = progress.add_task("ingesting the demo corpus", total=len(documents), current="")
            for number, (name, text) in enumerate(documents, start=1):
                progress.update(task, current=name)
                source = f"corpus/{name}"
                digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
                report = await graph.ingest(
                    invocation.tenant,
                    source,
                    text,
                    schema=schema,
                    metadata={
                        "path": f"{CORPUS_PACKAGE}/{name}",
                        "sha256": digest,
                        "format": "txt",
                    },
                )
                tally.add_report(report)
                tally.files.append(
                    FileOutcome(
                        name,
                        source,
                        "unchanged" if report.unchanged else "ingested",
                        passages=report.chunks,
                        extractor_runs=report.model_calls,
                        failed_passages=failed_passages(report),
                    )
                )
                progress.update(task, completed=number)
        if runtime.model_calls is not None:
            tally.model_calls = runtime.model_calls.made
        snapshot = await graph.export(invocation.tenant)
        view = exporting.view_data(snapshot)
        entities: list[dict[str, Any]] = sorted(
            view["entities"],
            key=lambda e: (-len(e["passages"]), -len(e["aliases"]), e["name"]),
        )
        result.entities = entities
        result.merges = await graph.merges(invocation.tenant)
        questions = _questions(entities)
        for question in questions:
            result.answers.append((question, await graph.ask(invocation.tenant, question)))
        result.snapshot = snapshot
    return result


def write_view(result: DemoResult, output: Path) -> None:
    """Write the demo's HTML view to ``output`` and remember where."""
    output.parent.mkdir(parents=True, exist_ok=True)
    if result.snapshot is not None:
        output.write_text(exporting.to_html(result.snapshot), "utf-8")
    result.html = str(output.resolve())


def show(invocation: Invocation, result: DemoResult) -> None:
    """Print the demo's findings for a person."""
    out = invocation.out
    out.print(
        f"[bold]redstring demo[/] on {escape(result.where)}, tenant {escape(invocation.tenant)}"
    )
    render.ingest_summary(out, result.tally, title="Demo corpus")
    table = Table(title="Resolved entities (most mentioned first)", title_justify="left")
    for column in ("name", "type", "also known as", "passages", "sources"):
        table.add_column(column, overflow="fold")
    for entity in result.entities[:15]:
        table.add_row(
            entity["name"],
            entity["type"],
            ", ".join(entity["aliases"]),
            str(len(entity["passages"])),
            str(len(entity["sources"])),
        )
    out.print(table)
    out.print(f"{len(result.entities)} entities in all.")
    if not result.merges:
        out.print("Merges: none recorded for this tenant.")
    else:
        render.merges(out, result.merges)
    for question, answer in result.answers:
        out.print(f"\n[bold]Q: {escape(question)}[/]")
        render.answer(out, answer, limit=ANSWER_CHARS)
    out.print(f"\nHTML view: {result.html}")
    out.print(f"Extractor: {result.tally.extractor}.")
    out.print(f"To use a language model instead: {SWITCH_TO_LLM}.")
