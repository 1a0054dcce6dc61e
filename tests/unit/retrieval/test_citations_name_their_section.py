"""Query results, answers and the command's citation table say which section of its document
a passage comes from (the heading path ingest stored with it)."""

from __future__ import annotations

from rich.console import Console

from redstring import IngestSettings, KnowledgeGraph
from redstring.cli import render
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.extraction import Extraction
from redstring.domain.ids import SourceId
from redstring.domain.schema import Schema
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.retrieval.assembly import heading_path

DOCUMENT = (
    "# Valgrind\n\n## Tools\n\nMemcheck finds leaks in programs.\n\n"
    "### Usage\n\nRun the checker on a debug build to see each leak."
)


class NoNames:
    """An extractor that finds nothing: these tests are about passages."""

    model = "test/no-names-1"

    async def extract(self, text: str, schema: Schema) -> Extraction:
        return Extraction()


def graph() -> KnowledgeGraph:
    return KnowledgeGraph.in_memory(
        embeddings=FakeEmbeddingProvider(dimension=8),
        extractor=NoNames(),
        settings=IngestSettings(chunk_chars=60, chunk_overlap=0),
    )


async def test_a_query_passage_and_its_context_name_the_headings_above_it() -> None:
    """The passage under "### Usage" carries Valgrind > Tools > Usage, and the LLM context
    cites it with that section."""
    async with graph() as kg:
        await kg.ingest("t", "valgrind.md", DOCUMENT)
        result = await kg.query("t", "debug build leak", k=5)
    usage = next(p for p in result.passages if "debug build" in p.text)
    assert usage.headings == ("Valgrind", "Tools", "Usage")
    assert (
        f"[{usage.marker}] (source: valgrind.md, section: Valgrind > Tools > Usage)"
        in result.as_context()
    )


async def test_an_answer_cites_each_passage_with_its_section() -> None:
    """An extractive answer's citations keep the heading path of the passage they name."""
    async with graph() as kg:
        await kg.ingest("t", "valgrind.md", DOCUMENT)
        answer = await kg.ask("t", "What finds leaks in programs?")
    assert answer.citations
    assert all(c.headings[:2] == ("Valgrind", "Tools") for c in answer.citations)


async def test_the_citation_table_has_a_section_column() -> None:
    """``redstring ask`` prints the section beside the source."""
    async with graph() as kg:
        await kg.ingest("t", "valgrind.md", DOCUMENT)
        answer = await kg.ask("t", "What finds leaks in programs?")
    console = Console(record=True, width=200)
    render.citations(console, answer.citations)
    printed = console.export_text()
    assert "section" in printed
    assert "Valgrind > Tools" in printed


def test_a_passage_stored_without_headings_has_none() -> None:
    """Passages ingested before heading paths were stored (or given a malformed value) cite
    their source alone."""

    def stored(metadata: dict[str, object]) -> StoredChunk:
        return StoredChunk(
            id=chunk_id("s", "text"),
            source_id=SourceId("s"),
            chunk_index=0,
            text="text",
            metadata=metadata,  # type: ignore[arg-type]
        )

    assert heading_path(stored({})) == ()
    assert heading_path(stored({"headings": "Tools"})) == ()
    assert heading_path(stored({"headings": ["A", 3, "B"]})) == ("A", "B")
