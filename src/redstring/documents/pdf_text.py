"""PDF to text with pypdf: each page's text layer, pages separated by a blank line."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader


def pdf_to_text(path: Path) -> str:
    """The text layer of every page; a scanned page without one contributes nothing."""
    reader = PdfReader(path)
    pages = [(page.extract_text() or "").strip() for page in reader.pages]
    return "\n\n".join(page for page in pages if page)
