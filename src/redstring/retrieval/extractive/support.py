"""How much of the question a sentence answers: its own words and the headings above it.

A heading or an FAQ entry that restates the question says where the answer is: the sentences
under it inherit some of its score (:func:`carried`), fading down the passage. A sentence is
quoted only when it, or a restating sentence above it that it inherited from, holds enough of
the question's content words (:func:`held_share`).
"""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.chunk_ranking import tokenize
from redstring.retrieval.extractive.questions import content_words, restates, stem
from redstring.retrieval.sentences import ScoredSentence

__all__ = ["HEADING_CARRY", "HEADING_SHARE", "carried", "held_share"]

HEADING_CARRY = 0.8
"""How a restating sentence's score fades down its passage: each sentence under it carries
this share of what the one before it carried."""

HEADING_SHARE = 0.5
"""The share of what it carries that a sentence under a restating one adds to its own score:
enough for an FAQ's answer, which repeats none of the question's words, to be quoted; not so
much that the first sentence under any matching heading outranks one that answers."""


def carried(scored: Sequence[ScoredSentence], question: str) -> list[tuple[ScoredSentence, float]]:
    """Each sentence with its score plus what it inherits from the restating sentences (a
    heading, the FAQ's question) above it in its passage, fading with distance."""
    out: list[tuple[ScoredSentence, float]] = []
    inherited = 0.0
    rank = -1
    for sentence in scored:
        if sentence.rank != rank:
            inherited, rank = 0.0, sentence.rank
        if restates(sentence.text, question):
            out.append((sentence, sentence.score))
            inherited = max(inherited * HEADING_CARRY, sentence.score)
            continue
        inherited *= HEADING_CARRY
        out.append((sentence, sentence.score + HEADING_SHARE * inherited))
    return out


def held_share(
    sentence: str,
    question: str,
    scored: Sequence[ScoredSentence],
    carried: Sequence[tuple[ScoredSentence, float]],
) -> float:
    """The share of the question's content words ``sentence`` holds, or the restating
    sentence before it in its passage held, for a sentence that inherited its score."""
    asked = {stem(word) for word in content_words(question)}
    if not asked:
        return 0.0
    held = {stem(word) for word in tokenize(sentence)}
    for sentence_at, (one, score) in enumerate(carried):
        if one.text in sentence and score > one.score:
            # It inherited from the restating sentences above it: they hold the question.
            for above in reversed(scored[:sentence_at]):
                if above.rank != one.rank:
                    break
                if restates(above.text, question):
                    held |= {stem(word) for word in tokenize(above.text)}
    return len(asked & held) / len(asked)
