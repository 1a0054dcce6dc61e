"""HTML to text with selectolax: visible text only, one paragraph per block element."""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

_DROPPED = "script, style, noscript, template, svg, head"
_BLOCKS = {
    "p", "div", "section", "article", "header", "footer", "li", "h1", "h2", "h3", "h4", "h5",
    "h6", "blockquote", "pre", "tr", "td", "th", "dt", "dd", "figcaption", "br", "hr",
}  # fmt: skip
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def html_to_text(html: str) -> str:
    """The document's visible text; block elements become paragraphs separated by a blank line."""
    tree = LexborHTMLParser(html)
    for node in tree.css(_DROPPED):
        node.decompose()
    root = tree.body or tree.root
    if root is None:
        return ""
    for node in root.traverse(include_text=False):
        if node.tag in _BLOCKS:
            node.insert_before("\n\n")
            node.insert_after("\n\n")
    text = root.text(deep=True, separator="", strip=False)
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
