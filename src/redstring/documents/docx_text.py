"""Word (.docx) to text with python-docx: paragraphs, then table cells row by row."""

from __future__ import annotations

from pathlib import Path

from docx import Document


def docx_to_text(path: Path) -> str:
    """Body paragraphs in order, then each table row as one line of cells joined by " | "."""
    document = Document(str(path))
    parts = [paragraph.text.strip() for paragraph in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text.strip() for cell in row.cells))
    return "\n\n".join(part for part in parts if part)
