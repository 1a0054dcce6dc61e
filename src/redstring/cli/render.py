"""Rich tables for people; ``--json`` bypasses all of this."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from redstring.cli.ingesting import IngestTally
from redstring.cli.options import plain
from redstring.ingest.reports import MergeInfo
from redstring.retrieval import Answer, Citation


def ingest_summary(console: Console, tally: IngestTally, *, title: str = "Ingest summary") -> None:
    """The end-of-run table: files by outcome, then what the graph gained."""
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("count", justify="right")
    rows = [
        ("files", len(tally.files)),
        ("  ingested", tally.count("ingested")),
        ("  unchanged (skipped)", tally.count("unchanged")),
        ("  duplicates (skipped)", tally.count("duplicate")),
        ("  failed", tally.count("failed")),
        ("passages (chunks)", tally.chunks),
        ("entities created", tally.entities_created),
        ("mentions resolved to known entities", tally.entities_matched),
        ("relationships", tally.relationships),
        ("model calls", tally.model_calls),
        ("extractions reused (cache hits)", tally.extractions_reused),
        ("passages whose extraction failed", tally.failed_passages),
    ]
    for label, value in rows:
        table.add_row(label, str(value))
    console.print(table)
    console.print(f"extractor: {tally.extractor}")
    for outcome in tally.files:
        if outcome.status == "failed" or outcome.detail:
            console.print(f"  {outcome.status}: {outcome.source_id}: {outcome.detail}")


def key_values(console: Console, title: str, values: dict[str, Any]) -> None:
    """A two-column table of names and values (nested values as compact JSON)."""
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("name")
    table.add_column("value", overflow="fold")
    for name, value in values.items():
        shown = value if isinstance(value, str) else json.dumps(plain(value), ensure_ascii=False)
        table.add_row(name, shown)
    console.print(table)


def rows(console: Console, title: str, items: list[Any], *, empty: str) -> None:
    """A table with one row per item and one column per field of the first item."""
    data = [plain(item) for item in items]
    if not data:
        console.print(empty)
        return
    if not all(isinstance(row, dict) for row in data):
        console.print_json(json.dumps(data, ensure_ascii=False))
        return
    columns = list(data[0])
    table = Table(title=f"{title} ({len(data)})", title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in data:
        table.add_row(
            *(
                cell
                if isinstance(cell := row.get(column), str)
                else json.dumps(cell, ensure_ascii=False)
                for column in columns
            )
        )
    console.print(table)


def why(explanation: dict[str, Any]) -> str:
    """A merge's explanation on one line: ``field=value`` pairs in name order."""
    return ", ".join(
        f"{key}={json.dumps(plain(value), ensure_ascii=False)}"
        for key, value in sorted(explanation.items())
    )


def merges(console: Console, found: list[MergeInfo]) -> None:
    """One row per merge: who was kept, what merged into it, the rule, score and evidence."""
    table = Table(title=f"Merges ({len(found)})", title_justify="left")
    for column in ("kept", "merged into it", "rule", "score", "why", "alias id"):
        table.add_column(column, overflow="fold")
    for merge in found:
        table.add_row(
            f"{merge.winner_name or '?'} ({str(merge.winner_id)[:8]})",
            merge.loser_name + (" [undone]" if merge.undone else ""),
            merge.rule,
            "" if merge.score is None else f"{merge.score:.3f}",
            why(merge.explanation),
            str(merge.loser_id),
        )
    console.print(table)


def citations(console: Console, cited: Sequence[Citation]) -> None:
    """The passages an answer cites: marker and source (``--json`` has the chunk ids)."""
    table = Table(title=f"Citations ({len(cited)})", title_justify="left")
    table.add_column("marker")
    table.add_column("source", overflow="fold")
    for item in cited:
        table.add_row(item.marker, item.source_id)
    console.print(table)


def answer(console: Console, given: Answer, *, limit: int | None = None) -> None:
    """Print an answer's text (cut at ``limit`` characters), its kind and its citations."""
    text = given.text
    if limit is not None and len(text) > limit:
        text = text[:limit].rstrip() + " …"
    console.print(text, markup=False)
    model = f" by {given.model}" if given.model else ""
    console.print(f"({given.kind} answer{model})", style="dim", markup=False)
    if given.citations:
        citations(console, given.citations)
