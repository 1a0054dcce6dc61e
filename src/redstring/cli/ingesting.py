"""``redstring ingest``: files to sources, in two steps, with a tally of everything.

**Plan.** Every file the walk found is read and decoded first, so that before any passage
is extracted the command knows what it will do with each file: ingest it (and how many
passages it has, which is what the progress counts), or skip it with its reason: a
duplicate (its bytes, by SHA-256, equal another source's), empty, or too large. A file
that cannot be read fails, named, and the run carries on.

**Ingest.** Each planned file is one ``KnowledgeGraph.ingest`` call, which the core applies
atomically, so an interrupted run leaves every finished file stored and the next run picks
up from there. A file whose text its source already holds is reported unchanged (the core
compares content, extracts nothing, and retries only passages whose extraction failed
before). A source id is the path relative to the current directory when it lies beneath it,
else the path from the argument that named it (``ingest /srv/docs`` run elsewhere stores
``docs/a.md``; a file named directly, its name): never this machine's absolute path, which a
server would show every client of the tenant. POSIX separators either way. Two files that
would get one source id in a run: the second fails, named, rather than replacing the first.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from redstring.cli.errors import CliError
from redstring.cli.model_calls import ModelUnavailableError
from redstring.cli.progress import PassageProgress
from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.documents import Document, Skipped, file_sha256, read_document
from redstring.domain.chunking import chunk_text
from redstring.domain.errors import RedstringError
from redstring.domain.ids import source_id
from redstring.domain.schema import Schema

# Texts read while planning are kept for the ingest step up to this many characters in
# all; past it a file is read again when its turn comes (a large folder must not hold
# every text in memory at once).
KEEP_CHARS = 64_000_000


@dataclass
class FailedPassage:
    """A passage whose extraction failed, and why (its next ingest retries it)."""

    passage: int
    error: str
    message: str


@dataclass
class FileOutcome:
    """What happened to one file: ``ingested``, ``unchanged``, ``duplicate``, ``skipped``
    (``detail`` says why: unsupported type, empty, too large) or ``failed``."""

    path: str
    source_id: str
    status: str
    detail: str = ""
    passages: int = 0
    extractor_runs: int = 0
    encoding: str | None = None
    failed_passages: list[FailedPassage] = field(default_factory=list)


@dataclass
class IngestTally:
    """The summary of one ``ingest`` (or ``demo``) run.

    ``extractor_runs`` counts passages handed to the extractor; ``model_calls`` counts
    requests to the model server (0 without one; retries count). ``relationships_created``
    counts relationships the graph did not hold before, so over a fresh tenant it is what
    ``stats`` reports; ``relationship_statements`` counts every statement stored, repeats of
    a known relationship included.
    """

    extractor: str
    files: list[FileOutcome] = field(default_factory=list)
    passages: int = 0
    entities_created: int = 0
    entities_matched: int = 0
    relationships_created: int = 0
    relationship_statements: int = 0
    extractor_runs: int = 0
    extractions_reused: int = 0
    model_calls: int = 0
    failed_passages: int = 0
    seconds: float = 0.0

    def count(self, status: str) -> int:
        """How many files ended with ``status``."""
        return sum(1 for outcome in self.files if outcome.status == status)

    def add_report(self, report: Any) -> None:
        """Add one ``IngestReport``."""
        self.passages += report.chunks
        self.entities_created += report.entities_created
        self.entities_matched += report.entities_matched
        self.relationships_created += report.relationships_created
        self.relationship_statements += report.relationships
        self.extractor_runs += report.model_calls
        self.extractions_reused += report.extractions_reused
        self.failed_passages += len(report.failed_chunks)


def failed_passages(report: Any) -> list[FailedPassage]:
    """The report's failed passages as the tally lists them."""
    return [
        FailedPassage(item.chunk_index, item.error_type, " ".join(item.message.split()))
        for item in report.failed_chunks
    ]


def source_id_for(path: Path, cwd: Path, base: Path | None = None) -> str:
    """The source id of ``path``: relative to ``cwd`` when beneath it, else to ``base`` (the
    folder the walk read its name from), else its bare name; never absolute."""
    resolved = path.resolve()
    for folder in (cwd, base):
        if folder is not None:
            try:
                return resolved.relative_to(folder.resolve()).as_posix()
            except ValueError:
                pass
    return resolved.name


@dataclass
class PlannedFile:
    """A file that will be ingested: its source, digest, passage count and (maybe) text."""

    path: Path
    source: str
    digest: str
    passages: int
    format: str
    encoding: str | None
    text: str | None


@dataclass
class Plan:
    """What the run will ingest, in order, and the outcomes already known (skips, failures)."""

    files: list[PlannedFile] = field(default_factory=list)
    decided: list[FileOutcome] = field(default_factory=list)

    @property
    def passages(self) -> int:
        """Passages in the files to ingest."""
        return sum(item.passages for item in self.files)


