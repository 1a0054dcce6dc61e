"""Documents on disk to text (for the command and the server): which files an argument
names, and their text.

``.txt`` is read as UTF-8 as it is; ``.md`` through markdown-it-py (link text kept, URLs and
markup dropped); ``.html``/``.htm`` through selectolax (the main content, without navigation,
tables of contents and boilerplate); ``.pdf`` through pypdf (without running headers, footers
and page numbers); ``.docx`` through python-docx (headings, lists and tables in place). Every
reader but ``.txt`` writes the convention of :mod:`redstring.domain.outline` (``#`` headings,
fenced code), so each passage knows its heading path and code is not read as prose. Each
third-party reader is imported only here.
"""

from __future__ import annotations

import glob
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from redstring.domain.errors import InvalidArgumentError

__all__ = [
    "SUPPORTED_SUFFIXES",
    "Document",
    "UnreadableDocumentError",
    "expand_paths",
    "file_sha256",
    "read_document",
]


class UnreadableDocumentError(InvalidArgumentError):
    """A path, pattern or file cannot be read as a document; the message names it and why."""


def _read_plain(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableDocumentError(
            f"{path} is not UTF-8 text ({error.reason} at byte {error.start})"
        ) from error


def _read_markdown(path: Path) -> str:
    from redstring.documents.markdown_text import markdown_to_text

    return markdown_to_text(_read_plain(path))


def _read_html(path: Path) -> str:
    from redstring.documents.html_text import html_to_text

    return html_to_text(path.read_bytes().decode("utf-8", errors="replace"))


def _read_pdf(path: Path) -> str:
    from redstring.documents.pdf_text import pdf_to_text

    return pdf_to_text(path)


def _read_docx(path: Path) -> str:
    from redstring.documents.docx_text import docx_to_text

    return docx_to_text(path)


_READERS: dict[str, Callable[[Path], str]] = {
    ".txt": _read_plain,
    ".md": _read_markdown,
    ".markdown": _read_markdown,
    ".html": _read_html,
    ".htm": _read_html,
    ".pdf": _read_pdf,
    ".docx": _read_docx,
}
SUPPORTED_SUFFIXES: tuple[str, ...] = tuple(_READERS)


@dataclass(frozen=True)
class Document:
    """One file's text, the format it was read as and the SHA-256 of its bytes."""

    path: Path
    text: str
    format: str
    sha256: str


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of the file's bytes: what "unchanged" means for ``ingest``."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_document(path: Path) -> Document:
    """The text of ``path``; :class:`UnreadableDocumentError` for an unsupported suffix or an
    unreadable file."""
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise UnreadableDocumentError(
            f"{path}: unsupported file type {path.suffix or '(none)'!r}; "
            f"supported: {', '.join(SUPPORTED_SUFFIXES)}"
        )
    try:
        text = reader(path)
    except UnreadableDocumentError:
        raise
    except Exception as error:  # a reader's own error types differ per library
        raise UnreadableDocumentError(
            f"{path}: could not read it as {path.suffix}: {error}"
        ) from error
    return Document(
        path=path, text=text, format=path.suffix.lower().lstrip("."), sha256=file_sha256(path)
    )


def expand_paths(arguments: Iterable[str]) -> list[Path]:
    """Files named by ``arguments``: files as given, folders walked recursively (supported
    suffixes only, hidden entries skipped) and glob patterns (``**`` included) expanded.

    The result is sorted and free of duplicates. :class:`UnreadableDocumentError` names an
    argument that matches nothing, or a file given by name whose type is not supported.
    """
    found: set[Path] = set()
    for argument in arguments:
        path = Path(argument).expanduser()
        if path.is_file():
            if path.suffix.lower() not in _READERS:
                raise UnreadableDocumentError(
                    f"{argument}: unsupported file type {path.suffix or '(none)'!r}; "
                    f"supported: {', '.join(SUPPORTED_SUFFIXES)}"
                )
            found.add(path)
        elif path.is_dir():
            found.update(_walk(path))
        elif glob.has_magic(argument):
            matches = [Path(m) for m in glob.glob(str(path), recursive=True)]
            files = {m for m in matches if m.is_file() and m.suffix.lower() in _READERS}
            for match in matches:
                if match.is_dir():
                    files.update(_walk(match))
            if not files:
                raise UnreadableDocumentError(f"{argument}: the pattern matches no supported file")
            found.update(files)
        else:
            raise UnreadableDocumentError(f"{argument}: no such file or folder")
    return sorted(found)


def _walk(folder: Path) -> set[Path]:
    return {
        path
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix.lower() in _READERS
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    }
