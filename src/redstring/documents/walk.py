"""Arguments to files: what ``ingest PATH...`` will read, and every file it met and will not.

Files are taken as given, folders walked recursively (hidden entries, whose names start with
a dot, are not walked), glob patterns (``**`` included) expanded. A file that is not a
supported document (by suffix; a file without one when its first bytes are text) is listed
as skipped with its reason instead of being dropped without a word.

Each file also keeps the folder its name is read from when it lies outside the working
folder (:attr:`Walk.bases`): the parent of the folder argument that found it (``/srv/docs``
gives ``docs/a.md``), of a pattern's fixed part, or of a file named directly, so that a
source id is what the user named and never this machine's absolute path.
"""

from __future__ import annotations

import glob
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from redstring.documents.reading import UnreadableDocumentError, format_of

__all__ = ["Skipped", "Walk", "walk"]


@dataclass(frozen=True)
class Skipped:
    """A file the walk met and will not read, and why (``unsupported type .png``)."""

    path: Path
    reason: str


@dataclass
class Walk:
    """The files to read, sorted and unique, and the files skipped with their reasons.

    ``bases`` maps every file met (read or skipped) to the folder its name is taken from
    outside the working folder (the first argument that found it wins).
    """

    files: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    bases: dict[Path, Path] = field(default_factory=dict)


def _unsupported(path: Path) -> str:
    if path.suffix:
        return f"unsupported type {path.suffix.lower()}"
    return "unsupported type (no suffix, and not text)"


def walk(arguments: Iterable[str]) -> Walk:
    """What ``arguments`` name. :class:`UnreadableDocumentError` names an argument that
    matches nothing (a typo must not ingest nothing silently)."""
    bases: dict[Path, Path] = {}
    for argument in arguments:
        path = Path(argument).expanduser()
        if path.is_file():
            found = {path}
            base = path.parent
        elif path.is_dir():
            found = _files_under(path)
            base = path.parent
        elif glob.has_magic(argument):
            matches = [Path(m) for m in glob.glob(str(path), recursive=True)]
            found = {m for m in matches if m.is_file()}
            for match in matches:
                if match.is_dir():
                    found.update(_files_under(match))
            if not found:
                raise UnreadableDocumentError(f"{argument}: the pattern matches no file")
            base = _fixed_part(path).parent
        else:
            raise UnreadableDocumentError(f"{argument}: no such file or folder")
        for file in found:
            bases.setdefault(file, base)
    met = set(bases)
    result = Walk(bases=bases)
    for path in sorted(met):
        try:
            kind = format_of(path)
        except OSError as error:
            result.skipped.append(Skipped(path, f"unreadable: {error.strerror or error}"))
            continue
        if kind is None:
            result.skipped.append(Skipped(path, _unsupported(path)))
        else:
            result.files.append(path)
    return result


def _fixed_part(pattern: Path) -> Path:
    """The folder a glob pattern starts from: its parts before the first wildcard."""
    parts: list[str] = []
    for part in pattern.parts:
        if glob.has_magic(part):
            break
        parts.append(part)
    return Path(*parts) if parts else Path()


def _files_under(folder: Path) -> set[Path]:
    found: set[Path] = set()
    for path in folder.rglob("*"):
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if path.is_file():
            found.add(path)
    return found