async def plan_files(
    graph: KnowledgeGraph,
    tenant: str,
    paths: Sequence[Path],
    skipped: Sequence[Skipped],
    *,
    cwd: Path,
    bases: Mapping[Path, Path] | None = None,
) -> Plan:
    """Read every file once and decide what becomes of it (see the module's docstring).

    ``bases`` is the walk's (:attr:`redstring.documents.Walk.bases`)."""
    settings = graph.settings
    plan = Plan()
    bases = bases or {}
    for item in skipped:
        source = source_id_for(item.path, cwd, bases.get(item.path))
        plan.decided.append(FileOutcome(str(item.path), source, "skipped", item.reason))
    by_hash: dict[str, str] = {}
    for info in await graph.sources(tenant):
        digest = info.metadata.get("sha256")
        if isinstance(digest, str):
            by_hash.setdefault(digest, str(info.source_id))
    kept = 0
    claimed: dict[str, Path] = {}
    for path in paths:
        source = source_id_for(path, cwd, bases.get(path))
        outcome = FileOutcome(str(path), source, "skipped")
        first = claimed.setdefault(source, path)
        if first != path:
            outcome.status = "failed"
            outcome.detail = (
                f"source id {source!r} is also {first}'s in this run; ingest the two from a "
                "folder above both, or one at a time"
            )
            plan.decided.append(outcome)
            continue
        try:
            digest = file_sha256(path)
        except OSError as error:
            outcome.status, outcome.detail = "failed", f"unreadable: {error.strerror or error}"
            plan.decided.append(outcome)
            continue
        # Same bytes under the same id still go to ingest: the core finds the text unchanged
        # at the cost of a parse, and retries any passage whose extraction failed last time.
        twin = by_hash.get(digest)
        if twin is not None and twin != source:
            outcome.status, outcome.detail = "duplicate", f"same bytes as {twin}"
            plan.decided.append(outcome)
            continue
        if path.stat().st_size == 0:
            outcome.detail = "empty (0 bytes)"
            plan.decided.append(outcome)
            continue
        try:
            document = read_document(path)
        except (CliError, RedstringError) as error:
            outcome.status, outcome.detail = "failed", str(error)
            plan.decided.append(outcome)
            continue
        outcome.encoding = document.encoding
        if not document.text.strip():
            outcome.detail = "empty (no text found in it)"
            plan.decided.append(outcome)
            continue
        if len(document.text) > settings.max_document_chars:
            outcome.detail = (
                f"too large ({len(document.text):,} characters; the limit is "
                f"{settings.max_document_chars:,}: raise it with --max-document-chars)"
            )
            plan.decided.append(outcome)
            continue
        passages = len(
            chunk_text(
                source_id(source),
                document.text,
                max_chars=settings.chunk_chars,
                overlap_chars=settings.chunk_overlap,
            )
        )
        keep = kept + len(document.text) <= KEEP_CHARS
        kept += len(document.text) if keep else 0
        by_hash.setdefault(digest, source)
        plan.files.append(
            PlannedFile(
                path=path,
                source=source,
                digest=digest,
                passages=passages,
                format=document.format,
                encoding=document.encoding,
                text=document.text if keep else None,
            )
        )
    return plan


async def ingest_planned(
    graph: KnowledgeGraph,
    tenant: str,
    plan: Plan,
    tally: IngestTally,
    progress: PassageProgress,
    *,
    schema: Schema | None = None,
) -> None:
    """Ingest the plan's files one by one, recording each outcome in ``tally``.

    A file whose ingest raises a redstring error is recorded as failed and the run carries
    on; any other error (a lost connection, a model server that is not there) stops it.
    """
    started = time.monotonic()
    tally.files.extend(plan.decided)
    for item in plan.files:
        progress.start_file(item.source, item.passages)
        outcome = FileOutcome(
            str(item.path), item.source, "failed", passages=item.passages, encoding=item.encoding
        )
        try:
            text = item.text if item.text is not None else _read_again(item)
            metadata: dict[str, JsonValue] = {
                # As the user named it: never this machine's absolute path, which a server
                # would show every client of the tenant.
                "path": item.source,
                "sha256": item.digest,
                "format": item.format,
            }
            if item.encoding is not None:
                metadata["encoding"] = item.encoding
            item.text = None
            report = await graph.ingest(tenant, item.source, text, schema=schema, metadata=metadata)
        except ModelUnavailableError:
            raise
        except (CliError, RedstringError) as error:
            outcome.detail = str(error)
            tally.files.append(outcome)
            progress.end_file(item.source, item.passages, "failed")
            continue
        tally.add_report(report)
        outcome.status = "unchanged" if report.unchanged else "ingested"
        outcome.passages = report.chunks
        outcome.extractor_runs = report.model_calls
        outcome.failed_passages = failed_passages(report)
        if outcome.failed_passages:
            outcome.detail = f"{len(outcome.failed_passages)} passage(s) failed"
        tally.files.append(outcome)
        progress.end_file(item.source, item.passages, outcome.status)
    tally.seconds += time.monotonic() - started


def _read_again(item: PlannedFile) -> str:
    document: Document = read_document(item.path)
    if document.sha256 != item.digest:
        raise CliError(f"{item.path} changed while this run was planning; run it again")
    return document.text
