"""The command on its embedded default: a real PostgreSQL (pgserver) kept in the data
directory, persisting across separate processes and surviving an interrupted ingest."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from redstring.cli import embedded
from redstring.domain.ids import EntityId, TenantId
from tests.backends import backend_unavailable
from tests.cli_runner import EXTRACTOR, CliResult, clean_environment, invoke, serving

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
INTERRUPTING = "tests.unit.cli.names_extractor:InterruptedOnMarker"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One embedded server for the module (started by the first command), stopped after."""
    directory = tmp_path_factory.mktemp("redstring-data")
    yield directory
    embedded.stop(directory)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A folder of documents plus an empty config file."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Ada Lovelace works for Analytical Society.\n")
    (docs / "b.txt").write_text("Grace Hopper works for Remington Rand.\n")
    (tmp_path / "config.toml").write_text("")
    return tmp_path


def _process(
    workdir: Path, data_dir: Path, *args: str, extractor: str | None = EXTRACTOR
) -> CliResult:
    """`python -m redstring ARGS` in a new process, on the embedded default."""
    done = subprocess.run(
        [
            sys.executable, "-m", "redstring", *args,
            "--data-dir", str(data_dir), "--config", str(workdir / "config.toml"),
            *(["--extractor", extractor] if extractor else []),
        ],
        cwd=workdir,
        env=clean_environment({"PYTHONPATH": str(ROOT)}),
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )  # fmt: skip
    return CliResult(done.returncode, done.stdout, done.stderr)


def _files(result: CliResult) -> dict[str, str]:
    assert result.exit_code == 0, result
    return {f["source_id"]: f["status"] for f in json.loads(result.stdout)["files"]}


def test_a_graph_persists_across_processes_and_unchanged_files_are_skipped(
    workdir: Path, data_dir: Path
) -> None:
    """Ingest in one process, read in another; re-ingest skips by content, not by name."""
    tenant = "persist"
    first = _process(workdir, data_dir, "ingest", "docs", "--json", "--tenant", tenant)
    assert _files(first) == {"docs/a.md": "ingested", "docs/b.txt": "ingested"}

    stats = _process(workdir, data_dir, "stats", "--json", "--tenant", tenant)
    assert stats.exit_code == 0, stats
    counts = json.loads(stats.stdout)
    assert (counts["sources"], counts["entities"], counts["relationships"]) == (2, 4, 2)

    again = _process(workdir, data_dir, "ingest", "docs", "--json", "--tenant", tenant)
    assert _files(again) == {"docs/a.md": "unchanged", "docs/b.txt": "unchanged"}
    assert json.loads(again.stdout)["extractor_runs"] == 0

    (workdir / "docs" / "a.md").write_text("Ada Lovelace works for Royal Institution.\n")
    shutil.copy(workdir / "docs" / "b.txt", workdir / "docs" / "copy-of-b.txt")
    changed = _process(workdir, data_dir, "ingest", "docs", "--json", "--tenant", tenant)
    assert _files(changed) == {
        "docs/a.md": "ingested",
        "docs/b.txt": "unchanged",
        "docs/copy-of-b.txt": "duplicate",
    }


def test_ctrl_c_mid_ingest_keeps_finished_files_and_the_next_run_resumes(
    workdir: Path, data_dir: Path
) -> None:
    """SIGINT during the second file: exit 130, the first file stored, the second not."""
    tenant = "interrupted"
    (workdir / "docs" / "b.txt").write_text("Grace Hopper INTERRUPT works for Remington Rand.\n")
    stopped = _process(
        workdir, data_dir, "ingest", "docs", "--tenant", tenant, extractor=INTERRUPTING
    )
    assert stopped.exit_code == 130, stopped
    assert "interrupted" in stopped.stderr
    assert "Traceback" not in stopped.stderr

    listed = _process(workdir, data_dir, "sources", "--json", "--tenant", tenant)
    assert [s["source_id"] for s in json.loads(listed.stdout)] == ["docs/a.md"]

    resumed = _process(workdir, data_dir, "ingest", "docs", "--json", "--tenant", tenant)
    assert _files(resumed) == {"docs/a.md": "unchanged", "docs/b.txt": "ingested"}


def test_sources_delete_rebuild_and_export_through_the_runner(
    workdir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read and maintenance commands on the embedded store, in-process."""
    monkeypatch.chdir(workdir)
    base = {"data_dir": str(data_dir), "tenant": "maint", "extractor": EXTRACTOR}

    def run(*args: str) -> CliResult:
        return invoke(args, config_file=workdir / "config.toml", options=base)

    assert run("ingest", "docs").exit_code == 0
    before = json.loads(run("stats", "--json").stdout)
    rebuilt = run("rebuild", "--json")
    assert rebuilt.exit_code == 0, rebuilt
    assert json.loads(rebuilt.stdout)["events_replayed"] == before["events"]
    assert json.loads(run("stats", "--json").stdout) == before

    graphml = workdir / "graph.graphml"
    assert run("export", "--format", "graphml", "--output", str(graphml)).exit_code == 0
    assert graphml.read_text().count("<node ") == before["entities"]

    deleted = run("delete-source", "docs/a.md", "--json")
    assert deleted.exit_code == 0, deleted
    assert json.loads(deleted.stdout)["existed"] is True
    remaining = json.loads(run("sources", "--json").stdout)
    assert [s["source_id"] for s in remaining] == ["docs/b.txt"]
    missing = run("delete-source", "docs/a.md")
    assert missing.exit_code == 1
    assert "has no source 'docs/a.md'" in missing.stderr

    assert run("delete-tenant", "--yes").exit_code == 0
    gone = run("stats", "--json")
    assert gone.exit_code == 3, gone
    assert "tenant 'maint' holds nothing" in gone.stderr


def test_the_embedded_server_is_reused_not_restarted(workdir: Path, data_dir: Path) -> None:
    """A second command finds the server running: same postmaster, same DSN."""
    _process(workdir, data_dir, "stats", "--tenant", "reuse")
    pid_file = embedded.pgdata_of(data_dir) / "postmaster.pid"
    first_pid = pid_file.read_text().split()[0]
    _process(workdir, data_dir, "stats", "--tenant", "reuse")
    assert pid_file.read_text().split()[0] == first_pid


def test_a_reviewer_merges_lists_and_unmerges_entities(workdir: Path, data_dir: Path) -> None:
    """merge makes an alias, merges explains it, unmerge restores it and keeps the pair apart."""
    records = workdir / "people.jsonl"
    records.write_text(
        '{"kind": "entity", "ref": "a", "type": "Person", "name": "Ada Lovelace"}\n'
        '{"kind": "entity", "ref": "b", "type": "Person", "name": "Countess of Lovelace"}\n'
    )
    base = {"data_dir": str(data_dir), "tenant": "review"}

    def run(*args: str) -> CliResult:
        # wide enough that no table cell is folded across lines
        return invoke(
            args, config_file=workdir / "config.toml", options=base, env={"COLUMNS": "300"}
        )

    imported = run("import", str(records), "--json")
    assert imported.exit_code == 0, imported
    refs = json.loads(imported.stdout)["refs"]
    assert run("merges").stdout.strip() == "tenant review has no merges"

    merged = run("merge", refs["a"], refs["b"], "--json")
    assert merged.exit_code == 0, merged
    assert json.loads(merged.stdout) == {"kept": refs["a"], "alias": refs["b"]}
    listed = json.loads(run("merges", "--json").stdout)
    assert [(m["winner_id"], m["loser_id"], m["rule"]) for m in listed] == [
        (refs["a"], refs["b"], "manual")
    ]
    table = run("merges").stdout
    (row,) = [line for line in table.splitlines() if "Countess of Lovelace" in line]
    assert refs["b"][:8] in row
    assert "manual" in row
    explained = run("merges", "--explain", refs["b"][:8])
    assert explained.exit_code == 0, explained
    assert refs["b"] in explained.stdout
    assert f"redstring unmerge {refs['b']}" in explained.stdout
    unknown = run("merges", "--explain", "ffffffff")
    assert unknown.exit_code == 1
    assert "no merge whose id starts with 'ffffffff'" in unknown.stderr
    assert json.loads(run("stats", "--json").stdout)["entities"] == 1

    restored = run("unmerge", refs["b"], "--json")
    assert restored.exit_code == 0, restored
    assert json.loads(restored.stdout) == {"restored": refs["b"]}
    assert json.loads(run("stats", "--json").stdout)["entities"] == 2

    refused = run("merge", refs["a"], refs["b"])
    assert refused.exit_code == 1
    assert refused.stderr.startswith("error: ")
    assert len(refused.stderr.strip().splitlines()) == 1
    not_an_id = run("unmerge", "not-a-uuid")
    assert not_an_id.exit_code == 1
    assert "'not-a-uuid' is not an entity id" in not_an_id.stderr


def test_a_file_whose_extraction_failed_is_retried_though_its_bytes_did_not_change(
    workdir: Path, data_dir: Path
) -> None:
    """The failed passage is reported, and the next run of the same bytes retries it."""
    (workdir / "docs" / "b.txt").write_text("Grace Hopper FLAKY works for Remington Rand.\n")
    failing = _process(
        workdir, data_dir, "ingest", "docs", "--json", "--tenant", "flaky",
        extractor="tests.unit.cli.names_extractor:FailsOnMarker",
    )  # fmt: skip
    assert failing.exit_code == 1, failing
    first = json.loads(failing.stdout)
    assert first["failed_passages"] == 1
    assert {f["source_id"]: f["detail"] for f in first["files"]}["docs/b.txt"] == (
        "1 passage(s) failed"
    )
    retried = _process(workdir, data_dir, "ingest", "docs", "--json", "--tenant", "flaky")
    second = json.loads(retried.stdout)
    assert _files(retried) == {"docs/a.md": "unchanged", "docs/b.txt": "ingested"}
    assert (second["failed_passages"], second["extractor_runs"]) == (0, 1)


def test_ingest_and_stats_count_the_same_relationships(workdir: Path, data_dir: Path) -> None:
    """A relationship stated in two files is one relationship: ingest's "relationships
    created" is what stats counts (before, ingest counted statements: 2 against 1)."""
    tenant = "counts"
    (workdir / "docs" / "b.txt").write_text(
        "Grace Hopper works for Remington Rand. Ada Lovelace works for Analytical Society.\n"
    )
    ingested = _process(workdir, data_dir, "ingest", "docs", "--json", "--tenant", tenant)
    assert ingested.exit_code == 0, ingested
    summary = json.loads(ingested.stdout)
    assert (summary["relationship_statements"], summary["relationships_created"]) == (3, 2)
    stats = json.loads(_process(workdir, data_dir, "stats", "--json", "--tenant", tenant).stdout)
    assert stats["relationships"] == summary["relationships_created"]
    assert stats["entities"] == summary["entities_created"]
    assert stats["chunks"] == summary["passages"]
    table = _process(workdir, data_dir, "stats", "--tenant", tenant).stdout
    assert "passages" in table
    assert "chunks" not in table
    assert "Entities by type" in table
    (row,) = [line for line in table.splitlines() if "WORKS_FOR" in line]
    assert row.split("│")[-2].strip() == "2"
    assert "{" not in table


def test_query_and_ask_cite_the_ingested_files(
    workdir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """query finds the passage; ask answers (extractively, no model) citing its source."""
    monkeypatch.chdir(workdir)
    base = {"data_dir": str(data_dir), "tenant": "asking", "extractor": EXTRACTOR}

    def run(*args: str) -> CliResult:
        return invoke(
            args, config_file=workdir / "config.toml", options=base, env={"COLUMNS": "300"}
        )

    assert run("ingest", "docs").exit_code == 0
    found = run("query", "Grace Hopper", "--json", "-k", "3")
    assert found.exit_code == 0, found
    shown = json.loads(found.stdout)
    sources = [p["source_id"] for p in shown["passages"]]
    assert sources[0] == "docs/b.txt"
    for kind in ("passages", "entities", "relationships"):
        positions: dict[str, list[int]] = {}
        for item in shown[kind]:
            assert item["ranks"], f"{kind} item without its rank in any signal: {item}"
            for signal, rank in item["ranks"].items():
                assert isinstance(rank, int), (kind, signal, rank)
                assert rank >= 1, (kind, signal, rank)
                positions.setdefault(signal, []).append(rank)
        for signal, ranks in positions.items():
            assert len(set(ranks)) == len(ranks), f"{kind}: {signal} gives one rank twice"
    assert {"lexical", "passage_vector"} <= set(shown["passages"][0]["ranks"])

    answered = run("ask", "Who works for Remington Rand?", "--json")
    assert answered.exit_code == 0, answered
    answer = json.loads(answered.stdout)
    assert answer["kind"] == "extractive"
    assert "docs/b.txt" in {c["source_id"] for c in answer["citations"]}
    shown = run("ask", "Who works for Remington Rand?").stdout
    assert "(extractive answer)" in shown
    assert "docs/b.txt" in shown


def test_neo4j_holds_the_graph_when_named(
    workdir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--neo4j-uri: the entities live in Neo4j; the other stores stay in PostgreSQL."""
    uri = os.environ.get("REDSTRING_TEST_NEO4J_URI", "").strip()
    if not uri:
        backend_unavailable("Neo4j", "REDSTRING_TEST_NEO4J_URI is not set")
    monkeypatch.chdir(workdir)
    tenant = f"neo4j-{uuid.uuid4().hex[:12]}"
    base = {"data_dir": str(data_dir), "tenant": tenant, "extractor": EXTRACTOR}

    def run(*args: str, **extra: str) -> CliResult:
        return invoke(args, config_file=workdir / "config.toml", options={**base, **extra})

    ingested = run("ingest", "docs", "--json", neo4j_uri=uri)
    assert ingested.exit_code == 0, ingested
    assert json.loads(ingested.stdout)["entities_created"] == 4
    exported = json.loads(run("export", neo4j_uri=uri).stdout)
    ids = [UUID(item["entity"]["id"]) for item in exported["entities"]]
    assert sorted(item["entity"]["name"] for item in exported["entities"]) == [
        "Ada Lovelace", "Analytical Society", "Grace Hopper", "Remington Rand",
    ]  # fmt: skip
    held = asyncio.run(_graph_stores_holding(uri, embedded.start(data_dir), tenant, ids))
    assert held == {"neo4j": 4, "postgres": 0}
    assert run("delete-tenant", "--yes", neo4j_uri=uri).exit_code == 0


async def _graph_stores_holding(
    neo4j_uri: str, dsn: str, tenant: str, ids: list[UUID]
) -> dict[str, int]:
    """How many of ``ids`` each graph store holds for ``tenant``."""
    from redstring.graph.adapters.neo4j import Neo4jGraphStore
    from redstring.graph.adapters.postgres import PostgresGraphStore

    counts = {}
    async with await Neo4jGraphStore.connect(neo4j_uri, None) as neo4j:
        found = [await neo4j.get_entity(TenantId(tenant), EntityId(i)) for i in ids]
        counts["neo4j"] = sum(entity is not None for entity in found)
    async with await PostgresGraphStore.connect(dsn) as postgres:
        found = [await postgres.get_entity(TenantId(tenant), EntityId(i)) for i in ids]
        counts["postgres"] = sum(entity is not None for entity in found)
    return counts


def test_the_default_offline_extractor_builds_the_graph(workdir: Path, data_dir: Path) -> None:
    """No --extractor and no model server: spaCy extracts, in a separate process."""
    tenant = "offline"
    ingested = _process(
        workdir, data_dir, "ingest", "docs", "--json", "--tenant", tenant, extractor=None
    )
    assert ingested.exit_code == 0, ingested
    assert json.loads(ingested.stdout)["extractor"].startswith("SpacyExtractor (spacy/")
    exported = json.loads(_process(workdir, data_dir, "export", "--tenant", tenant).stdout)
    names = {(e["entity"]["name"], e["entity"]["type"]) for e in exported["entities"]}
    assert {("Ada Lovelace", "Person"), ("Grace Hopper", "Person")} <= names
    assert "WORKS_FOR" in {r["type"] for r in exported["relationships"]}


def test_serve_answers_on_the_embedded_default(workdir: Path, data_dir: Path) -> None:
    """With no server named, `keys create` and `serve` share the embedded PostgreSQL: a key
    made in one process opens its tenant over HTTP in another, and answers cite its files."""
    import requests

    tenant = f"served-{uuid.uuid4().hex[:8]}"
    ingested = _process(workdir, data_dir, "ingest", "docs", "--json", "--tenant", tenant)
    assert ingested.exit_code == 0, ingested
    created = _process(workdir, data_dir, "keys", "create", "--tenant", tenant, "--json")
    assert created.exit_code == 0, created
    key = json.loads(created.stdout)["key"]
    options = [
        "--data-dir", str(data_dir), "--config", str(workdir / "config.toml"),
        "--extractor", EXTRACTOR,
    ]  # fmt: skip
    headers = {"Authorization": f"Bearer {key}"}
    with serving(options, env=clean_environment({"PYTHONPATH": str(ROOT)}), cwd=workdir) as base:
        asked = requests.post(
            f"{base}/v1/ask",
            json={"question": "Who works for Remington Rand?"},
            headers=headers,
            timeout=60,
        )
        assert asked.status_code == 200, asked.text
        answer = asked.json()
        assert answer["kind"] == "extractive"
        assert "docs/b.txt" in {c["source_id"] for c in answer["citations"]}
        assert requests.get(f"{base}/v1/stats", timeout=30).status_code == 401


def test_a_mistyped_tenant_names_the_tenants_that_exist(workdir: Path, data_dir: Path) -> None:
    """`ask --tenant T` when the data is in `t`: exit 3, the tenants with data listed and
    the likely one suggested (before: "nothing relevant, no answer", exit 0)."""
    ingested = _process(workdir, data_dir, "ingest", "docs", "--json", "--tenant", "t")
    assert ingested.exit_code == 0, ingested
    asked = _process(workdir, data_dir, "ask", "Who works for Remington Rand?", "--tenant", "T")
    assert asked.exit_code == 3, asked
    line = asked.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "tenant 'T' holds nothing" in line
    assert "did you mean 't'?" in line
    listed = line.split("Tenants with data: ", 1)[1].split(", ")
    assert "t" in listed
    good = _process(workdir, data_dir, "ask", "Who works for Remington Rand?", "--tenant", "t")
    assert good.exit_code == 0, good


def test_a_tenant_embedded_with_another_model_says_to_rebuild_until_it_is(
    workdir: Path, data_dir: Path
) -> None:
    """Ingested with ``--embedding-model static``, asked with the default (MiniLM): the
    answer still comes (BM25, names, graph), a note on stderr says to rebuild, ``--json``
    stays JSON with the note in it; after ``rebuild`` the note is gone (ADR 0047)."""
    tenant = "models"
    ingested = _process(
        workdir, data_dir, "ingest", "docs", "--tenant", tenant, "--embedding-model", "static"
    )
    assert ingested.exit_code == 0, ingested
    asked = _process(workdir, data_dir, "query", "Who works for Analytical Society?",
                     "--tenant", tenant, "--json")  # fmt: skip
    assert asked.exit_code == 0, asked
    result = json.loads(asked.stdout)
    assert any(p["source_id"] == "docs/a.md" for p in result["passages"])
    assert result["signal_hits"]["passage_vector"] == 0
    assert "rebuild" in asked.stderr
    assert "--tenant models" in asked.stderr
    assert result["notices"]
    rebuilt = _process(workdir, data_dir, "rebuild", "--tenant", tenant)
    assert rebuilt.exit_code == 0, rebuilt
    assert "all-MiniLM-L6-v2" in rebuilt.stdout
    again = _process(workdir, data_dir, "query", "Who works for Analytical Society?",
                     "--tenant", tenant, "--json")  # fmt: skip
    assert again.exit_code == 0, again
    assert json.loads(again.stdout)["notices"] == []
    assert json.loads(again.stdout)["signal_hits"]["passage_vector"] > 0
    assert "rebuild" not in again.stderr
