"""Markdown to passage text with markdown-it-py (CommonMark, plus tables and strikethrough).

What a reader of the passage needs and nothing of the markup: link and emphasis text kept,
URLs, images, raw HTML and front matter dropped. The result keeps the three shapes every
reader in this package writes (:mod:`redstring.documents.layout`): ``#`` headings, fenced
code blocks and backticked inline code, list items as ``- `` lines and table rows as cells
joined by `` | ``.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from redstring.documents.layout import Layout

_FRONT_MATTER = re.compile(r"\A---\n.*?\n(?:---|\.\.\.)\n", re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")


def markdown_to_text(markdown: str) -> str:
    """The text of a Markdown document as passage text (see the module docstring)."""
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    tokens = parser.parse(_FRONT_MATTER.sub("", markdown, count=1))
    layout = Layout()
    depth = 0
    row: list[str] = []
    for index, token in enumerate(tokens):
        kind = token.type
        if kind in {"bullet_list_open", "ordered_list_open"}:
            depth += 1
        elif kind in {"bullet_list_close", "ordered_list_close"}:
            depth -= 1
        elif kind == "heading_open":
            layout.heading(int(token.tag[1]), _inline(tokens[index + 1]))
        elif kind in {"fence", "code_block"}:
            layout.code(token.content, token.info.split()[0] if token.info.strip() else "")
        elif kind == "tr_open":
            row = []
        elif kind in {"th_open", "td_open"}:
            row.append(_inline(tokens[index + 1]))
        elif kind == "tr_close":
            layout.row(row)
        elif kind == "inline" and tokens[index - 1].type == "paragraph_open":
            layout.paragraph(_inline(token), item=depth > 0 and _first_in_item(tokens, index))
        elif kind == "html_block":
            text = _TAGS.sub(" ", token.content).strip()
            if text:
                layout.paragraph(text)
    return layout.text()


def _first_in_item(tokens: list[Token], index: int) -> bool:
    """The paragraph opens a list item (a later paragraph of the item is plain text)."""
    return index >= 2 and tokens[index - 2].type == "list_item_open"


def _inline(token: Token) -> str:
    """An inline run as text: link text without its URL, code in backticks, no images."""
    parts: list[str] = []
    for child in token.children or ():
        if child.type == "text":
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(f"`{child.content}`")
        elif child.type in {"softbreak", "hardbreak"}:
            parts.append(" ")
    return re.sub(r"\s+", " ", "".join(parts)).strip()
