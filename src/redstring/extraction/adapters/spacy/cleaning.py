"""Input cleaning: a passage cut into the blocks of prose a recogniser should read.

A passage keeps everything for retrieval; the recogniser reads only its prose. What goes, in
order: fenced code blocks (:func:`redstring.domain.outline.code_lines`, so a passage cut from
the middle of a block drops its code too), inline code in backticks, Markdown images and the
URL half of links (the link text stays), bare URLs and e-mail addresses, HTML tags and
emphasis marks; a line all in capitals goes whole (a heading: "SEE ALSO"). Then the rest
is cut into blocks where a line ends a unit (below); a heading is a block of its own, marked
so, because a title's capitalised words are not names ("Getting Started").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from redstring.domain.outline import HEADING, code_lines

_LIST_ITEM: Final = re.compile(r"^(?:#{1,6}|[-*+>|]|\d{1,3}[.)])\s+")
_FIELD: Final = re.compile(r"^[A-Z][\w-]{0,20}(?: [\w-]+){0,2}:\s")
_IMAGE: Final = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_LINK: Final = re.compile(r"\[([^\]\n]+)\]\((?:[^()\n]|\([^)\n]*\))*\)|\[([^\]\n]+)\]\[[^\]\n]*\]")
_INLINE_CODE: Final = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
_URL: Final = re.compile(r"<?(?:[a-z][a-z0-9+.-]*://|www\.)[^\s<>()\[\]]+>?", re.IGNORECASE)
_EMAIL: Final = re.compile(r"<?[\w.+-]+@[\w-]+(?:\.[\w-]+)+>?")
_TAG: Final = re.compile(r"</?[a-zA-Z][^<>\n]*>")
_EMPHASIS: Final = re.compile(r"(\*\*|__|\*|~~)(?=\S)(.+?)(?<=\S)\1")
_SPACES: Final = re.compile(r"[ \t]{2,}")


def prose(line: str) -> str:
    """One line without inline code, link targets, images, URLs, e-mail, tags or emphasis."""
    line = _IMAGE.sub("", line)
    line = _LINK.sub(lambda m: m.group(1) or m.group(2), line)
    line = _INLINE_CODE.sub("", line)
    line = _URL.sub("", line)
    line = _EMAIL.sub("", line)
    line = _TAG.sub("", line)
    line = _EMPHASIS.sub(r"\2", line)
    letters = [ch for ch in line if ch.isalpha()]
    if len(letters) >= 4 and all(ch.isupper() for ch in letters):
        return ""  # a line in capitals is a heading or a shout ("SEE ALSO"), never prose
    return _SPACES.sub(" ", line).strip()


@dataclass(frozen=True)
class Block:
    """A unit of prose, and whether it is a heading (a title names; it states nothing)."""

    text: str
    heading: bool = False


def blocks(text: str) -> list[str]:
    """The text of :func:`prose_blocks`."""
    return [block.text for block in prose_blocks(text)]


def prose_blocks(text: str) -> list[Block]:
    """The prose of ``text`` (see the module docstring), cut where a unit ends, markers dropped.

    A recogniser reads a line break as a space, so a heading runs into the next line ("Career
    Okafor"). Blank lines, code, headings, list items and ``Field: value`` lines therefore end a
    block, and so does a short line without closing punctuation (a title or a signature);
    long lines of hard-wrapped prose stay joined. A passage of code alone has no blocks.
    """
    raw_lines = text.splitlines()
    found: list[Block] = []
    current: list[str] = []
    heading = False
    for raw, is_code in zip(raw_lines, code_lines(raw_lines), strict=True):
        line = "" if is_code else prose(raw)
        starts = bool(_LIST_ITEM.match(line) or _FIELD.match(line))
        if current and (not line or starts or _closes_block(current[-1])):
            found.append(Block(" ".join(current), heading))
            current = []
        if line:
            if not current:
                heading = bool(HEADING.match(line))
            current.append(_LIST_ITEM.sub("", line) or line)
    if current:
        found.append(Block(" ".join(current), heading))
    return [
        Block(block.text, heading=True)
        if not block.heading and _title_line(block.text) and _is_prose(found[i + 1 :])
        else block
        for i, block in enumerate(found)
    ]


def _title_line(text: str) -> bool:
    """A short line, capitalised, without closing punctuation, standing on its own: a title
    (not a ``Field: value`` line such as "Present: Ada Brennan, Tomasz Wilk")."""
    return (
        len(text) < 60
        and text[:1].isupper()
        and not _closes_sentence(text)
        and not _FIELD.match(text)
    )


def _closes_sentence(text: str) -> bool:
    return text.endswith((".", ",", ";", ":", "-", "!", "?"))


def _is_prose(rest: list[Block]) -> bool:
    """The next block is a paragraph of sentences (what a title stands above)."""
    return bool(rest) and not rest[0].heading and _closes_sentence(rest[0].text)


_CODE_WORD: Final = re.compile(r"[A-Za-z_][\w-]*")
_NAME: Final = r"[A-Z][\w'.\u2019-]*(?: (?:[a-z]{1,3} )?[A-Z][\w'.\u2019-]*){1,3}"
_MAILED: Final = re.compile(rf"({_NAME})\s*[<(][\w.+-]+@[\w-]+(?:\.[\w-]+)+[>)]")
_TRAILER: Final = re.compile(
    rf"^\s*(?:Signed-off|Reviewed|Acked|Helped|Reported|Tested|Suggested|Mentored|"
    rf"Co-authored)-by:\s*({_NAME})|^\s*[Aa]uthors?:\s*({_NAME})",
    re.MULTILINE,
)
_LISTED_HANDLE: Final = re.compile(
    r"^\s*[-*]?\s*(\S+)\s+[-\u2013]\s+[^\W\d_][^<>()\n]{1,60}[<(][\w.+-]+@", re.MULTILINE
)


def people(text: str) -> frozenset[str]:
    """Names ``text`` writes as a person's: before an e-mail address ("Rich Trott
    <rtrott@...>"), in a sign-off trailer ("Signed-off-by: A U Thor") or after "Author:"."""
    found = {m.group(1) for m in _MAILED.finditer(text)}
    found.update(m.group(1) or m.group(2) for m in _TRAILER.finditer(text))
    return frozenset(found)


def handles(text: str) -> frozenset[str]:
    """User names a list line gives before a person's name and address ("- trott - Rich
    Trott <...>"): names of accounts, not of anything the graph should hold."""
    return frozenset(m.group(1) for m in _LISTED_HANDLE.finditer(text))


def code_words(text: str) -> frozenset[str]:
    """The identifiers and command words written as code in ``text`` (fenced blocks and
    inline code), as written: what a name the prose also uses may be the code's."""
    lines = text.splitlines()
    found: set[str] = set()
    for line, is_code in zip(lines, code_lines(lines), strict=True):
        parts = [line] if is_code else [m.group(0) for m in _INLINE_CODE.finditer(line)]
        for part in parts:
            found.update(_CODE_WORD.findall(part))
    return frozenset(found)


def _closes_block(line: str) -> bool:
    return len(line) < 60 and not line.endswith((".", ",", ";", ":", "-"))
