"""Question-entity linking: the entities a question names, found through blocking keys.

A small embedding model often misses the entity a question spells out ("Who is Beatriz?"),
and the passages that name it may rank below passages that merely share its common words. The
graph already indexes every surface name of every entity under its blocking keys
(:mod:`redstring.domain.blocking`), so the names in a question can be looked up the same way
resolution looks up a mention: one batched ``find_by_blocking_keys`` call, no scan, no model.

Which words of a question may be a name (:func:`name_spans`): runs of capitalised words
(joined by lowercase particles such as "de" or "van"), and every shorter run inside them,
leaving out question words ("Who", "Which"...). A question written without capitals falls back
to every run of up to three words that are not function words.

Which keys (:func:`span_keys`): the precise families only. ``n:`` (the normalised name) and
``s:`` (its sorted tokens, nicknames mapped) link a full name; ``i:`` links a name written with
an initial ("P. de Wit"); ``a:`` links a short all-capitals word to the name it abbreviates;
``f:`` links one word to the longer names it begins or ends ("Whitlock" to "Jonah Whitlock").
The phonetic families (``p:``, ``k:``) are left out: a question is not a record with other
fields to confirm a fuzzy match, so they would link ordinary words to names.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from redstring.domain.blocking import lookup_keys
from redstring.domain.errors import EmptyTextError
from redstring.domain.ids import EntityId, id_text
from redstring.domain.models import Entity

__all__ = [
    "AMBIGUOUS_BUCKET",
    "MAX_SPANS",
    "Links",
    "NameSpan",
    "link_ranking",
    "name_spans",
    "span_keys",
]

MAX_SPAN_WORDS = 6
"""The longest run of words tried as one name."""

MAX_SPANS = 48
"""The most candidate names one question is looked up by (longest first), so a long text
in title case costs a bounded key read."""

_WORD = re.compile(r"[^\W_]+(?:['\u2019\-][^\W_]+)*\.?")
_POSSESSIVE = re.compile(r"['\u2019]s$", re.IGNORECASE)

_PARTICLES = frozenset(
    {"de", "da", "di", "del", "della", "der", "den", "van", "von", "du", "la", "le", "of", "y"}
)
"""Lowercase words that may sit inside a name ("Pieter de Wit", "Bank of Velmar")."""

_NOT_NAMES = frozenset(
    {
        "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be",
        "been", "before", "between", "both", "but", "by", "can", "could", "describe", "did",
        "do", "does", "during", "each", "explain", "find", "for", "from", "give", "had", "has",
        "have", "he", "her", "his", "how", "i", "if", "in", "into", "is", "it", "its", "list",
        "many", "me", "much", "name", "names", "of", "on", "or", "our", "please", "she",
        "should", "show", "so", "some", "tell", "than", "that", "the", "their", "them", "then",
        "there", "these", "they", "this", "those", "to", "under", "was", "we", "were", "what",
        "when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with",
        "would", "you", "your",
    }
)  # fmt: skip
"""Words that start or make up a question but never a name on their own."""

_STRENGTH = {"n": 3, "s": 3, "a": 2, "i": 2, "f": 1}
"""How strongly a key family links: exact forms over initials over one shared word."""

AMBIGUOUS_BUCKET = 10
"""A one-word key shared by more entities than this links none of them: the word is common."""


@dataclass(frozen=True)
class NameSpan:
    """Words ``start`` to ``end`` (exclusive) of a question, and their text."""

    start: int
    end: int
    text: str

    @property
    def words(self) -> int:
        return self.end - self.start


def name_spans(question: str) -> list[NameSpan]:
    """The runs of the question's words that may be names, longest first, then leftmost;
    at most :data:`MAX_SPANS` of them."""
    words = [_POSSESSIVE.sub("", match.group()).rstrip(".") for match in _WORD.finditer(question)]
    words = [word for word in words if word]
    named = [_may_name(word) for word in words]
    runs = _capitalised_runs(words, named) if any(named) else _plain_runs(words)
    spans: dict[tuple[int, int], NameSpan] = {}
    for start, end in runs:
        for length in range(min(end - start, MAX_SPAN_WORDS), 0, -1):
            for left in range(start, end - length + 1):
                inner = words[left : left + length]
                if inner[0].casefold() in _PARTICLES or inner[-1].casefold() in _PARTICLES:
                    continue
                text = " ".join(inner)
                spans.setdefault((left, left + length), NameSpan(left, left + length, text))
    ordered = sorted(spans.values(), key=lambda span: (-span.words, span.start))
    return ordered[:MAX_SPANS]


def span_keys(span: NameSpan, entity_types: Collection[str]) -> dict[str, int]:
    """The keys to look ``span`` up by, for each type, with each key's link strength."""
    keys: dict[str, int] = {}
    single = span.words == 1
    for entity_type in sorted(entity_types):
        try:
            found = lookup_keys(entity_type, span.text)
        except EmptyTextError:
            return {}
        for key in found:
            family = key[len(entity_type) + 1 :].split(":", 1)[0]
            if family == "f" and not single:
                continue
            if family == "a" and not (single and span.text.isupper()):
                continue
            if family in _STRENGTH:
                keys[key] = _STRENGTH[family]
    return keys


