"""Writes passage text in the convention of :mod:`redstring.domain.outline`, for every reader."""

from __future__ import annotations

import re

_SPACES = re.compile(r"\s+")


class Layout:
    """Blocks in reading order: headings, paragraphs, list items, table rows and code."""

    def __init__(self) -> None:
        self._blocks: list[str] = []
        self._rows: list[str] = []

    def heading(self, level: int, text: str) -> None:
        """A heading of ``level`` 1-6; blank headings are skipped."""
        text = _SPACES.sub(" ", text).strip().rstrip("#").strip()
        if text:
            self._add("#" * min(max(level, 1), 6) + " " + text)

    def paragraph(self, text: str, *, item: bool = False) -> None:
        """A paragraph (``item``: a list item, written as a ``- `` line)."""
        text = _SPACES.sub(" ", text).strip()
        if text:
            self._add(f"- {text}" if item else text, joined=item)

    def row(self, cells: list[str]) -> None:
        """One table row; rows of a table are kept together as one block."""
        cells = [_SPACES.sub(" ", cell).strip() for cell in cells]
        if any(cells):
            self._rows.append(" | ".join(cells))

    def code(self, content: str, language: str = "") -> None:
        """A code block, fenced with an info string (``text`` when ``language`` is blank)."""
        body = content.strip("\n")
        if not body.strip():
            return
        fence = "`" * max(3, _longest_backticks(body) + 1)
        self._add(f"{fence}{language.strip() or 'text'}\n{body}\n{fence}")

    def text(self) -> str:
        """Everything written so far, blocks separated by a blank line."""
        self._flush_rows()
        return "\n\n".join(self._blocks).strip()

    def _add(self, block: str, *, joined: bool = False) -> None:
        self._flush_rows()
        if joined and self._blocks and self._blocks[-1].startswith("- "):
            self._blocks[-1] += "\n" + block
        else:
            self._blocks.append(block)

    def _flush_rows(self) -> None:
        if self._rows:
            self._blocks.append("\n".join(self._rows))
            self._rows = []


def _longest_backticks(text: str) -> int:
    runs = re.findall(r"`+", text)
    return max((len(run) for run in runs), default=0)
