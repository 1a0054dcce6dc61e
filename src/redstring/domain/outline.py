"""The shape of passage text: headings, code and prose, as the document readers write it.

Every reader of ``redstring.documents`` (Markdown, HTML, PDF, Word) writes its text in one
plain convention, so the chunker, the extractors and citations can tell its parts apart
without knowing the format it came from:

* a heading is one line of ``#`` marks, a space and the heading's text (``## Installing``);
* a code block is fenced: an opening line of three or more backticks always followed by an
  info string (``python``, or ``text`` when the language is unknown), the code, and a closing
  line of backticks alone. Because an opening fence always has an info string, a passage cut
  out of the middle of a block can still tell which side of a bare fence is code (hand-written
  Markdown with bare opening fences still pairs up when the passage holds whole blocks);
* inline code is in single backticks; list items are ``- `` lines; table rows are cells joined
  by `` | ``; everything else is a paragraph, blocks separated by a blank line.

Plain text written by hand mostly follows it already. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

HEADING: Final = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
"""A heading line: its marks (group 1, their count is the level) and its text (group 2)."""

OPENING_FENCE: Final = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*[^`\s][^`\n]*$")
"""A line that opens a code block: a fence with an info string."""

CLOSING_FENCE: Final = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*$")
"""A bare fence: it closes a block, or, at the top of a passage, opens one only when nothing
before it in the passage says otherwise (see :func:`code_lines`)."""


def code_lines(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it is inside a fenced code block or is a fence itself.

    A passage may begin inside a block its document opened earlier: when its first fence is
    bare and cannot open a block (see :func:`_opens_inside`), the lines before it are code.
    """
    fences = [line for line in lines if _is_fence(line)]
    inside = _opens_inside(fences)
    flags: list[bool] = []
    for line in lines:
        if OPENING_FENCE.match(line):
            inside = True  # inside a block already, it is a line of code
        elif CLOSING_FENCE.match(line):
            inside = not inside
            flags.append(True)
            continue
        flags.append(inside)
    return flags


def _opens_inside(fences: list[str]) -> bool:
    """The passage begins inside a block: its first fence is bare and cannot be opening one,
    because the fences cannot pair up from it (an odd count) or the next fence opens a block
    (an opening fence always has an info string)."""
    if not fences or not CLOSING_FENCE.match(fences[0]):
        return False
    return len(fences) % 2 == 1 or bool(OPENING_FENCE.match(fences[1]))


def _is_fence(line: str) -> bool:
    return bool(OPENING_FENCE.match(line) or CLOSING_FENCE.match(line))


def heading_paths(text: str, offsets: Sequence[int]) -> list[tuple[str, ...]]:
    """The headings in force at each of ``offsets`` (ascending) of ``text``, outermost first
    (``("Tutorial", "Using the Interpreter")``), in one pass over the text.

    Headings inside code blocks are not headings. A passage that begins with headings is in
    the section they open: an offset takes the path in force at the first line at or after
    it that is not a heading.
    """
    lines = text.splitlines(keepends=True)
    code = code_lines([line.rstrip("\r\n") for line in lines])
    paths: list[tuple[str, ...]] = []
    path: list[tuple[int, str]] = []
    pending = 0
    position = 0
    for line, is_code in zip(lines, code, strict=True):
        stripped = line.rstrip("\r\n")
        match = None if is_code else HEADING.match(stripped)
        if match is None and stripped.strip():
            end = position + len(line)
            while pending < len(offsets) and offsets[pending] < end:
                paths.append(tuple(title for _, title in path))
                pending += 1
        if match is not None:
            level = len(match.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, match.group(2).strip()))
        position += len(line)
    final = tuple(title for _, title in path)
    paths.extend(final for _ in range(len(offsets) - pending))
    return paths
