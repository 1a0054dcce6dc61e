"""``redstring ingest``: files to sources, skipping what is unchanged, with a running tally.

A file's source id is its path relative to the current directory when it lies beneath it,
else its absolute path (POSIX separators either way). A file whose text its source already
holds is reported unchanged: ``KnowledgeGraph.ingest`` compares content, extracts nothing,
and retries only passages whose extraction failed before. A file whose bytes (SHA-256) equal
another source's is skipped as a duplicate of it. Each file is one ``KnowledgeGraph.ingest``
call, which the core applies atomically, so an interrupted run leaves every finished file
stored and the next run picks up from there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from redstring.cli.errors import CliError
from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.documents import file_sha256, read_document
from redstring.domain.errors import RedstringError
from redstring.domain.schema import Schema


@dataclass
class FileOutcome:
    """What happened to one file."""

    path: str
    source_id: str
    status: str  # ingested | unchanged | duplicate | failed
    detail: str = ""
    chunks: int = 0
    model_calls: int = 0


@dataclass
class IngestTally:
    """The summary of one ``ingest`` (or ``demo``) run."""

    extractor: str
    files: list[FileOutcome] = field(default_factory=list)
    chunks: int = 0
    entities_created: int = 0
    entities_matched: int = 0
    relationships: int = 0
    model_calls: int = 0
    extractions_reused: int = 0
    failed_passages: int = 0

    def count(self, status: str) -> int:
        """How many files ended with ``status``."""
        return sum(1 for outcome in self.files if outcome.status == status)

    def add_report(self, report: Any) -> None:
        """Add one ``IngestReport``."""
        self.chunks += report.chunks
        self.entities_created += report.entities_created
        self.entities_matched += report.entities_matched
        self.relationships += report.relationships
        self.model_calls += report.model_calls
        self.extractions_reused += report.extractions_reused
        self.failed_passages += len(report.failed_chunks)


def source_id_for(path: Path, cwd: Path) -> str:
    """The source id of ``path``: relative to ``cwd`` when beneath it, else absolute."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


async def ingest_files(
    graph: KnowledgeGraph,
    tenant: str,
    paths: Sequence[Path],
    tally: IngestTally,
    *,
    cwd: Path,
    advance: Callable[[str], None],
    schema: Schema | None = None,
) -> None:
    """Ingest ``paths`` one by one into ``tenant``, recording each outcome in ``tally``.

    A file that cannot be read, or whose ingest raises a redstring error, is recorded as
    failed and the run carries on; any other error (a lost connection) stops the run.
    """
    by_hash: dict[str, str] = {}
    for info in await graph.sources(tenant):
        digest = info.metadata.get("sha256")
        if isinstance(digest, str):
            by_hash.setdefault(digest, str(info.source_id))
    for path in paths:
        source = source_id_for(path, cwd)
        advance(source)
        try:
            digest = file_sha256(path)
        except OSError as error:
            tally.files.append(FileOutcome(str(path), source, "failed", f"unreadable: {error}"))
            continue
        # Same bytes under the same id still go to ingest: the core finds the text unchanged
        # at the cost of a parse, and retries any passage whose extraction failed last time.
        twin = by_hash.get(digest)
        if twin is not None and twin != source:
            tally.files.append(FileOutcome(str(path), source, "duplicate", f"same bytes as {twin}"))
            continue
        try:
            document = read_document(path)
            if not document.text.strip():
                raise CliError("no text found in it")
            metadata: dict[str, JsonValue] = {
                "path": str(path.resolve()),
                "sha256": digest,
                "format": document.format,
            }
            report = await graph.ingest(
                tenant, source, document.text, schema=schema, metadata=metadata
            )
        except (CliError, RedstringError) as error:
            tally.files.append(FileOutcome(str(path), source, "failed", str(error)))
            continue
        tally.add_report(report)
        by_hash.setdefault(digest, source)
        status = "unchanged" if report.unchanged else "ingested"
        detail = f"{len(report.failed_chunks)} passage(s) failed" if report.failed_chunks else ""
        tally.files.append(
            FileOutcome(str(path), source, status, detail, report.chunks, report.model_calls)
        )