@dataclass(frozen=True)
class Links:
    """The linked entities, strongest link first, the spans that linked any, and each linked
    entity as the key read returned it."""

    entities: list[EntityId]
    spans: list[NameSpan]
    found: dict[EntityId, Entity]


def link_ranking(
    spans: Sequence[NameSpan],
    keys: Mapping[NameSpan, Mapping[str, int]],
    found: Mapping[str, Sequence[Entity]],
    *,
    limit_per_key: int,
) -> Links:
    """The linked entities, strongest link first, and the spans that linked them.

    An entity ranks by its strongest link, then the longest span linking it, then how few
    entities shared the key, then where the span starts, then id. A span whose words all lie
    inside a longer span that linked by a full name or an initial links nothing itself
    ("Okafor" inside "Okafor Labs"); a one-word key whose bucket filled ``limit_per_key``
    links nothing (too common to mean one entity).
    """
    covered: set[int] = set()
    best: dict[EntityId, tuple[int, int, int, int, str]] = {}
    entities: dict[EntityId, Entity] = {}
    linking: list[NameSpan] = []
    for span in spans:
        positions = set(range(span.start, span.end))
        if positions <= covered:
            continue
        strong = linked = False
        for key, strength in keys.get(span, {}).items():
            bucket = found.get(key, ())
            if not bucket or (strength == _STRENGTH["f"] and len(bucket) >= limit_per_key):
                continue
            linked = True
            strong = strong or strength > _STRENGTH["f"]
            for entity in bucket:
                rank = (-strength, -span.words, len(bucket), span.start, id_text(entity.id))
                if entity.id not in best or rank < best[entity.id]:
                    best[entity.id] = rank
                    entities[entity.id] = entity
        if linked:
            linking.append(span)
        if strong:
            covered |= positions
    return Links(sorted(best, key=lambda entity_id: best[entity_id]), linking, entities)


def _may_name(word: str) -> bool:
    first = word[0]
    return (first.isupper() or first.isdigit()) and word.casefold() not in _NOT_NAMES


def _capitalised_runs(words: Sequence[str], named: Sequence[bool]) -> list[tuple[int, int]]:
    """Maximal runs of name words, a lowercase particle allowed between two of them."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for index, word in enumerate(words):
        if named[index]:
            if start is None:
                start = index
            continue
        inside = (
            start is not None
            and word.casefold() in _PARTICLES
            and index + 1 < len(words)
            and named[index + 1]
        )
        if inside:
            continue
        if start is not None:
            runs.append((start, index))
            start = None
    if start is not None:
        runs.append((start, len(words)))
    return runs


def _plain_runs(words: Sequence[str]) -> list[tuple[int, int]]:
    """Runs of words that are not function words, each cut to three words at most."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for index, word in enumerate([*words, ""]):
        usable = bool(word) and word.casefold() not in _NOT_NAMES
        if usable and start is None:
            start = index
        elif not usable and start is not None:
            runs.extend((left, min(left + 3, index)) for left in range(start, index))
            start = None
    return runs
