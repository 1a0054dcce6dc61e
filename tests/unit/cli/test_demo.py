"""`redstring demo` runs the shipped corpus end to end and says how to switch extractors."""

from __future__ import annotations

import json
from pathlib import Path

from redstring import corpus
from tests.unit.cli.conftest import EXTRACTOR, RunCli


def test_the_demo_ingests_the_corpus_shows_entities_and_writes_the_view(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """Every corpus document becomes a source of tenant `demo`; the page holds the entities."""
    page = tmp_path / "demo.html"
    result = run_cli("demo", "--json", backend="memory", extractor=EXTRACTOR, output=str(page))
    assert result.exit_code == 0, result
    shown = json.loads(result.stdout)
    documents = corpus.load_corpus().documents
    assert shown["tenant"] == "demo"
    assert len(shown["summary"]["files"]) == len(documents)
    assert {f["status"] for f in shown["summary"]["files"]} == {"ingested"}
    assert shown["entities"]
    assert shown["html"] == str(page.resolve())
    html = page.read_text()
    assert shown["entities"][0]["name"] in html
    # Each question is about one of the entities shown, and its citations are corpus passages.
    assert shown["answers"]
    names = {entity["name"] for entity in shown["entities"]}
    sources = {file["source_id"] for file in shown["summary"]["files"]}
    for item in shown["answers"]:
        assert any(name in item["question"] for name in names), item["question"]
        answer = item["answer"]
        assert answer["kind"] == "extractive"
        assert answer["citations"]
        assert {citation["source_id"] for citation in answer["citations"]} <= sources


def test_the_demo_names_its_extractor_and_how_to_use_a_model(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """People see which extractor ran and the flags that switch to a model server."""
    result = run_cli("demo", backend="memory", extractor=EXTRACTOR, output=str(tmp_path / "d.html"))
    assert result.exit_code == 0, result
    flat = " ".join(result.stdout.split())
    assert "Extractor: CapitalisedNames (tests/capitalised-names@1)" in flat
    assert "--llm-base-url" in flat
    assert "Resolved entities" in flat
