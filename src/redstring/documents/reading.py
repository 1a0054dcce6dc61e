"""One file to its text: the format from the suffix (or, without one, from the first bytes),
checked against what the bytes are, then that format's reader.

Text formats (``.txt``, ``.md``, ``.html``, a file without a suffix) are decoded by
:mod:`redstring.documents.decoding`; ``.pdf`` and ``.docx`` are handed to their readers
(pypdf, python-docx), whose warnings are kept off the terminal. A file whose bytes are not
what its suffix says (a text file named ``.docx``) is refused with what it looks like.
"""

from __future__ import annotations

import hashlib
import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from redstring.documents.decoding import decode_text, looks_like_text
from redstring.domain.errors import InvalidArgumentError

__all__ = [
    "SUPPORTED_SUFFIXES",
    "Document",
    "UnreadableDocumentError",
    "file_sha256",
    "format_of",
    "read_document",
]


class UnreadableDocumentError(InvalidArgumentError):
    """A path, pattern or file cannot be read as a document; the message names it and why."""


def _html(text: str) -> str:
    from redstring.documents.html_text import html_to_text

    return html_to_text(text)


def _markdown(text: str) -> str:
    from redstring.documents.markdown_text import markdown_to_text

    return markdown_to_text(text)


def _pdf(path: Path) -> str:
    from redstring.documents.pdf_text import pdf_to_text

    return pdf_to_text(path)


def _docx(path: Path) -> str:
    from redstring.documents.docx_text import docx_to_text

    return docx_to_text(path)


# format -> how its decoded text becomes the document's text
_TEXT_FORMATS: dict[str, Callable[[str], str]] = {
    "txt": lambda text: text,
    "md": _markdown,
    "html": _html,
}
# format -> how the file becomes text, and the first bytes every such file starts with
_BINARY_FORMATS: dict[str, tuple[Callable[[Path], str], bytes]] = {
    "pdf": (_pdf, b"%PDF-"),
    "docx": (_docx, b"PK\x03\x04"),
}
_SUFFIXES = {
    ".txt": "txt",
    ".text": "txt",
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}
SUPPORTED_SUFFIXES: tuple[str, ...] = tuple(_SUFFIXES)
_SNIFF_BYTES = 8192


@dataclass(frozen=True)
class Document:
    """One file's text, the format it was read as, the encoding its bytes were in (None for
    PDF and Word files) and the SHA-256 of its bytes."""

    path: Path
    text: str
    format: str
    sha256: str
    encoding: str | None = None


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of the file's bytes: what "unchanged" means for ``ingest``."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _sniff(head: bytes) -> str | None:
    """The format a file without a suffix holds, from its first bytes; None if not text."""
    if head.startswith(b"%PDF-"):
        return "pdf"
    if not looks_like_text(head):
        return None
    start = head.lstrip()[:64].lower()
    if start.startswith((b"<!doctype html", b"<html")):
        return "html"
    return "txt"


def format_of(path: Path) -> str | None:
    """The format ``path`` is read as: by its suffix, or for a file without one by its first
    bytes (text or HTML); None when it is not a supported document."""
    if path.suffix:
        return _SUFFIXES.get(path.suffix.lower())
    with path.open("rb") as handle:
        return _sniff(handle.read(_SNIFF_BYTES))


def _looks(head: bytes) -> str:
    if looks_like_text(head):
        return "its bytes are plain text: rename it to .txt"
    return f"it starts with {head[:8]!r}"


def read_document(path: Path) -> Document:
    """The text of ``path``; :class:`UnreadableDocumentError` naming it for an unsupported
    type, bytes that do not match the suffix, or a file its reader cannot read."""
    kind = format_of(path)
    if kind is None:
        raise UnreadableDocumentError(
            f"{path}: unsupported file type {path.suffix or '(no suffix, not text)'!r}; "
            f"supported: {', '.join(SUPPORTED_SUFFIXES)} and text files without a suffix"
        )
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if kind in _TEXT_FORMATS:
        try:
            decoded, encoding = decode_text(data, str(path))
        except InvalidArgumentError as error:
            raise UnreadableDocumentError(str(error)) from error
        text = _guarded(path, kind, lambda: _TEXT_FORMATS[kind](decoded))
        return Document(path=path, text=text, format=kind, sha256=digest, encoding=encoding)
    reader, magic = _BINARY_FORMATS[kind]
    if not data.startswith(magic) and not (kind == "pdf" and magic in data[:1024]):
        raise UnreadableDocumentError(
            f"{path} is not a {kind.upper()} file ({_looks(data[:_SNIFF_BYTES])})"
        )
    text = _guarded(path, kind, lambda: reader(path))
    return Document(path=path, text=text, format=kind, sha256=digest)


def _guarded(path: Path, kind: str, read: Callable[[], str]) -> str:
    """Run a reader quietly (pypdf logs and warns about the PDFs it repairs); its own error
    types differ per library, so any failure becomes one naming the file."""
    logger = logging.getLogger("pypdf" if kind == "pdf" else "redstring.documents")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return read()
    except UnreadableDocumentError:
        raise
    except Exception as error:
        raise UnreadableDocumentError(f"{path}: could not read it as {kind}: {error}") from error
    finally:
        logger.setLevel(level)
