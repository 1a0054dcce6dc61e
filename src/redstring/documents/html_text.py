"""HTML to passage text with selectolax: the main content, without navigation or boilerplate.

Steps, each a general convention of web and documentation pages (no site is special-cased):

1. The main content is the first of ``<main>``, ``[role=main]``, a single ``<article>``,
   ``#content``/``#main-content``/``#main``, else ``<body>``. When it holds no ``<h1>`` and the
   page has exactly one elsewhere (a title in a page header), that title is kept first.
2. Inside it, navigation and boilerplate go: ``nav``, ``aside``, ``footer``, forms and
   buttons, ARIA landmarks other than main (navigation, search, banner, contentinfo,
   complementary), and elements whose id or class names a table of contents, sidebar, menu,
   breadcrumb, footer, pager or permalink (``#toc``, ``.sphinxsidebar``, ``a.headerlink``).
3. A list, table or division that is mostly links (at least four, and 70% of its text) is a
   table of contents or link block and goes too.
4. What remains is written in the convention of :mod:`redstring.domain.outline`: ``h1``-``h6``
   as ``#`` headings, ``pre`` as fenced code (the language from a ``language-x`` or
   ``highlight-x`` class), ``code``/``kbd``/``samp``/``tt`` inline in backticks, an API
   signature (an element of class ``sig`` or ``signature``: Sphinx's ``dt.sig``, "class
   typing.TypeVar(...)") as one line of inline code, list items as ``- `` lines, table rows
   as cells joined by `` | ``, other blocks as paragraphs.
"""

from __future__ import annotations

import re
from typing import Final

from selectolax.lexbor import LexborHTMLParser, LexborNode

from redstring.documents.layout import Layout

_DROPPED: Final = (
    "script, style, noscript, template, svg, head, nav, aside, footer, form, button, "
    "select, input, textarea, iframe, [role=navigation], [role=search], [role=banner], "
    "[role=contentinfo], [role=complementary], [hidden], [aria-hidden=true]"
)
_MAIN: Final = ("main", "[role=main]", "#main-content", "#content", "#main")
_BOILERPLATE: Final = re.compile(
    r"^(?:toc|table-of-contents|sidebar|sphinxsidebar|sphinxsidebarwrapper|navbar|nav|"
    r"navigation|menu|breadcrumbs?|footer|pager|pagination|related|headerlink|skip-link|"
    r"cookie-banner|share|social|mobile-nav|version_switcher_placeholder|"
    r"language_switcher_placeholder|footnote-backref|toctree-wrapper|localtoc|"
    r"globaltoc|sidebarbutton)$"
)
_HEADINGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_INLINE_CODE: Final = frozenset({"code", "kbd", "samp", "tt"})
_BLOCKS: Final = frozenset(
    {
        "p", "div", "section", "article", "header", "li", "ul", "ol", "dl", "dt", "dd",
        "blockquote", "figure", "figcaption", "table", "pre", "hr", "br", "main", "details",
        "summary", "address", "center", *_HEADINGS,
    }
)  # fmt: skip
_LINK_BLOCKS: Final = "ul, ol, table, div, dl, p"
_LANGUAGE: Final = re.compile(r"(?:^|\s)(?:language|lang|highlight)-([\w+#-]+)")


def html_to_text(html: str) -> str:
    """The main content of an HTML page as passage text (see the module docstring)."""
    tree = LexborHTMLParser(html)
    body = tree.body or tree.root
    if body is None:
        return ""
    root = _main(tree) or body
    title = _outside_title(tree, root)
    for node in root.css(_DROPPED):
        node.decompose()
    for node in list(root.traverse(include_text=False)):
        if node.mem_id != root.mem_id and _is_boilerplate(node):
            node.decompose()
    for node in root.css(_LINK_BLOCKS):
        if node.mem_id != root.mem_id and _mostly_links(node):
            node.decompose()
    layout = Layout()
    if title:
        layout.heading(1, title)
    _Writer(layout).block(root)
    return layout.text()


def _main(tree: LexborHTMLParser) -> LexborNode | None:
    for selector in _MAIN:
        found = tree.css_first(selector)
        if found is not None and found.text(strip=True):
            return found
    articles = tree.css("article")
    return articles[0] if len(articles) == 1 else None


def _outside_title(tree: LexborHTMLParser, root: LexborNode) -> str:
    """The page's one ``h1`` when the main content holds none (a title in a page header)."""
    if root.css_first("h1") is not None:
        return ""
    titles = tree.css("h1")
    return titles[0].text(deep=True).strip() if len(titles) == 1 else ""


def _is_boilerplate(node: LexborNode) -> bool:
    names = [node.attributes.get("id") or "", *(node.attributes.get("class") or "").split()]
    return any(_BOILERPLATE.match(name.lower()) for name in names if name)


def _mostly_links(node: LexborNode) -> bool:
    links = node.css("a")
    if len(links) < 4:
        return False
    total = len(node.text(deep=True, strip=True))
    linked = sum(len(link.text(deep=True, strip=True)) for link in links)
    return total > 0 and linked / total >= 0.7


class _Writer:
    """Walks the cleaned tree, writing blocks to a :class:`Layout`."""

    def __init__(self, layout: Layout) -> None:
        self._layout = layout
        self._inline: list[str] = []
        self._item = False

    def block(self, node: LexborNode) -> None:
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                self._inline.append(child.text(deep=False))
            elif tag in _HEADINGS:
                self._flush()
                self._layout.heading(int(tag[1]), _inline_text(child))
            elif _is_signature(child):
                self._flush()
                signature = " ".join(child.text(deep=True).split())
                self._layout.paragraph(f"`{signature.replace('`', '')}`")
            elif tag == "pre":
                self._flush()
                self._layout.code(child.text(deep=True), _language(child))
            elif tag == "table":
                self._flush()
                self._table(child)
            elif tag == "li":
                self._flush()
                self._item = True
                self.block(child)
                self._flush()
            elif tag in _BLOCKS:
                self._flush()
                self.block(child)
                self._flush()
            elif tag in _INLINE_CODE:
                self._inline.append(f"`{child.text(deep=True).strip()}`")
            elif tag == "img":
                continue
            else:
                self.block(child)

    def _table(self, table: LexborNode) -> None:
        for row in table.css("tr"):
            self._layout.row([_inline_text(cell) for cell in row.css("th, td")])

    def _flush(self) -> None:
        text = "".join(self._inline)
        self._inline = []
        self._layout.paragraph(text, item=self._item)
        if text.strip():
            self._item = False


def _is_signature(node: LexborNode) -> bool:
    """An API signature: code, though written in spans ("class typing.TypeVar(name)")."""
    classes = (node.attributes.get("class") or "").split()
    return "sig" in classes or "signature" in classes


def _inline_text(node: LexborNode) -> str:
    parts: list[str] = []
    for child in node.iter(include_text=True):
        if child.tag == "-text":
            parts.append(child.text(deep=False))
        elif child.tag in _INLINE_CODE:
            parts.append(f"`{child.text(deep=True).strip()}`")
        else:
            parts.append(_inline_text(child))
    return "".join(parts)


def _language(pre: LexborNode) -> str:
    for node in (pre, pre.parent, pre.parent.parent if pre.parent else None, pre.css_first("code")):
        if node is None:
            continue
        match = _LANGUAGE.search(node.attributes.get("class") or "")
        if match:
            return match.group(1)
    return ""
