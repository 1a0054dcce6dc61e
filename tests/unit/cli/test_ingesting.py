"""What ``redstring ingest`` stores about a file: nothing of the machine it ran on (issue 26,
finding 6: a server listed each source's absolute path to every client of the tenant)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from redstring import KnowledgeGraph
from redstring.cli.ingesting import IngestTally, ingest_planned, plan_files
from redstring.cli.progress import PassageProgress
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from tests.ingest_support import VocabularyExtractor


async def test_a_files_source_keeps_the_path_as_the_user_named_it(tmp_path: Path) -> None:
    """Id and metadata hold the path relative to where the command ran, never an absolute
    one."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("Eli Stone works for Northwind.")
    graph = KnowledgeGraph.in_memory(
        embeddings=FakeEmbeddingProvider(dimension=16), extractor=VocabularyExtractor()
    )
    tally = IngestTally(extractor="vocabulary")
    plan = await plan_files(graph, "t", [folder / "a.md"], [], cwd=tmp_path)
    progress = PassageProgress(Console(quiet=True), total_passages=1, total_files=1, enabled=False)
    with progress:
        await ingest_planned(graph, "t", plan, tally, progress)
    [source] = await graph.sources("t")
    assert (source.source_id, source.metadata["path"]) == ("notes/a.md", "notes/a.md")
    assert str(tmp_path) not in str(source.model_dump())
