"""The real ``redstring`` commands through Typer's runner, in memory (one process, one run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import redstring
from redstring.cli.commands import app
from tests.unit.cli.conftest import EXTRACTOR, RunCli
from tests.unit.documents.test_documents import write_docx, write_pdf

COMMANDS = sorted(command.name or "" for command in app.registered_commands)


def test_every_command_of_the_issue_exists() -> None:
    """The command set is the one the README documents."""
    assert set(COMMANDS) == {
        "ask", "config", "delete-source", "delete-tenant", "demo", "export", "import",
        "ingest", "merge", "merges", "possible-matches", "query", "rebuild", "sources",
        "serve", "stats", "unmerge",
    }  # fmt: skip


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_explains_itself_and_takes_tenant_and_json(
    run_cli: RunCli, name: str
) -> None:
    """`--help` shows the command's own summary and the common options."""
    result = run_cli(name, "--help")
    assert result.exit_code == 0, result
    command = next(c for c in app.registered_commands if c.name == name)
    summary = (command.help or "").split("\n", 1)[0]
    flat = " ".join(result.stdout.split())
    assert " ".join(summary.split()[:6]) in flat
    assert "--tenant" in flat
    assert "--json" in flat


def test_version_prints_the_package_version(run_cli: RunCli) -> None:
    """`--version` prints the version and exits 0."""
    result = run_cli("--version")
    assert result.exit_code == 0
    assert result.stdout == f"redstring {redstring.__version__}\n"


