"""Deterministic, paragraph-aware chunking with overlap.

Text is cut into units (paragraphs; a paragraph longer than the window is cut at sentence
ends, then at spaces, then hard), and units are packed greedily into windows of at most
``max_chars`` characters. Consecutive windows share whole trailing units totalling at most
``overlap_chars`` characters. Identical passages within one source are kept once, because
their content-addressed ids would collide.
"""

from __future__ import annotations

import re

from redstring.domain.chunks import Chunk, chunk_id
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.ids import SourceId

_PARAGRAPH = re.compile(r"\S(?:.*?\S)?(?=\s*\n\s*\n|\s*\Z)", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_SPACE = re.compile(r"\s+")

Span = tuple[int, int]


def chunk_text(
    source_id: SourceId, text: str, *, max_chars: int = 1200, overlap_chars: int = 150
) -> list[Chunk]:
    """Cut ``text`` into chunks of at most ``max_chars`` characters, in reading order.

    Raises :class:`EmptyTextError` for blank text and :class:`InvalidArgumentError` when
    ``max_chars`` < 1 or ``overlap_chars`` is negative or not smaller than ``max_chars``.
    The same arguments always give the same chunks.
    """
    if max_chars < 1:
        raise InvalidArgumentError(f"max_chars must be at least 1, got {max_chars}")
    if overlap_chars < 0 or overlap_chars >= max_chars:
        raise InvalidArgumentError(
            f"overlap_chars must be in [0, max_chars), got {overlap_chars} with max_chars "
            f"{max_chars}"
        )
    if not text.strip():
        raise EmptyTextError(f"cannot chunk source {source_id!r}: its text is blank")
    if "\x00" in text:
        raise InvalidArgumentError(f"source {source_id!r} contains NUL characters; remove them")

    units = [unit for span in _paragraphs(text) for unit in _fit(text, span, max_chars)]
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for index, (start, end) in enumerate(_windows(units, max_chars, overlap_chars)):
        passage = text[start:end]
        if passage in seen:
            continue
        seen.add(passage)
        chunks.append(
            Chunk(
                id=chunk_id(source_id, passage),
                source_id=source_id,
                chunk_index=index,
                text=passage,
                char_start=start,
                char_end=end,
            )
        )
    return chunks


def _paragraphs(text: str) -> list[Span]:
    return [match.span() for match in _PARAGRAPH.finditer(text)]


def _fit(text: str, span: Span, max_chars: int) -> list[Span]:
    """Split ``span`` into pieces of at most ``max_chars``, preferring sentence then word ends."""
    start, end = span
    if end - start <= max_chars:
        return [span]
    for separator in (_SENTENCE_END, _SPACE):
        cuts = list(separator.finditer(text, start, end))
        if cuts:
            pieces: list[Span] = []
            piece_start = start
            for match in cuts:
                pieces.append((piece_start, match.start()))
                piece_start = match.end()
            pieces.append((piece_start, end))
            return _pack(text, pieces, max_chars)
    return [(offset, min(offset + max_chars, end)) for offset in range(start, end, max_chars)]


def _pack(text: str, pieces: list[Span], max_chars: int) -> list[Span]:
    packed: list[Span] = []
    for piece in pieces:
        if packed and piece[1] - packed[-1][0] <= max_chars:
            packed[-1] = (packed[-1][0], piece[1])
        elif piece[1] - piece[0] > max_chars:
            packed.extend(_fit(text, piece, max_chars))
        else:
            packed.append(piece)
    return packed


def _windows(units: list[Span], max_chars: int, overlap_chars: int) -> list[Span]:
    windows: list[Span] = []
    first = 0
    while first < len(units):
        last = first
        while last + 1 < len(units) and units[last + 1][1] - units[first][0] <= max_chars:
            last += 1
        end = units[last][1]
        windows.append((units[first][0], end))
        if last + 1 >= len(units):
            break
        following = last + 1
        while following - 1 > first and end - units[following - 1][0] <= overlap_chars:
            following -= 1
        # The overlap must leave room for the next new unit; a window holding only the
        # overlap would repeat text its predecessor already covers.
        while following <= last and units[last + 1][1] - units[following][0] > max_chars:
            following += 1
        first = following
    return windows
