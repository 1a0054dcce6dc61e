"""Extractive answers: the sentences of a query's passages that answer, with no model.

Which sentences (:func:`answer_sentences`), from every passage of the context, scored by
:func:`~redstring.retrieval.sentences.score_sentences` (the question's words each sentence
holds, rare ones weighing more, damped by passage rank and sentence length):

* a sentence that **restates the question** is never quoted: a question (it ends with ``?``),
  or a sentence that adds no word of its own to the question's (a heading, a table-of-contents
  line). It is evidence of where the answer is, though: the sentence after it in the same
  passage inherits its score, as the body under a heading or an FAQ entry does;
* **no sentence twice**: overlapping passages hold the same sentence, quoted once, from the
  best-ranked passage holding it;
* as many sentences as score within :data:`KEEP_RATIO` of the best, up to ``limit``; a
  question asking for several things (:func:`asks_for_a_list`) keeps up to ``list_limit``;
* only a sentence holding at least :data:`MIN_SUPPORT` of the question's content words (with
  the headings above it) is quoted; **not found** when none does (:func:`answer_sentences`
  returns nothing then).

Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from redstring.domain.chunk_ranking import tokenize
from redstring.retrieval.results import RetrievedPassage
from redstring.retrieval.sentences import ScoredSentence, score_sentences

__all__ = [
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

HEADING_CARRY = 0.8
"""The share of a restating sentence's score the next sentence under it inherits; each
sentence further down inherits this share of the one before."""

_CLOSING = frozenset(".!?:;)\"'\u201d\u2019]")
_HEADING_WORDS = 8
_REFERRING = frozenset({"this", "that", "these", "those", "it", "its", "they", "such", "there"})

_FUNCTION_WORDS = frozenset(
    {
        "a", "about", "above", "after", "all", "also", "am", "an", "and", "any", "are", "as",
        "at", "be", "been", "being", "both", "but", "by", "can", "could", "did", "do", "does",
        "doing", "done", "for", "from", "had", "has", "have", "having", "he", "her", "here",
        "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my",
        "no", "nor", "not", "of", "on", "or", "our", "ours", "she", "should", "so", "some",
        "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
        "this", "those", "through", "to", "too", "under", "up", "us", "very", "was", "we",
        "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why",
        "will", "with", "would", "you", "your",
    }
)  # fmt: skip

_LIST_HEADS = frozenset({"which", "what", "who", "list", "name", "give"})
_YES_NO_HEADS = frozenset(
    {"is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had",
     "will", "would", "should", "shall", "may", "might", "must"}
)  # fmt: skip
_NOT_PLURAL = re.compile(r"(ss|us|is|ous|ics)$")


@dataclass(frozen=True)
class QuotedSentence:
    """One sentence of a passage, with the passage's marker and its score for a question."""

    text: str
    marker: str
    score: float


def content_words(text: str) -> set[str]:
    """The words of ``text`` that are not function words."""
    return {word for word in tokenize(text) if word not in _FUNCTION_WORDS}


def is_heading(sentence: str) -> bool:
    """A title rather than a statement: it ends with a pilcrow (Sphinx headings), or it is
    a short run of words with no closing punctuation."""
    text = sentence.rstrip()
    if text.endswith("\u00b6"):
        return True
    return bool(text) and text[-1] not in _CLOSING and len(text.split()) <= _HEADING_WORDS


def restates(sentence: str, question: str) -> bool:
    """Whether ``sentence`` restates ``question`` rather than answering it: it is itself a
    question or a heading, or (unless the question asks yes or no) every content word it
    holds, numbers aside, is one of the question's."""
    if sentence.rstrip().endswith("?") or is_heading(sentence):
        return True
    words = tokenize(question)
    if words and words[0] in _YES_NO_HEADS:
        # A yes/no question is answered by a sentence saying what it asks.
        return False
    own = {word for word in content_words(sentence) if not word.isdigit()}
    return own <= content_words(question)


def asks_for_a_list(question: str) -> bool:
    """Whether ``question`` asks for several things: a wh-word (or "list", "name") followed,
    past "are", "were", "the", "all" and the like, by a plural noun ("Which methods...",
    "What are the kinds...", "Who are the founders...")."""
    words = tokenize(question)
    if not words or words[0] not in _LIST_HEADS:
        return False
    skip = {"are", "were", "the", "all", "of", "some", "main", "different", "two", "three"}
    for word in words[1:4]:
        if word in skip:
            continue
        return len(word) > 3 and word.endswith("s") and not _NOT_PLURAL.search(word)
    return False


def answer_sentences(
    question: str,
    passages: Sequence[RetrievedPassage],
    *,
    limit: int = 3,
    list_limit: int = 8,
) -> list[QuotedSentence]:
    """The sentences that answer ``question``, best first; ``[]`` when none does."""
    scored = score_sentences(question, [passage.text for passage in passages], stem=_stem)
    if not scored:
        return []
    carried = _carried(scored, question)
    best: dict[str, QuotedSentence] = {}
    for at, (sentence, score) in enumerate(carried):
        if score <= 0 or restates(sentence.text, question):
            continue
        key = " ".join(sentence.text.split()).casefold()
        quoted = QuotedSentence(
            _with_neighbours(scored, at, question), passages[sentence.rank].marker, score
        )
        if key not in best or score > best[key].score:
            best[key] = quoted
    if not best:
        return []
    ranked = [
        sentence
        for sentence in sorted(best.values(), key=lambda s: -s.score)
        if _held_share(sentence.text, question, scored, carried) >= MIN_SUPPORT
    ]
    if not ranked:
        return []
    top = ranked[0].score
    most = list_limit if asks_for_a_list(question) else limit
    ratio = KEEP_RATIO / 2 if asks_for_a_list(question) else KEEP_RATIO
    return [sentence for sentence in ranked if sentence.score >= ratio * top][:most]


def _carried(scored: Sequence[ScoredSentence], question: str) -> list[tuple[ScoredSentence, float]]:
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
        out.append((sentence, sentence.score + inherited))
    return out


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


def _stem(word: str) -> str:
    """A crude stem, for deciding support only: "founders" holds "founder"."""
    for suffix, keep in (("ies", 5), ("es", 5), ("s", 4), ("ing", 6), ("ed", 5)):
        if word.endswith(suffix) and len(word) >= keep:
            return word[: -len(suffix)]
    return word


def _held_share(
    sentence: str,
    question: str,
    scored: Sequence[ScoredSentence],
    carried: Sequence[tuple[ScoredSentence, float]],
) -> float:
    """The share of the question's content words ``sentence`` holds, or the restating
    sentence before it in its passage held, for a sentence that inherited its score."""
    asked = {_stem(word) for word in content_words(question)}
    if not asked:
        return 0.0
    held = {_stem(word) for word in tokenize(sentence)}
    for sentence_at, (one, score) in enumerate(carried):
        if one.text in sentence and score > one.score:
            # It inherited from the restating sentences above it: they hold the question.
            for above in reversed(scored[:sentence_at]):
                if above.rank != one.rank:
                    break
                if restates(above.text, question):
                    held |= {_stem(word) for word in tokenize(above.text)}
    return len(asked & held) / len(asked)
