"""Sentences of retrieved passages, scored against a question.

Both the extractive answer (which sentences to quote) and the entity ranking (which of a
passage's entities a question is about) read passages sentence by sentence: a passage of a
thousand characters names many entities, and the sentence that matches the question says
which of them matter.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from redstring.domain.chunk_ranking import query_terms, tokenize

__all__ = ["ScoredSentence", "blocks", "score_sentences", "sentences"]

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n")
_HEADING = re.compile(r"^[ \t]*#+[ \t].*$", re.MULTILINE)
_ABBREVIATION = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Sr|Jr|St|Mt|Gen|Col|Capt|Lt|Sgt|Rev|Hon|Inc|Ltd|Co|Corp"
    r"|No|Nos|vs|etc|approx|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|[A-Z])\.)$"
)


def sentences(text: str, *, headings: bool = False) -> list[str]:
    """``text`` cut into sentences: after ``.``, ``!`` or ``?`` before a capital or a digit,
    and at blank lines; Markdown heading lines are left out (a title restates the question
    rather than answering it), or with ``headings`` kept as pieces of their own, ``#`` marks
    and all; whitespace collapsed, empty pieces dropped.

    A full stop after a title, a common abbreviation or a single capital ("Dr. Okafor",
    "A. Okafor", "Acme Ltd. Its") does not end a sentence: at worst two sentences stay
    joined, which quotes more than needed, never less.
    """
    pieces: list[str] = []
    joined = False
    apart = (lambda found: f"\n\n{found.group(0)}\n\n") if headings else "\n\n"
    for piece in _SENTENCE_END.split(_HEADING.sub(apart, text)):
        piece = " ".join(piece.split())
        if not piece:
            continue
        if joined:
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
        joined = bool(_ABBREVIATION.search(pieces[-1]))
    return pieces


def blocks(text: str) -> list[str]:
    """``text`` cut at blank lines: its paragraphs, list items, code lines and headings, as
    a document converted to text lays them out (empty pieces dropped)."""
    return [piece for piece in _BLANK_LINE.split(text) if piece.strip()]


@dataclass(frozen=True)
class ScoredSentence:
    """One sentence of the passage at ``rank`` (0 is the best), and its score.

    ``block`` numbers the passage's blocks (:func:`blocks`): sentences of one paragraph,
    list item or code line share it.
    """

    rank: int
    text: str
    score: float
    block: int = 0


def score_sentences(
    question: str,
    passages: Sequence[str],
    *,
    stem: Callable[[str], str] | None = None,
    headings: bool = False,
) -> list[ScoredSentence]:
    """Every sentence of ``passages`` (best passage first), in order, scored for ``question``.

    A sentence scores the sum, over the distinct question words it holds, of that word's
    inverse frequency among all the sentences, divided by ``1 + 0.25 * rank`` of its passage
    and, as BM25 normalises documents, by ``0.5 + 0.5 * length / mean length`` (a long
    sentence holds more words by chance). A sentence holding no question word scores 0.
    With ``stem``, words are compared by their stems ("raises" holds "raise"); with
    ``headings``, Markdown headings are scored as sentences too (:func:`sentences`).
    """
    candidates = [
        (rank, block, sentence)
        for rank, text in enumerate(passages)
        for block, piece in enumerate(blocks(text))
        for sentence in sentences(piece, headings=headings)
    ]
    if not candidates:
        return []
    same = stem or _itself
    asked = {same(word) for word in query_terms(question)}
    held = [{same(word) for word in tokenize(sentence)} & asked for _, _, sentence in candidates]
    frequency = Counter(word for words in held for word in words)
    total = len(candidates)
    weight = {
        word: math.log(1.0 + (total - count + 0.5) / (count + 0.5))
        for word, count in frequency.items()
    }
    lengths = [len(tokenize(sentence)) or 1 for _, _, sentence in candidates]
    mean = sum(lengths) / len(lengths)
    return [
        ScoredSentence(
            rank=rank,
            text=sentence,
            score=sum(weight[word] for word in words)
            / ((1.0 + 0.25 * rank) * (0.5 + 0.5 * length / mean)),
            block=block,
        )
        for (rank, block, sentence), words, length in zip(candidates, held, lengths, strict=True)
    ]


def _itself(word: str) -> str:
    return word
