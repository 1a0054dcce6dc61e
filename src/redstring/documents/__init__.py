"""Documents on disk to text (for the command and the server): which files an argument
names (:mod:`~redstring.documents.walk`), how their bytes become text
(:mod:`~redstring.documents.decoding`) and each format's reader
(:mod:`~redstring.documents.reading`).

``.txt`` and files without a suffix whose bytes are text are decoded (UTF-8, else the
encoding charset-normalizer detects) and read as they are; ``.md`` is decoded the same way,
then read through markdown-it-py (link text kept, URLs and markup dropped); ``.html``/``.htm``
through selectolax (the main content, without navigation, tables of contents and
boilerplate); ``.pdf`` through pypdf (without running headers, footers and page numbers);
``.docx`` through python-docx (headings, lists and tables in place). Every reader but
``.txt`` writes the convention of :mod:`redstring.domain.outline` (``#`` headings, fenced
code), so each passage knows its heading path. Each third-party reader is imported only in
its module here.
"""

from __future__ import annotations

from redstring.documents.decoding import NotTextError, decode_text
from redstring.documents.reading import (
    SUPPORTED_SUFFIXES,
    Document,
    UnreadableDocumentError,
    file_sha256,
    format_of,
    read_document,
)
from redstring.documents.walk import Skipped, Walk, walk

__all__ = [
    "SUPPORTED_SUFFIXES",
    "Document",
    "NotTextError",
    "Skipped",
    "UnreadableDocumentError",
    "Walk",
    "decode_text",
    "file_sha256",
    "format_of",
    "read_document",
    "walk",
]
