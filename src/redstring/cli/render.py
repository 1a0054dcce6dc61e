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
    """The end-of-run table (files by outcome, what the graph gained, extractor runs apart
    from model calls), then every file not ingested and every failed passage with why."""
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("count", justify="right")
    skipped = tally.count("skipped") + tally.count("duplicate")
    rows = [
        ("files", len(tally.files)),
        ("  ingested", tally.count("ingested")),
        ("  unchanged (nothing to do)", tally.count("unchanged")),
        ("  skipped (listed below)", skipped),
        ("  failed (listed below)", tally.count("failed")),
        ("passages", tally.passages),
        ("  extracted now (extractor runs)", tally.extractor_runs),
        ("  extracted before (reused from the log)", tally.extractions_reused),
        ("  failed (listed below)", tally.failed_passages),
        ("model calls", tally.model_calls),
        ("entities created", tally.entities_created),
        ("mentions resolved to known entities", tally.entities_matched),
        ("relationships created", tally.relationships_created),
        ("relationship statements (new or known)", tally.relationship_statements),
    ]
    for label, value in rows:
        table.add_row(label, str(value))
    console.print(table)
    seconds = f" in {tally.seconds:.1f} s" if tally.seconds else ""
    console.print(f"extractor: {tally.extractor}{seconds}", markup=False)
    by_reason: dict[str, list[str]] = {}
    for outcome in tally.files:
        if outcome.status in {"skipped", "duplicate"}:
            reason = outcome.detail if outcome.status == "skipped" else "duplicate"
            shown = outcome.source_id
            if outcome.status == "duplicate":
                shown += f" ({outcome.detail})"
            by_reason.setdefault(_reason_group(reason), []).append(shown)
    for reason, names in sorted(by_reason.items()):
        console.print(
            f"skipped, {reason} ({len(names)}): {', '.join(names)}", markup=False, soft_wrap=True
        )
    for outcome in tally.files:
        if outcome.status == "failed":
            console.print(
                f"failed: {outcome.source_id}: {outcome.detail}", markup=False, soft_wrap=True
            )
        for item in outcome.failed_passages:
            console.print(
                f"failed passage: {outcome.source_id} #{item.passage}: {item.error}: "
                f"{_clip(item.message, 300)}",
                markup=False,
                soft_wrap=True,
            )


def _reason_group(reason: str) -> str:
    """Skips grouped by kind: the detail up to its first parenthesis (sizes differ)."""
    return reason.split(" (", 1)[0] if reason.startswith(("empty", "too large")) else reason


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def stats(console: Console, tenant: str, found: Any) -> None:
    """A tenant's counts, then one table per kind of thing: entities and relationships by
    type."""
    table = Table(title=f"Tenant {tenant}", show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("count", justify="right")
    for label, value in (
        ("sources", found.sources),
        ("passages", found.chunks),
        ("entities", found.entities),
        ("relationships", found.relationships),
        ("aliases (merged names)", found.aliases),
        ("events in the log", found.events),
    ):
        table.add_row(label, f"{value:,}")
    console.print(table)
    for title, counts in (
        ("Entities by type", found.entities_by_type),
        ("Relationships by type", found.relationships_by_type),
    ):
        if not counts:
            continue
        by_type = Table(title=title, title_justify="left")
        by_type.add_column("type")
        by_type.add_column("count", justify="right")
        for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
            by_type.add_row(name, f"{count:,}")
        console.print(by_type)


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
    """A merge's explanation on one line: the two or three fields that weighed most
    (``name=initials +5.8``), or for another shape its first plain values."""
    fields = explanation.get("fields")
    if isinstance(fields, list) and fields:
        weighed = [item for item in fields if isinstance(item, dict)]
        weighed.sort(key=lambda item: -abs(_number(item.get("weight"))))
        parts = [
            f"{item.get('field', '?')}={item.get('level', '?')} {_number(item.get('weight')):+.1f}"
            for item in weighed[:3]
        ]
        if len(weighed) > 3:
            parts.append(f"+{len(weighed) - 3} more")
        return ", ".join(parts)
    plain_values = [
        f"{key}={_clip(str(value), 40)}"
        for key, value in sorted(explanation.items())
        if isinstance(value, str | int | float | bool)
    ]
    return ", ".join(plain_values[:3])


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def merges(console: Console, found: list[MergeInfo]) -> None:
    """One line per merge: its id (the merged entity's, as ``unmerge`` and ``merges
    --explain`` take it, shortened), the names, the rule, the score and what decided."""
    table = Table(title=f"Merges ({len(found)})", title_justify="left")
    for column in ("id", "kept", "merged into it", "rule", "score", "deciding"):
        table.add_column(column, no_wrap=column in {"id", "score"}, overflow="ellipsis")
    for merge in found:
        table.add_row(
            str(merge.loser_id)[:8],
            merge.winner_name or "?",
            merge.loser_name + (" [undone]" if merge.undone else ""),
            merge.rule,
            "" if merge.score is None else f"{merge.score:.2f}",
            why(merge.explanation),
        )
    console.print(table)


def explain_merge(console: Console, merge: MergeInfo) -> None:
    """Everything recorded about one merge: ids, rule, score and the whole explanation."""
    console.print(
        f"{merge.loser_name} ({merge.loser_id}) merged into {merge.winner_name or '?'} "
        f"({merge.winner_id}) by {merge.rule}"
        + ("" if merge.score is None else f", score {merge.score:.3f}")
        + (" [undone]" if merge.undone else ""),
        markup=False,
    )
    fields = merge.explanation.get("fields")
    if isinstance(fields, list) and fields:
        table = Table(title="Evidence by field", title_justify="left")
        for column in ("field", "level", "weight", "adjustment"):
            table.add_column(column, justify="left" if column in {"field", "level"} else "right")
        for item in fields:
            if isinstance(item, dict):
                table.add_row(
                    str(item.get("field", "")),
                    str(item.get("level", "")),
                    f"{_number(item.get('weight')):+.3f}",
                    f"{_number(item.get('adjustment')):+.3f}",
                )
        console.print(table)
    rest = {key: value for key, value in merge.explanation.items() if key != "fields"}
    if rest:
        console.print_json(json.dumps(plain(rest), ensure_ascii=False))
    console.print(f"Undo it with: redstring unmerge {merge.loser_id}", markup=False)


def citations(console: Console, cited: Sequence[Citation]) -> None:
    """The passages an answer cites: marker, source and section (the headings above the
    passage; ``--json`` has the chunk ids)."""
    table = Table(title=f"Citations ({len(cited)})", title_justify="left")
    table.add_column("marker")
    table.add_column("source", overflow="fold")
    table.add_column("section", overflow="fold")
    for item in cited:
        table.add_row(item.marker, item.source_id, " > ".join(item.headings))
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