def test_python_dash_m_redstring_is_the_same_command() -> None:
    """`python -m redstring` runs the command; an unknown command exits 2 with the usage."""
    ok = subprocess.run(
        [sys.executable, "-m", "redstring", "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (ok.returncode, ok.stdout) == (0, f"redstring {redstring.__version__}\n")
    bad = subprocess.run(
        [sys.executable, "-m", "redstring", "frobnicate"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert bad.returncode == 2
    assert "Usage: redstring" in bad.stderr


@pytest.mark.parametrize(
    "argv", [["frobnicate"], ["stats", "--no-such-option"], ["ingest"], ["merge", "one-id"]]
)
def test_a_usage_error_exits_2_with_the_usage_line(run_cli: RunCli, argv: list[str]) -> None:
    """Unknown commands and options, and missing arguments, are usage errors."""
    result = run_cli(*argv)
    assert result.exit_code == 2, result
    assert "Usage: " in result.stderr


def _folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "web").mkdir(parents=True)
    (docs / "notes.md").write_text("Ada Lovelace works for Analytical Society.\n")
    (docs / "plain.txt").write_text("Charles Babbage works for Difference Works.\n")
    (docs / "web" / "page.html").write_text(
        "<p>Grace Hopper works for Remington Rand.</p><script>Evil Script()</script>"
    )
    write_docx(docs / "letter.docx", ["Alan Turing works for Bletchley Park."])
    write_pdf(docs / "paper.pdf", ["Mary Somerville works for Royal Society."])
    return docs


def test_ingest_reads_every_format_and_reports_a_summary(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five formats, five sources; the summary counts what the graph gained."""
    docs = _folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_cli("ingest", "docs", "--json", backend="memory", extractor=EXTRACTOR)
    assert result.exit_code == 0, result
    summary = json.loads(result.stdout)
    assert sorted(f["source_id"] for f in summary["files"]) == [
        "docs/letter.docx", "docs/notes.md", "docs/paper.pdf", "docs/plain.txt",
        "docs/web/page.html",
    ]  # fmt: skip
    assert {f["status"] for f in summary["files"]} == {"ingested"}
    assert summary["entities_created"] == 10
    assert summary["relationships_created"] == 5
    assert summary["extractor_runs"] == 5
    assert summary["model_calls"] == 0
    assert summary["extractor"] == "CapitalisedNames (tests/capitalised-names@1)"
    assert docs.exists()


def test_ingest_prints_a_summary_table_for_people(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --json the summary is a table naming each count and the extractor."""
    _folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_cli("ingest", "docs/notes.md", backend="memory", extractor=EXTRACTOR)
    assert result.exit_code == 0, result
    for label in (
        "files",
        "entities created",
        "relationships created",
        "extractor runs",
        "model calls",
        "failed",
    ):
        assert label in result.stdout
    assert "extractor: CapitalisedNames" in result.stdout


def test_a_missing_path_fails_with_one_line_and_debug_shows_the_traceback(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """Exit 1 and one line naming the path; --debug adds the traceback."""
    missing = str(tmp_path / "nope")
    plain = run_cli("ingest", missing, backend="memory", extractor=EXTRACTOR)
    assert plain.exit_code == 1
    assert plain.stderr.strip() == f"error: {missing}: no such file or folder"
    debug = run_cli("ingest", missing, "--debug", backend="memory", extractor=EXTRACTOR)
    assert debug.exit_code == 1
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.rstrip().endswith(f"error: {missing}: no such file or folder")


def test_an_unknown_extractor_factory_is_a_config_error(run_cli: RunCli, tmp_path: Path) -> None:
    """A factory that cannot be imported is named in one line."""
    (tmp_path / "a.md").write_text("Ada Lovelace.")
    result = run_cli(
        "ingest", str(tmp_path / "a.md"), backend="memory", extractor="no.such.module:Thing"
    )
    assert result.exit_code == 1
    assert "no.such.module.Thing" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_invalid_tenant_is_refused_by_name(run_cli: RunCli) -> None:
    """Tenant ids are validated by the library; the command reports its message."""
    result = run_cli("stats", tenant="bad tenant!", backend="memory")
    assert result.exit_code == 1
    assert "bad tenant!" in result.stderr


def test_import_reports_and_refuses_a_bad_line_by_number(run_cli: RunCli, tmp_path: Path) -> None:
    """Records import without a model; a malformed record names its line and nothing is written."""
    good = tmp_path / "good.jsonl"
    good.write_text(
        '{"kind": "entity", "ref": "a", "type": "Person", "name": "Ada Lovelace"}\n'
        '{"kind": "entity", "ref": "b", "type": "Organization", "name": "Analytical Society"}\n'
        '{"kind": "relationship", "subject": "a", "type": "WORKS_FOR", "object": "b"}\n'
    )
    result = run_cli("import", str(good), "--json", backend="memory")
    assert result.exit_code == 0, result
    report = json.loads(result.stdout)
    assert (report["records"], report["entities_created"], report["relationships"]) == (3, 2, 1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good.read_text() + '{"kind": "entity", "ref": "c", "type": "Person"}\n')
    failed = run_cli("import", str(bad), backend="memory")
    assert failed.exit_code == 1
    assert "record 4" in failed.stderr
    assert "name" in failed.stderr


def test_delete_tenant_needs_yes_when_nobody_can_answer(run_cli: RunCli) -> None:
    """Without a terminal to confirm on, --yes is required."""
    result = run_cli("delete-tenant", backend="memory")
    assert result.exit_code == 1
    assert "--yes" in result.stderr
    confirmed = run_cli("delete-tenant", "--yes", "--json", backend="memory")
    assert confirmed.exit_code == 0, confirmed
    assert json.loads(confirmed.stdout) == {
        "tenant": "default",
        "deleted": True,
        "events": 0,
        "keys": 0,
        "jobs": 0,
    }


def test_export_refuses_an_unknown_format_as_a_usage_error(run_cli: RunCli) -> None:
    """Formats are json, graphml and html; anything else is a usage error (exit 2, as the
    README promises; it was 1), naming the choices."""
    result = run_cli("export", format="csv", backend="memory")
    assert result.exit_code == 2, result
    assert "Usage: " in result.stderr
    assert "'csv'" in result.stderr
    assert "'json', 'graphml', 'html'" in result.stderr


@pytest.mark.parametrize(
    "argv", [["export"], ["stats"], ["ask", "Who?"], ["query", "ships"], ["sources"], ["merges"]]
)
def test_a_tenant_that_holds_nothing_is_exit_3_saying_so(run_cli: RunCli, argv: list[str]) -> None:
    """Reading a tenant with no data is not an empty answer: exit 3 and one line saying so
    (before: "nothing relevant" or an empty snapshot, exit 0)."""
    result = run_cli(*argv, tenant="nobody", backend="memory")
    assert result.exit_code == 3, result
    assert result.stdout == ""
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert line.startswith("error: tenant 'nobody' holds nothing")


def test_ingest_extracts_to_the_schema_file_given(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--schema restricts what is kept to its types; an unreadable schema is one line, exit 1."""
    _folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    schema = tmp_path / "people.json"
    schema.write_text(json.dumps({"entity_types": [{"name": "Person"}]}))
    result = run_cli(
        "ingest", "docs/notes.md", "--json", "--schema", str(schema),
        backend="memory", extractor=EXTRACTOR,
    )  # fmt: skip
    assert result.exit_code == 0, result
    summary = json.loads(result.stdout)
    assert (summary["entities_created"], summary["relationships_created"]) == (1, 0)
    schema.write_text("{not json")
    broken = run_cli(
        "ingest", "docs/notes.md", "--schema", str(schema), backend="memory", extractor=EXTRACTOR
    )
    assert broken.exit_code == 1
    assert "people.json" in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1


def test_an_unreachable_server_is_one_line_with_the_debug_hint(run_cli: RunCli) -> None:
    """An unexpected failure (here: nothing listens) is still one line, exit 1."""
    result = run_cli("stats", postgres_dsn="postgresql://nobody@127.0.0.1:1/none")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    assert "127.0.0.1" in lines[0]
    assert lines[0].endswith("(run again with --debug for the traceback)")
