"""The library reads no environment variables: a caller configures it explicitly.

Exemptions are guarded both ways (the exempt place must really read the environment, so a
stale exemption fails). There are two: the suites' example budget, configured per pytest
invocation (ADR 0005), and the command line's settings, which an application may take from
``REDSTRING_*`` variables (flags > environment > config file) before handing the library
explicit arguments.
"""

from __future__ import annotations

import ast

from tests.source_tree import library_files, parse, relative

EXEMPT = {
    "testing/settings.py": "KG_COMPLIANCE_MAX_EXAMPLES configures one pytest invocation",
    "cli/settings.py": "the redstring command reads REDSTRING_* settings (flags > env > file)",
}


def reads_environment(tree: ast.AST) -> list[int]:
    """Line numbers where ``tree`` touches ``os.environ``, ``os.getenv`` or ``os.putenv``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "environb"}:
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            if any(alias.name in {"environ", "getenv", "environb"} for alias in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Name) and node.id in {"getenv", "environ"}:
            lines.append(node.lineno)
    return sorted(set(lines))


def _exempt(path: str) -> bool:
    return any(path == key or (key.endswith("/") and path.startswith(key)) for key in EXEMPT)


def test_no_library_module_reads_the_environment() -> None:
    """Outside the exemptions, no module reads the environment."""
    offenders = {
        relative(path): lines
        for path in library_files()
        if not _exempt(relative(path)) and (lines := reads_environment(parse(path)))
    }
    assert offenders == {}


def test_every_exemption_still_reads_the_environment() -> None:
    """An exemption that no longer reads the environment is stale and must go."""
    readers = {relative(path) for path in library_files() if reads_environment(parse(path))}
    for key in EXEMPT:
        matching = [p for p in readers if p == key or (key.endswith("/") and p.startswith(key))]
        assert matching, f"exemption {key!r} no longer reads the environment: remove it"


def test_the_detector_sees_each_form() -> None:
    """The detector finds attribute, call and from-import forms (else it proves nothing)."""
    for source in (
        "import os\nos.environ['A']",
        "import os\nos.getenv('A')",
        "from os import environ\n",
        "from os import getenv\n",
    ):
        assert reads_environment(ast.parse(source)), source
    assert not reads_environment(ast.parse("import os\nos.path.join('a')"))
