"""What ``redstring ingest`` stores about a file: nothing of the machine it ran on (issue 26,
finding 6: a server listed each source's absolute path to every client of the tenant)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from redstring import KnowledgeGraph
from redstring.cli.ingesting import IngestTally, ingest_planned, plan_files
from redstring.cli.progress import PassageProgress
from redstring.documents import walk
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


async def _planned(arguments: list[str], cwd: Path) -> dict[str, tuple[str, str]]:
    graph = KnowledgeGraph.in_memory(
        embeddings=FakeEmbeddingProvider(dimension=16), extractor=VocabularyExtractor()
    )
    found = walk(arguments)
    plan = await plan_files(graph, "t", found.files, found.skipped, cwd=cwd, bases=found.bases)
    decided = {item.path: (item.source_id, item.status) for item in plan.decided}
    return {**decided, **{str(item.path): (item.source, "planned") for item in plan.files}}


async def test_outside_the_working_folder_a_source_is_named_from_its_argument(
    tmp_path: Path,
) -> None:
    """``ingest /elsewhere/docs`` stores ``docs/...``; a pattern from its fixed folder; a
    file named directly, its name. No id is absolute."""
    docs = tmp_path / "srv" / "docs"
    (docs / "deep").mkdir(parents=True)
    (docs / "a.md").write_text("Eli Stone works for Northwind.")
    (docs / "deep" / "b.txt").write_text("Ada Lovelace knows Babbage.")
    (docs / "c.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    by_folder = await _planned([str(docs)], cwd=elsewhere)
    assert sorted(source for source, _ in by_folder.values()) == [
        "docs/a.md",
        "docs/c.png",
        "docs/deep/b.txt",
    ]
    by_pattern = await _planned([f"{docs}/**/*.txt"], cwd=elsewhere)
    assert [source for source, _ in by_pattern.values()] == ["docs/deep/b.txt"]
    by_file = await _planned([str(docs / "deep" / "b.txt")], cwd=elsewhere)
    assert [source for source, _ in by_file.values()] == ["b.txt"]
    beneath = await _planned([str(docs)], cwd=tmp_path)
    assert "srv/docs/a.md" in [source for source, _ in beneath.values()]


async def test_two_files_that_would_share_a_source_id_the_second_fails(tmp_path: Path) -> None:
    """Two folders' ``x.md`` named directly from elsewhere: one is planned, the other fails
    naming the first, instead of replacing it."""
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.md").write_text(f"Eli Stone works for {name.title()} Bank.")
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    planned = await _planned(
        [str(tmp_path / "one" / "x.md"), str(tmp_path / "two" / "x.md")], cwd=elsewhere
    )
    assert sorted(planned.values()) == [("x.md", "failed"), ("x.md", "planned")]
    failed = [path for path, (_, status) in planned.items() if status == "failed"]
    assert failed == [str(tmp_path / "two" / "x.md")]
