"""PDF to passage text with pypdf: the text layer, without running headers, footers and page
numbers, words hyphenated across a line joined, pages separated by a blank line.

A line that recurs at the top or bottom of most pages (a running title, "Page 3 of 9", a
bare number) is page furniture, not content, and goes. A PDF's outline (its bookmarks)
titles become ``#`` headings where a page's line spells one, so passages know their section.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Final

from pypdf import PdfReader

_EDGE_LINES: Final = 3
_DIGITS: Final = re.compile(r"\d+")
_PAGE_NUMBER: Final = re.compile(r"^(?:page\s*)?\d+(?:\s*(?:of|/)\s*\d+)?$", re.IGNORECASE)
_HYPHENATED: Final = re.compile(r"(\w)-\n(\w)")


def pdf_to_text(path: Path) -> str:
    """The text of every page (a scanned page without a text layer contributes nothing)."""
    reader = PdfReader(path)
    pages = [(page.extract_text() or "").splitlines() for page in reader.pages]
    furniture = _furniture(pages)
    titles = _outline_titles(reader)
    parts: list[str] = []
    for lines in pages:
        kept: list[str] = []
        for index, line in enumerate(lines):
            stripped = line.strip()
            edge = index < _EDGE_LINES or index >= len(lines) - _EDGE_LINES
            if edge and (_PAGE_NUMBER.match(stripped) or _shape(stripped) in furniture):
                continue
            if stripped.casefold() in titles:
                kept.append(f"\n# {stripped}\n")
            else:
                kept.append(line.rstrip())
        text = _HYPHENATED.sub(r"\1\2", "\n".join(kept)).strip()
        if text:
            parts.append(text)
    return "\n\n".join(parts)


def _shape(line: str) -> str:
    """A line with its numbers blanked: "Page 3" and "Page 4" are the same furniture."""
    return _DIGITS.sub("#", line.casefold())


def _furniture(pages: list[list[str]]) -> set[str]:
    """Line shapes at a page's top or bottom on more than half of the pages (at least 3)."""
    if len(pages) < 3:
        return set()
    counts: Counter[str] = Counter()
    for lines in pages:
        edges = lines[:_EDGE_LINES] + lines[-_EDGE_LINES:]
        counts.update({_shape(line.strip()) for line in edges if line.strip()})
    return {shape for shape, count in counts.items() if count > len(pages) / 2}


def _outline_titles(reader: PdfReader) -> set[str]:
    titles: set[str] = set()
    try:
        outline: object = reader.outline
    except Exception:  # a damaged outline costs the headings, never the text
        return titles
    stack: list[object] = [outline]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        else:
            title = getattr(item, "title", None)
            if isinstance(title, str) and title.strip():
                titles.add(title.strip().casefold())
    return titles
