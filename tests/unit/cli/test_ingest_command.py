"""``ingest`` over a real-looking folder: every file met and not ingested is listed with its
reason, progress counts passages, and the settings that size the work are flags, variables
and config keys alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redstring.cli.settings import resolve
from tests.unit.cli.conftest import EXTRACTOR, RunCli


def _folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("Ada Lovelace works for Analytical Society.\n")
    (docs / "README").write_text("Grace Hopper works for Remington Rand.\n")
    (docs / "AUTHORS").write_text("Alan Turing\nCharles Babbage\n")
    (docs / "style.css").write_text("body { color: red }\n")
    (docs / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (docs / "empty.txt").write_text("")
    (docs / "blank.md").write_text("   \n\n")
    (docs / "big.txt").write_text("Mary Somerville. " * 400)
    (docs / "copy.md").write_text("Ada Lovelace works for Analytical Society.\n")
    (docs / "latin.txt").write_bytes("Émile Zola écrit à Médan.\n".encode("latin-1"))
    return docs


def test_every_file_met_and_not_ingested_is_listed_with_its_reason(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README and AUTHORS are ingested; the rest is skipped by reason: unsupported type,
    empty, too large, duplicate (before: extensionless files vanished without a word)."""
    _folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    options = {"backend": "memory", "extractor": EXTRACTOR, "max_document_chars": "2000"}
    result = run_cli("ingest", "docs", "--json", **options)
    assert result.exit_code == 0, result
    files = {f["source_id"]: (f["status"], f["detail"]) for f in json.loads(result.stdout)["files"]}
    assert {name for name, (status, _) in files.items() if status == "ingested"} == {
        "docs/AUTHORS", "docs/README", "docs/copy.md", "docs/latin.txt",
    }  # fmt: skip
    assert files["docs/style.css"] == ("skipped", "unsupported type .css")
    assert files["docs/logo.png"] == ("skipped", "unsupported type .png")
    assert files["docs/empty.txt"] == ("skipped", "empty (0 bytes)")
    assert files["docs/blank.md"] == ("skipped", "empty (no text found in it)")
    assert files["docs/big.txt"][0] == "skipped"
    assert files["docs/big.txt"][1].startswith("too large (6,800 characters; the limit is 2,000")
    assert files["docs/guide.md"] == ("duplicate", "same bytes as docs/copy.md")
    latin = next(
        f for f in json.loads(result.stdout)["files"] if f["source_id"] == "docs/latin.txt"
    )
    assert latin["encoding"] == "cp1252"

    text = run_cli("ingest", "docs", **options)
    assert text.exit_code == 0, text
    assert "skipped, unsupported type .css (1): docs/style.css" in text.stdout
    assert "skipped, empty (2): docs/blank.md, docs/empty.txt" in text.stdout
    assert "skipped, too large (1): docs/big.txt" in text.stdout
    assert "skipped, duplicate (1): docs/guide.md (same bytes as docs/copy.md)" in text.stdout


def test_progress_counts_passages_per_file_and_overall_with_rate_and_time_left(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off a terminal, each finished file is a line on stderr: its passages and time, and
    the run's passages done of all, the rate and the time left (before: nothing at all)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "long.md").write_text(
        "\n\n".join(f"Person{n} Name works for Org{n} Ltd." for n in range(60))
    )
    (docs / "short.md").write_text("Ada Lovelace works for Analytical Society.\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli(
        "ingest", "docs", "--chunk-chars", "200", backend="memory", extractor=EXTRACTOR
    )
    assert result.exit_code == 0, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2
    first, second = lines
    assert first.startswith("[1/2] docs/long.md: ingested, ")
    passages = int(first.split(", ")[1].split()[0])
    assert passages > 5
    assert f"all: {passages}/{passages + 1} passages" in first
    assert "/s, about " in first
    assert first.endswith(" left")
    assert second.startswith("[2/2] docs/short.md: ingested, 1 passages")
    assert f"all: {passages + 1}/{passages + 1} passages" in second


@pytest.mark.parametrize(
    ("where", "value"),
    [("flag", None), ("env", "REDSTRING_CHUNK_CHARS"), ("file", "chunk_chars = 200\n")],
)
def test_the_passage_size_is_a_flag_a_variable_and_a_config_key(
    run_cli: RunCli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    settings_file: Path,
    where: str,
    value: str | None,
) -> None:
    """--chunk-chars 200, REDSTRING_CHUNK_CHARS=200 and chunk_chars = 200 cut alike."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("\n\n".join(f"Person{n} Name works for Org{n}." for n in range(30)))
    monkeypatch.chdir(tmp_path)
    args = ["ingest", "docs", "--json"]
    env = None
    if where == "flag":
        args += ["--chunk-chars", "200"]
    elif where == "env":
        env = {"REDSTRING_CHUNK_CHARS": "200"}
    else:
        settings_file.write_text(value or "")
    result = run_cli(*args, env=env, backend="memory", extractor=EXTRACTOR)
    assert result.exit_code == 0, result
    default = run_cli("ingest", "docs", "--json", backend="memory", extractor=EXTRACTOR)
    if where == "file":
        settings_file.write_text("")
        default = run_cli("ingest", "docs", "--json", backend="memory", extractor=EXTRACTOR)
    assert json.loads(default.stdout)["passages"] == 1
    assert json.loads(result.stdout)["passages"] >= 5


def test_number_settings_are_checked_and_name_their_origin(tmp_path: Path) -> None:
    """A chunk size that is not a whole number, or too small, is refused naming its origin."""
    config = tmp_path / "c.toml"
    config.write_text('max_document_chars = 5000\nschema = "types.yaml"\n')
    settings = resolve({}, environ={"REDSTRING_CHUNK_CHARS": "300"}, config_file=config)
    assert (settings.chunk_chars, settings.max_document_chars) == (300, 5000)
    assert settings.schema == Path("types.yaml")
    assert settings.origins["chunk_chars"] == "env REDSTRING_CHUNK_CHARS"
    from redstring.cli.errors import ConfigError

    with pytest.raises(ConfigError, match=r"chunk_chars 'lots' \(from env"):
        resolve({}, environ={"REDSTRING_CHUNK_CHARS": "lots"}, config_file=config)
    with pytest.raises(ConfigError, match=r"chunk_chars 5 \(from flag\) is not a whole number"):
        resolve({"chunk_chars": 5}, environ={}, config_file=config)


def test_the_schema_file_is_a_setting_too(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """REDSTRING_SCHEMA works like --schema: only its types are kept."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Ada Lovelace works for Analytical Society.\n")
    schema = tmp_path / "people.json"
    schema.write_text(json.dumps({"entity_types": [{"name": "Person"}]}))
    monkeypatch.chdir(tmp_path)
    result = run_cli(
        "ingest", "docs", "--json", env={"REDSTRING_SCHEMA": str(schema)},
        backend="memory", extractor=EXTRACTOR,
    )  # fmt: skip
    assert result.exit_code == 0, result
    assert json.loads(result.stdout)["entities_created"] == 1
