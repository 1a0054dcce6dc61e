"""Reading the library's source as text, for gates that must not import what they inspect."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent / "src" / "redstring"


def library_files() -> list[Path]:
    """Every ``.py`` file of the library, sorted."""
    return sorted(SOURCE_ROOT.rglob("*.py"))


def relative(path: Path) -> str:
    """``path`` relative to ``src/redstring`` with forward slashes, e.g. ``ports/cache.py``."""
    return path.relative_to(SOURCE_ROOT).as_posix()


def parse(path: Path) -> ast.Module:
    """The module's syntax tree."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def absolute_imports(tree: ast.AST) -> Iterator[str]:
    """Every absolutely imported module name, at any nesting depth (functions, TYPE_CHECKING).

    Relative imports are first-party by construction and left to lint-imports.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
