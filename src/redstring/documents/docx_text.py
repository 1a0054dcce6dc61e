"""Word (.docx) to passage text with python-docx, in the convention of
:mod:`redstring.domain.outline`: headings (``Title``, ``Heading N``) as ``#`` lines, list
paragraphs as ``- `` items, tables in place as rows of cells joined by `` | ``."""

from __future__ import annotations

import re
from pathlib import Path

from docx import Document
from docx.table import Table
from docx.text.paragraph import Paragraph

from redstring.documents.layout import Layout

_HEADING_STYLE = re.compile(r"^(?:heading\s*(\d)|title)$", re.IGNORECASE)


def docx_to_text(path: Path) -> str:
    """The body of a Word document in reading order (paragraphs and tables interleaved)."""
    document = Document(str(path))
    layout = Layout()
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                layout.row([cell.text for cell in row.cells])
        elif isinstance(block, Paragraph):
            _paragraph(layout, block)
    return layout.text()


def _paragraph(layout: Layout, paragraph: Paragraph) -> None:
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    heading = _HEADING_STYLE.match(style.strip())
    if heading:
        layout.heading(int(heading.group(1) or 1), paragraph.text)
    elif style.lower().startswith("list"):
        layout.paragraph(paragraph.text, item=True)
    else:
        layout.paragraph(paragraph.text)
