"""``ingest`` with a model server that is not there, refuses the key, does not know the
model, never answers, or botches one answer: driven through the real LangChain/openai stack
against a local socket or a tiny HTTP server (tests/model_server.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import model_server, refused_url
from tests.unit.cli.conftest import RunCli

MODEL = "test-model"


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a", "b", "c"):
        (docs / f"{name}.md").write_text(f"Ada Lovelace met Charles Babbage in {name}.\n")
    return docs


def _ingest(run_cli: RunCli, docs: Path, base_url: str, *extra: str) -> object:
    return run_cli(
        "ingest", str(docs), *extra, backend="memory", llm_base_url=base_url, llm_model=MODEL
    )


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_nothing_listening_stops_the_ingest_at_once_naming_url_model_and_cause(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """Exit 1 and one line (before: exit 0, "1 passage(s) failed", an empty graph)."""
    url = refused_url()
    result = _ingest(run_cli, _docs(tmp_path), url)
    assert result.exit_code == 1, result
    line = _one_line(result.stderr)
    assert line.startswith("error: the model server at " + url)
    assert f"(model {MODEL})" in line
    assert "refused the connection" in line


@pytest.mark.parametrize(
    ("status", "cause"),
    [
        (401, "refused the API key (401 Unauthorized)"),
        (403, "refused the request (403 Forbidden)"),
        (404, "answered 404 Not Found"),
    ],
)
def test_a_refused_key_or_unknown_model_stops_after_one_request(
    run_cli: RunCli, tmp_path: Path, status: int, cause: str
) -> None:
    """No retry can mend these: one request, then exit 1 with the cause."""
    with model_server(lambda _text: ("status", status)) as server:
        result = _ingest(run_cli, _docs(tmp_path), server.base_url, "--llm-api-key", "sk-bad")
    assert result.exit_code == 1, result
    line = _one_line(result.stderr)
    assert server.base_url in line
    assert cause in line
    assert len(server.requests) == 1


def test_a_server_that_never_answers_stops_after_the_timeout_and_its_retries(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """--llm-timeout bounds each call; the first call of the run failing stops it."""
    with model_server(lambda _text: ("hang", 200)) as server:
        result = _ingest(run_cli, _docs(tmp_path), server.base_url, "--llm-timeout", "0.5")
    assert result.exit_code == 1, result
    line = _one_line(result.stderr)
    assert server.base_url in line
    assert "did not answer" in line
    assert "0.5 s" in line
    assert len(server.requests) == 3  # the three attempts of the first passage, no more


def test_a_failed_passage_is_listed_with_its_reason_in_text_and_json(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """One botched answer among good ones: the run goes on, the passage is named with why,
    the exit code says the run is not complete, and model calls are counted apart."""
    docs = _docs(tmp_path)
    (docs / "b.md").write_text("Grace Hopper BROKEN met Alan Turing.\n")

    def behaviour(text: str) -> tuple[str, int]:
        return ("malformed", 200) if "BROKEN" in text else ("answer", 200)

    with model_server(behaviour) as server:
        text = _ingest(run_cli, docs, server.base_url)
        as_json = _ingest(run_cli, docs, server.base_url, "--json")
    assert text.exit_code == 1, text
    assert "failed passage: " in text.stdout
    assert "b.md #0: MalformedCompletionError" in text.stdout
    summary = json.loads(as_json.stdout)
    (failed,) = [f for f in summary["files"] if f["failed_passages"]]
    assert failed["source_id"].endswith("docs/b.md")
    assert failed["failed_passages"][0]["error"] == "MalformedCompletionError"
    assert failed["failed_passages"][0]["message"]
    assert summary["failed_passages"] == 1
    assert summary["extractor_runs"] == 3
    assert summary["model_calls"] == 3
