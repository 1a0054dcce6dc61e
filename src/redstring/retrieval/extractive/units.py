"""What is quoted around an answering sentence: the unit a reader needs to understand it.

A document converted to text keeps its structure as blocks between blank lines (paragraphs,
list items, code lines, headings; :func:`~redstring.retrieval.sentences.blocks`):

* a paragraph of at most :data:`BLOCK_CHARS` is quoted **whole**: the sentence that answers
  often leans on the one before it ("It is good practice to use the with keyword ... The
  advantage is that the file is properly closed");
* a longer one quotes the sentence, with the one before it when it opens by referring back
  ("It", "This") and the one after it when it ends with a colon;
* a definition list's **term** (``list.append(x)``, a block of a few words with no sentence
  ending) heads the definition quoted under it;
* a sentence ending with a **colon** brings the blocks it announces: list items, code lines,
  as many as fit (:meth:`Layout.unit`);
* **no text twice**: a quote another one holds is dropped, and one holding others replaces
  the first of them (:func:`without_repeats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from redstring.domain.chunk_ranking import tokenize
from redstring.retrieval.extractive.questions import is_heading, restates
from redstring.retrieval.sentences import ScoredSentence

__all__ = ["BLOCK_CHARS", "Layout", "QuotedSentence", "without_repeats"]

BLOCK_CHARS = 400
"""A paragraph (block) at most this long is quoted whole around its answering sentence."""

_TERM_WORDS = 6
_ANNOUNCED_BLOCKS = 6
_REFERRING = frozenset({"this", "that", "these", "those", "it", "its", "they", "such", "there"})


@dataclass(frozen=True)
class QuotedSentence:
    """What is quoted for one answering sentence, the passage's marker and its score."""

    text: str
    marker: str
    score: float


class Layout:
    """Where each sentence sits: its passage's blocks (paragraphs, list items, code lines)."""

    def __init__(self, scored: Sequence[ScoredSentence]) -> None:
        self._scored = scored
        self._blocks: dict[tuple[int, int], list[int]] = {}
        for at, sentence in enumerate(scored):
            self._blocks.setdefault((sentence.rank, sentence.block), []).append(at)

    def _block(self, rank: int, block: int) -> list[ScoredSentence]:
        return [self._scored[at] for at in self._blocks.get((rank, block), [])]

    def unit(self, at: int, question: str) -> str:
        """What to quote for the sentence at ``at``: its whole paragraph when that is short
        (the sentences around an answer explain it), else the sentence with its neighbours;
        after the term it defines (a definition list's ``list.append(x)``), and followed by
        the line it announces with a colon (a command, a code line)."""
        sentence = self._scored[at]
        own = self._block(sentence.rank, sentence.block)
        whole = " ".join(one.text for one in own)
        if len(whole) <= BLOCK_CHARS and not any(restates(one.text, question) for one in own):
            text = whole
        else:
            text = _with_neighbours(self._scored, at, question)
        before = self._block(sentence.rank, sentence.block - 1)
        if len(before) == 1 and _is_term(before[0].text) and own[0] is sentence:
            text = f"{before[0].text}: {text}"
        if text.rstrip().endswith(":"):
            text = self._announced(text, sentence.rank, sentence.block)
        return text

    def _announced(self, text: str, rank: int, block: int) -> str:
        """``text`` followed by the blocks its colon announces: the list items or code lines
        after it, as many as fit in :data:`BLOCK_CHARS` each and twice that in all."""
        added: list[str] = []
        budget = 2 * BLOCK_CHARS
        for following in range(block + 1, block + 1 + _ANNOUNCED_BLOCKS):
            piece = " ".join(one.text for one in self._block(rank, following))
            if not piece or len(piece) > BLOCK_CHARS or len(piece) > budget:
                break
            if is_heading(piece) and not _is_term(piece):
                break
            added.append(piece)
            budget -= len(piece)
        joined = " ".join(added)
        return f"{text} {joined}" if added and not text.endswith(joined) else text


def _is_term(text: str) -> bool:
    """A definition list's term or a signature: a few words with no sentence ending."""
    stripped = text.rstrip()
    return (
        any(character.isalpha() for character in stripped)
        and "://" not in stripped
        and not stripped.startswith("#")
        and not stripped.endswith("\u00b6")
        and stripped[-1] not in ".!?:;"
        and len(stripped.split()) <= _TERM_WORDS
    )


def _with_neighbours(scored: Sequence[ScoredSentence], at: int, question: str) -> str:
    """The sentence at ``at``, with the sentence before it when it opens by referring back
    ("It", "This"), and the one after it when it ends by announcing it (a colon)."""
    sentence = scored[at]
    text = sentence.text
    words = tokenize(text)
    before = scored[at - 1] if at > 0 else None
    if (
        words
        and words[0] in _REFERRING
        and before is not None
        and before.rank == sentence.rank
        and not restates(before.text, question)
    ):
        text = f"{before.text} {text}"
    after = scored[at + 1] if at + 1 < len(scored) else None
    if text.rstrip().endswith(":") and after is not None and after.rank == sentence.rank:
        text = f"{text} {after.text}"
    return text


def without_repeats(ranked: Sequence[QuotedSentence]) -> list[QuotedSentence]:
    """``ranked`` with each text once: a quote that a better one holds is dropped, and one
    that holds better ones takes the place of the first of them (the same sentence quoted
    alone and with its paragraph would read twice; the paragraph says more)."""
    kept: list[QuotedSentence] = []
    for quote in ranked:
        text = _folded(quote.text)
        if any(text in _folded(other.text) for other in kept):
            continue
        held = [at for at, other in enumerate(kept) if _folded(other.text) in text]
        if held:
            first = kept[held[0]]
            kept[held[0]] = QuotedSentence(quote.text, quote.marker, first.score)
            kept = [other for at, other in enumerate(kept) if at not in held[1:]]
            continue
        kept.append(quote)
    return kept


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()
