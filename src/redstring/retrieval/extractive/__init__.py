"""Extractive answers: the sentences of a query's passages that answer, with no model.

The steps, each in its own module: what the question asks (:mod:`.questions`), how much of
it a sentence holds (:mod:`.support`), what is quoted around it (:mod:`.units`).

Which sentences (:func:`answer_sentences`), from every passage of the context, scored by
:func:`~redstring.retrieval.sentences.score_sentences` (the question's words each sentence
holds, rare ones weighing more, damped by passage rank and sentence length):

* a sentence that **restates the question** is never quoted: a question (it ends with ``?``),
  or a sentence that adds no word of its own to the question's (a heading, a table-of-contents
  line). It is evidence of where the answer is, though: the sentences after it in the same
  passage inherit part of its score, as the body under a heading or an FAQ entry does
  (:mod:`.support`);
* what is quoted for a sentence is the **unit** around it (:mod:`.units`): its paragraph when
  short, the term a definition defines, the lines a colon announces;
* **no text twice**: overlapping passages hold the same sentence, quoted once, from the
  best-ranked passage holding it, and a quote another one holds is left out;
* as many sentences as score within :data:`KEEP_RATIO` of the best, up to ``limit``; a
  question asking for several things (:func:`asks_for_a_list`) keeps up to ``list_limit``;
* only a sentence holding at least :data:`MIN_SUPPORT` of the question's content words (with
  the headings above it) is quoted; **not found** when none does (:func:`answer_sentences`
  returns nothing then).

Pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

from redstring.retrieval.extractive.questions import asks_for_a_list, restates, stem
from redstring.retrieval.extractive.support import carried, held_share
from redstring.retrieval.extractive.units import (
    BLOCK_CHARS,
    Layout,
    QuotedSentence,
    without_repeats,
)
from redstring.retrieval.results import RetrievedPassage
from redstring.retrieval.sentences import score_sentences

__all__ = [
    "BLOCK_CHARS",
    "KEEP_RATIO",
    "MIN_SUPPORT",
    "QuotedSentence",
    "answer_sentences",
    "asks_for_a_list",
    "restates",
]

KEEP_RATIO = 0.3
"""A sentence is quoted when it scores at least this share of the best sentence's score."""

MIN_SUPPORT = 0.25
"""The best sentence must hold this share of the question's content words, or nothing
answers."""


def answer_sentences(
    question: str,
    passages: Sequence[RetrievedPassage],
    *,
    limit: int = 3,
    list_limit: int = 8,
) -> list[QuotedSentence]:
    """The sentences that answer ``question``, best first; ``[]`` when none does."""
    scored = score_sentences(
        question, [passage.text for passage in passages], stem=stem, headings=True
    )
    if not scored:
        return []
    scored_with_headings = carried(scored, question)
    layout = Layout(scored)
    best: dict[str, QuotedSentence] = {}
    for at, (sentence, score) in enumerate(scored_with_headings):
        if score <= 0 or restates(sentence.text, question):
            continue
        text = layout.unit(at, question)
        key = " ".join(text.split()).casefold()
        quoted = QuotedSentence(text, passages[sentence.rank].marker, score)
        if key not in best or score > best[key].score:
            best[key] = quoted
    if not best:
        return []
    ranked = [
        sentence
        for sentence in sorted(best.values(), key=lambda s: -s.score)
        if held_share(sentence.text, question, scored, scored_with_headings) >= MIN_SUPPORT
    ]
    if not ranked:
        return []
    top = ranked[0].score
    most = list_limit if asks_for_a_list(question) else limit
    ratio = KEEP_RATIO / 2 if asks_for_a_list(question) else KEEP_RATIO
    return without_repeats([s for s in ranked if s.score >= ratio * top])[:most]
