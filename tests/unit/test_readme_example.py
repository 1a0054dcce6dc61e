"""The README's Python example runs, and prints exactly the output the README shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _blocks() -> list[tuple[str, str]]:
    """Every fenced block of the README as ``(language, body)``, in order."""
    return [(match[1], match[2]) for match in FENCE.finditer(README.read_text("utf-8"))]


def test_the_readme_has_one_python_example_followed_by_its_output() -> None:
    """One runnable block, and a ``text`` block after it holding what it prints."""
    languages = [language for language, _ in _blocks()]
    assert languages.count("python") == 1
    assert "text" in languages[languages.index("python") + 1 :]


def test_the_readme_example_prints_what_the_readme_says() -> None:
    """Run in a fresh interpreter, so it needs nothing this test process set up."""
    blocks = _blocks()
    position = [language for language, _ in blocks].index("python")
    code = blocks[position][1]
    shown = next(body for language, body in blocks[position + 1 :] if language == "text")
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown
