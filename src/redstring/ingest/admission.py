"""What an ingest needs, checked before its first event is appended.

An ingest writes twice: each new passage's extraction (on its own stream), then the
source's events on the graph stream, which the projections follow. A refusal after the
first write would leave part of the document behind, and a projection that cannot apply an
event already in the log fails every later read of the tenant. So everything that can refuse
a document is decided here first (ADR 0041):

* the text: a ``str``, not blank, at most ``max_document_chars``, no NUL, no lone surrogate;
* the metadata: an object of JSON values with printable keys, finite numbers, UTF-8 strings,
  at most :data:`~redstring.domain.portable.MAX_JSON_DEPTH` levels and
  :data:`MAX_METADATA_BYTES` (it is copied onto every passage);
* the passages' embeddability: a passage the embedding model gives no direction (only
  characters its tokenizer drops) is stored without a vector and counted in
  ``IngestReport.passages_without_vector``; a document none of whose passages can be
  embedded is refused whole with :class:`~redstring.domain.errors.EmptyTextError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from pydantic import JsonValue

from redstring.domain.chunks import Chunk
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.ids import SourceId, source_id
from redstring.domain.portable import check_json, check_json_depth
from redstring.projections.projector import Projector

__all__ = [
    "MAX_METADATA_BYTES",
    "DocumentTooLargeError",
    "check_metadata",
    "check_text",
    "passages_without_vector",
]

MAX_METADATA_BYTES = 16 * 1024
"""The largest metadata of one source, as compact UTF-8 JSON."""


class DocumentTooLargeError(InvalidArgumentError):
    """A document is larger than ``IngestSettings.max_document_chars``."""


def check_text(source: SourceId, text: str, limit: int) -> None:
    """Refuse what cannot be ingested, naming the problem (nothing is written)."""
    if not isinstance(text, str):
        raise InvalidArgumentError(
            f"text of source {source!r} must be str, got {type(text).__name__}; decode bytes "
            "as UTF-8 first"
        )
    if not text.strip():
        raise EmptyTextError(f"source {source!r} is blank: there is nothing to ingest")
    if len(text) > limit:
        raise DocumentTooLargeError(
            f"source {source!r} has {len(text):,} characters, more than max_document_chars="
            f"{limit:,}; split it or raise the limit in IngestSettings"
        )
    if "\x00" in text:
        raise InvalidArgumentError(f"source {source!r} contains NUL characters; remove them")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(
            f"source {source!r} is not valid Unicode text (a lone surrogate at character "
            f"{error.start}); decode the file as UTF-8 with errors='replace'"
        ) from None


def check_metadata(
    source: SourceId, metadata: Mapping[str, JsonValue] | None
) -> dict[str, JsonValue]:
    """``metadata`` as a plain dict if every rule holds; else :class:`InvalidArgumentError`
    naming the source and the rule."""
    if metadata is None:
        return {}
    what = f"metadata of source {source!r}"
    if not isinstance(metadata, Mapping):
        raise InvalidArgumentError(
            f"{what} must be a JSON object (a mapping), got {type(metadata).__name__}"
        )
    plain = dict(metadata)
    for key in plain:
        if not isinstance(key, str):
            raise InvalidArgumentError(f"{what} has a key {key!r}: keys must be strings")
        try:
            source_id(key)
        except InvalidArgumentError:
            raise InvalidArgumentError(
                f"{what} has the key {key!r}: use 1-1024 printable characters (no control "
                "character or lone surrogate)"
            ) from None
    check_json_depth(plain, what=what)
    check_json(plain, what=what)
    try:
        size = len(json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode())
    except (TypeError, ValueError) as error:
        raise InvalidArgumentError(f"{what} is not JSON: {error}") from None
    if size > MAX_METADATA_BYTES:
        raise InvalidArgumentError(
            f"{what} is {size:,} bytes as JSON; at most {MAX_METADATA_BYTES:,} (it is copied "
            "onto every passage): keep large values in the text or elsewhere"
        )
    return plain


async def passages_without_vector(
    projector: Projector, source: SourceId, chunks: Sequence[Chunk]
) -> int:
    """How many of ``chunks`` the projection will store without a passage vector.

    Raises :class:`EmptyTextError` when that is every one of them: the document holds
    nothing the embedding model can embed, so it is refused whole.
    """
    missing = await projector.passages_without_vectors(chunks)
    if chunks and len(missing) == len({chunk.id for chunk in chunks}):
        raise EmptyTextError(
            f"source {source!r} holds nothing the embedding model can embed (only characters "
            "its tokenizer drops, such as control or zero-width characters); nothing was "
            "written"
        )
    return len(missing)
