"""Chunking: deterministic, paragraph-aware windows whose offsets map back to the text."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from redstring.domain.chunking import chunk_text
from redstring.domain.chunks import Chunk, chunk_id
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.ids import SourceId

SOURCE = SourceId("doc.md")

# Pieces chosen so generated texts hit every path: paragraphs (blank lines), sentence ends,
# plain spaces, words longer than any small window, repeated passages and non-ASCII text.
_PIECES = st.one_of(
    st.sampled_from(["ada", "graph", "tenant", "café", "東京", "x", "lovelace", "river"]),
    st.sampled_from([" ", "  ", "\t", ". ", "! ", "? ", "; ", "\n", "\n\n", "\n \n", "\r\n\r\n"]),
    st.text(alphabet="abcz", min_size=8, max_size=40),
)
texts = st.lists(_PIECES, min_size=1, max_size=60).map("".join).filter(str.strip)


@st.composite
def windows(draw: st.DrawFn) -> tuple[int, int]:
    """A ``(max_chars, overlap_chars)`` pair the chunker accepts."""
    max_chars = draw(st.integers(min_value=1, max_value=80))
    overlap = draw(st.integers(min_value=0, max_value=max_chars - 1))
    return max_chars, overlap


def _word_run(text: str, index: int) -> int:
    """Length of the run of non-whitespace characters that contains ``index``."""
    start = index
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = index
    while end < len(text) and not text[end].isspace():
        end += 1
    return end - start


def _chunks(text: str, sizes: tuple[int, int]) -> list[Chunk]:
    max_chars, overlap = sizes
    return chunk_text(SOURCE, text, max_chars=max_chars, overlap_chars=overlap)


@settings(max_examples=200)
@given(texts, windows())
@example("aaaa\n\nbb\n\ncccccccccc", (10, 5))
def test_windows_fit_and_their_offsets_map_back_to_the_text(
    text: str, sizes: tuple[int, int]
) -> None:
    """Every chunk is at most ``max_chars`` long and is exactly ``text[start:end]``."""
    for chunk in _chunks(text, sizes):
        assert 0 < len(chunk.text) <= sizes[0]
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        assert chunk.id == chunk_id(SOURCE, chunk.text)
        assert chunk.source_id == SOURCE


@settings(max_examples=200)
@given(texts, windows())
def test_chunking_is_deterministic(text: str, sizes: tuple[int, int]) -> None:
    """The same text and sizes always give the same chunks, ids included."""
    assert _chunks(text, sizes) == _chunks(text, sizes)


@settings(max_examples=200)
@given(texts, windows())
@example("aaaa\n\nbb\n\ncccccccccc", (10, 5))
def test_each_window_moves_forward_and_overlaps_at_most_overlap_chars(
    text: str, sizes: tuple[int, int]
) -> None:
    """Starts and ends strictly increase, and neighbours share at most ``overlap_chars``.

    A window that ends where its predecessor ended holds nothing new: it would cost one more
    extraction call for text already sent.
    """
    chunks = _chunks(text, sizes)
    for before, after in itertools.pairwise(chunks):
        assert before.char_start < after.char_start
        assert before.char_end < after.char_end
        assert before.char_end - after.char_start <= sizes[1]
        assert before.chunk_index < after.chunk_index


@settings(max_examples=200)
@given(texts, windows())
def test_every_non_whitespace_character_is_in_some_passage(
    text: str, sizes: tuple[int, int]
) -> None:
    """Nothing is lost: each visible character lies inside an occurrence of a chunk's text.

    Occurrences rather than offsets, because a repeated passage is kept once (its other
    occurrence is covered by the same text).
    """
    covered = [False] * len(text)
    for chunk in _chunks(text, sizes):
        for match in re.finditer(f"(?=({re.escape(chunk.text)}))", text):
            for index in range(match.start(), match.start() + len(chunk.text)):
                covered[index] = True
    lost = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert lost == []


@settings(max_examples=200)
@given(texts, windows())
def test_words_are_cut_only_when_longer_than_a_window(text: str, sizes: tuple[int, int]) -> None:
    """A chunk starts and ends on whitespace boundaries unless a single word exceeds the window.

    So a chunk never begins or ends with whitespace, and a hard cut happens only inside a run
    of non-whitespace longer than ``max_chars``.
    """
    max_chars = sizes[0]
    for chunk in _chunks(text, sizes):
        assert not chunk.text[0].isspace()
        assert not chunk.text[-1].isspace()
        start, end = chunk.char_start, chunk.char_end
        if start > 0 and not text[start - 1].isspace():
            assert _word_run(text, start) > max_chars
        if end < len(text) and not text[end].isspace():
            assert _word_run(text, end) > max_chars


@settings(max_examples=200)
@given(texts, windows())
def test_a_passage_is_kept_once(text: str, sizes: tuple[int, int]) -> None:
    """No two chunks of one source hold the same text (their ids would collide)."""
    chunks = _chunks(text, sizes)
    assert len({chunk.text for chunk in chunks}) == len(chunks)
    assert len({chunk.id for chunk in chunks}) == len(chunks)


def test_paragraphs_that_fit_are_packed_whole() -> None:
    """Short paragraphs share a window and are never split across two."""
    text = "First paragraph here.\n\nSecond one.\n\nThird paragraph, a bit longer."
    chunks = chunk_text(SOURCE, text, max_chars=40, overlap_chars=0)
    assert [chunk.text for chunk in chunks] == [
        "First paragraph here.\n\nSecond one.",
        "Third paragraph, a bit longer.",
    ]


def test_a_long_paragraph_is_split_at_sentence_ends_first() -> None:
    """A paragraph longer than the window is cut after sentences, not mid-sentence."""
    text = "Ada wrote the first program. Babbage built the engine. Both met in London."
    chunks = chunk_text(SOURCE, text, max_chars=30, overlap_chars=0)
    assert [chunk.text for chunk in chunks] == [
        "Ada wrote the first program.",
        "Babbage built the engine.",
        "Both met in London.",
    ]


def test_a_sentence_longer_than_the_window_is_split_at_spaces() -> None:
    """With no sentence end to use, the cut falls between words."""
    text = "alpha beta gamma delta epsilon"
    chunks = chunk_text(SOURCE, text, max_chars=11, overlap_chars=0)
    assert [chunk.text for chunk in chunks] == ["alpha beta", "gamma delta", "epsilon"]


def test_a_word_longer_than_the_window_is_cut_hard() -> None:
    """A run with no whitespace at all is cut every ``max_chars`` characters."""
    chunks = chunk_text(SOURCE, "abcdefghij", max_chars=4, overlap_chars=0)
    assert [(c.text, c.char_start, c.char_end) for c in chunks] == [
        ("abcd", 0, 4),
        ("efgh", 4, 8),
        ("ij", 8, 10),
    ]


def test_consecutive_windows_share_trailing_paragraphs() -> None:
    """The overlap repeats whole trailing units of the previous window, within the budget."""
    text = "One.\n\nTwo.\n\nThree.\n\nFour.\n\nFive."
    chunks = chunk_text(SOURCE, text, max_chars=14, overlap_chars=8)
    assert [chunk.text for chunk in chunks] == [
        "One.\n\nTwo.",
        "Two.\n\nThree.",
        "Three.\n\nFour.",
        "Four.\n\nFive.",
    ]


def test_no_window_is_contained_in_its_predecessor() -> None:
    """When the next unit cannot join the overlap, the overlap is dropped, not sent alone.

    Found by the forward-progress property: the chunker used to emit ``"bb"`` on its own,
    a passage already inside the first chunk.
    """
    chunks = chunk_text(SOURCE, "aaaa\n\nbb\n\ncccccccccc", max_chars=10, overlap_chars=5)
    assert [chunk.text for chunk in chunks] == ["aaaa\n\nbb", "cccccccccc"]


def test_a_repeated_passage_is_kept_once() -> None:
    """Identical paragraphs would get identical ids, so only the first occurrence stays."""
    text = "Same words.\n\nSame words.\n\nOther words."
    chunks = chunk_text(SOURCE, text, max_chars=12, overlap_chars=0)
    assert [(chunk.text, chunk.char_start) for chunk in chunks] == [
        ("Same words.", 0),
        ("Other words.", 26),
    ]


def test_the_default_window_keeps_a_short_text_whole() -> None:
    """A text shorter than the default window is one chunk starting at its first letter."""
    text = "  \n Ada Lovelace wrote the first program.\n\n"
    (chunk,) = chunk_text(SOURCE, text)
    assert chunk.text == "Ada Lovelace wrote the first program."
    assert (chunk.char_start, chunk.chunk_index) == (4, 0)


@pytest.mark.parametrize("text", ["", " ", "\n\n\t  \r\n"])
def test_blank_text_is_an_empty_text_error(text: str) -> None:
    """Blank text has nothing to chunk; the error names the source."""
    with pytest.raises(EmptyTextError, match=r"doc\.md"):
        chunk_text(SOURCE, text)


def test_nul_characters_are_rejected() -> None:
    """PostgreSQL cannot store NUL in text, so it is refused before any chunk exists."""
    with pytest.raises(InvalidArgumentError, match="NUL"):
        chunk_text(SOURCE, "before\x00after")


@pytest.mark.parametrize("max_chars", [0, -1])
def test_max_chars_below_one_is_rejected(max_chars: int) -> None:
    """A window must hold at least one character."""
    with pytest.raises(InvalidArgumentError, match=f"got {max_chars}"):
        chunk_text(SOURCE, "text", max_chars=max_chars, overlap_chars=0)


@pytest.mark.parametrize(("max_chars", "overlap"), [(10, 10), (10, 11), (10, -1), (1, 1)])
def test_overlap_must_be_smaller_than_the_window(max_chars: int, overlap: int) -> None:
    """An overlap as large as the window would never move forward."""
    with pytest.raises(InvalidArgumentError, match="overlap_chars"):
        chunk_text(SOURCE, "some text", max_chars=max_chars, overlap_chars=overlap)


def test_the_argument_errors_are_value_errors() -> None:
    """Callers catching ``ValueError`` for bad input keep working."""
    with pytest.raises(ValueError, match="max_chars"):
        chunk_text(SOURCE, "text", max_chars=0, overlap_chars=0)
