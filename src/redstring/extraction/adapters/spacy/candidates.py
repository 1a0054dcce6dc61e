"""Candidates: names found in a parse, cleaned to their bounds, and names the recogniser
missed (by their own words, or where a found name recurs)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from redstring.domain.blocking import normalise_name
from redstring.domain.errors import EmptyTextError
from redstring.extraction.name_cues import (
    KIND_NOUNS,
    ORGANISATION_WORDS,
    label_from_words,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token


ARTICLES: Final = frozenset({"the", "a", "an"})


_NOMINAL: Final = frozenset({"PROPN", "NOUN", "NUM"})


# Lowercase words that may open a name ("de Wit"); any other lowercase edge word is not the
# name's ("the fourth Tidewater Summit", "the Rotterdam yard").
_PARTICLES: Final = frozenset({"de", "van", "von", "da", "di", "le", "la", "del", "der", "al"})


@dataclass
class Mention:
    start: int
    end: int
    name: str
    key: str
    label: str
    type: str = ""
    referring: bool = False
    weight: int = 1

    def root(self, doc: Doc) -> Token:
        """The span's syntactic root; a nominal one when the parser hung the name on two
        heads ("Do Lafzon Ki Kahani is": "Do" read as an auxiliary, "Kahani" the subject)."""
        span = doc[self.start : self.end]
        root = span.root
        if root.pos_ in _NOMINAL:
            return root
        tops = [t for t in span if not self.start <= t.head.i < self.end and t.pos_ in _NOMINAL]
        return tops[-1] if tops else root


def clean_bounds(span: Span, *, name: bool = True) -> tuple[int, int] | None:
    """Token bounds of ``span`` without a leading article or trailing possessive/punctuation,
    cut to the side of a spaced dash, colon or quote that holds the span's root ("12 March
    2024 - Okafor Labs" is "Okafor Labs"). A ``name`` also loses lowercase edge words ("the
    fourth Tidewater Summit"); a noun phrase keeps them."""
    start, end = span.start, span.end
    doc = span.doc
    root = span.root.i
    if name and not _capitalised_word(doc[root]):
        # "aduh95 - Antoine du Hamel": the parser's root is the handle; the name is the side
        # with capitalised words.
        root = next((t.i for t in reversed(span) if _capitalised_word(t)), root)
    for token in span:
        if token.i in {span.start, span.end - 1} or not _separates(token):
            continue
        if token.i < root:
            start = token.i + 1
        elif token.i > root:
            end = min(end, token.i)
    while start < end and (
        doc[start].lower_ in ARTICLES
        or doc[start].lower_ in {"'s", "\u2019s"}
        or doc[start].is_punct
        or doc[start].is_space
        or (
            name
            and doc[start].is_lower
            and doc[start].is_alpha
            and doc[start].text not in _PARTICLES
        )
    ):
        start += 1
    while end > start and (
        doc[end - 1].tag_ == "POS"
        or doc[end - 1].lower_ in {"'s", "\u2019s"}
        or doc[end - 1].is_punct
        or doc[end - 1].is_space
        or (
            name and doc[end - 1].is_lower and doc[end - 1].is_alpha and not _hyphened(doc, end - 1)
        )
    ):
        end -= 1
    if name:
        # "Kim Jang-hoon", "Song Il-gon": a name goes on through a hyphen written without spaces.
        while end + 1 < len(doc) and _hyphened(doc, end + 1) and doc[end].text == "-":
            end += 2
    return (start, end) if start < end else None


def _hyphened(doc: Doc, i: int) -> bool:
    """Token ``i`` is a word joined to the word two before it by a hyphen, without spaces."""
    return (
        i >= 2
        and doc[i].is_alpha
        and doc[i - 1].text == "-"
        and not doc[i - 1].whitespace_
        and not doc[i - 2].whitespace_
    )


def _capitalised_word(token: Token) -> bool:
    return token.is_alpha and token.text[:1].isupper()


def _separates(token: Token) -> bool:
    if token.text in {'"', "\u201c", "\u201d", "(", ")"}:
        return True
    spaced = bool(token.whitespace_) and token.i > 0 and bool(token.doc[token.i - 1].whitespace_)
    return spaced and token.text in {"-", "\u2013", "\u2014", ":", "|"}


def make_mention(span: Span, label: str, kind: str = "") -> Mention:
    name = " ".join(span.text.split())
    try:
        key = normalise_name(name)
    except EmptyTextError:
        key = ""
    return Mention(start=span.start, end=span.end, name=name, key=key, label=label, type=kind)


_CUED_LABELS: Final = frozenset({"ORG", "EVENT"})


_NAME_POS: Final = frozenset({"PROPN", "NOUN", "ADJ", "NUM"})


def cued(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """Names the recogniser missed whose own words say what they are: a run of capitalised
    words, at least one of them a proper noun, ending in an organisation or event word
    ("Okafor Labs", "Calder Design Fair"). Place and person cues are weaker on their own
    and only correct the recogniser's names; a run overlapping a recognised name is its."""
    taken = {i for m in mentions for i in range(m.start, m.end)}
    found: list[Mention] = []
    i = 0
    while i < len(doc):
        if not _capitalised(doc[i]):
            i += 1
            continue
        end = i
        while end < len(doc) and _capitalised(doc[end]):
            end += 1
        bounds = clean_bounds(doc[i:end])
        i = end
        if bounds is None or bounds[1] - bounds[0] < 2:
            continue
        start = bounds[0]
        while start < bounds[1] and doc[start].pos_ not in _NAME_POS:
            start += 1  # "Our Board", "Every Company": a pronoun or determiner opens no name
        if bounds[1] - start < 2:
            continue
        span = doc[start : bounds[1]]
        if any(token.i in taken for token in span):
            continue
        before = doc[span.start - 1].text if span.start > 0 else None
        label = label_from_words([token.text for token in span], before)
        proper = any(
            token.pos_ == "PROPN" and token.lower_ not in ORGANISATION_WORDS for token in span
        )
        if label in _CUED_LABELS and proper:
            mention = make_mention(span, label)
            if mention.key:
                found.append(mention)
    return found


def _capitalised(token: Token) -> bool:
    """A word of a name as written: a capital first letter (or "&" between two)."""
    return (token.is_alpha and token.text[:1].isupper()) or token.text == "&"


def recurrences(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """Mentions the recogniser missed: a recognised name where it recurs, and standing
    alone, a person's surname or the first word of an organisation's name ("Okafor was
    born", "Brinewater continues")."""
    taken = {i for m in mentions for i in range(m.start, m.end)}
    by_words: dict[tuple[str, ...], str] = {}
    for mention in mentions:
        words = tuple(t.text for t in doc[mention.start : mention.end])
        by_words.setdefault(words, mention.label)
        if len(words) > 1 and mention.label == "PERSON":
            by_words.setdefault(words[-1:], "PERSON")
    for mention in mentions:
        words = tuple(t.text for t in doc[mention.start : mention.end])
        if len(words) > 1 and mention.label == "ORG":
            by_words.setdefault(words[:1], "ORG")
    texts = [token.text for token in doc]
    starting: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for words, label in by_words.items():
        starting.setdefault(words[0], []).append((words, label))
    for candidates in starting.values():
        candidates.sort(key=lambda c: -len(c[0]))  # longest name first at each position
    found: list[Mention] = []
    for start, text in enumerate(texts):
        for words, label in starting.get(text, ()):
            end = start + len(words)
            if tuple(texts[start:end]) != words or any(i in taken for i in range(start, end)):
                continue
            if len(words) == 1 and not _stands_alone(doc, start):
                continue
            found.append(make_mention(doc[start:end], label))
            taken.update(range(start, end))
            break
    return found


def _stands_alone(doc: Doc, i: int) -> bool:
    """A one-word name not inside a longer run of proper nouns (the tagger's part of speech
    for the word itself is not trusted: it reads unfamiliar surnames as adjectives)."""
    neighbours = [doc[j] for j in (i - 1, i + 1) if 0 <= j < len(doc)]
    return doc[i].is_title and not any(t.pos_ == "PROPN" and t.is_title for t in neighbours)


_SMALL_WORDS: Final = frozenset(
    {"of", "the", "a", "an", "and", "in", "on", "at", "to", "for", "by", "with", "from", "de"}
)
_QUOTES: Final = frozenset({'"', "\u201c", "\u201d", "''", "``"})
_MAX_TITLE: Final = 8


def predicated(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """Names the recogniser missed that a predicate says the kind of: the capitalised subject
    of "X is a 1986 American film" or "X, a town in Y" (the kind from
    :data:`~redstring.extraction.name_cues.KIND_NOUNS`: the opening sentence of an
    encyclopaedic paragraph), and a short title-case phrase in quotation marks, which is a
    work's title ("the song "Release Me"")."""
    taken = {i for m in mentions for i in range(m.start, m.end)}
    found: list[Mention] = []
    for token in doc:
        kind = _predicate_kind(token)
        if kind is None:
            continue
        bounds = clean_bounds(doc[token.left_edge.i : token.i + 1])
        if bounds is None or not _title_case(doc[bounds[0] : bounds[1]]):
            continue
        if any(i in taken for i in range(*bounds)):
            continue
        found.append(make_mention(doc[bounds[0] : bounds[1]], kind))
        taken.update(range(*bounds))
    found += _quoted_titles(doc, taken)
    for mention in found:
        mention.weight = 2  # the predicate's word for the kind outvotes the recogniser
    return [m for m in found if m.key]


def _predicate_kind(token: Token) -> str | None:
    nouns: list[Token] = []
    if token.dep_ in {"nsubj", "nsubjpass"} and token.head.lemma_ == "be":
        nouns += [c for c in token.head.children if c.dep_ == "attr"]
    if token.pos_ == "PROPN":
        nouns += [c for c in token.children if c.dep_ == "appos"]
    for noun in nouns:
        kind = KIND_NOUNS.get(noun.lemma_.lower()) if noun.pos_ == "NOUN" else None
        if kind is not None:
            return kind
    return None


def _title_case(span: Span) -> bool:
    """At most eight words, the first capitalised and every other one capitalised, a number
    or a small word ("of", "the")."""
    words = [t for t in span if not t.is_punct]
    if not words or len(words) > _MAX_TITLE or not words[0].text[:1].isupper():
        return False
    return all(
        t.text[:1].isupper() or t.text[:1].isdigit() or t.lower_ in _SMALL_WORDS or t.tag_ == "POS"
        for t in words
    )


def _quoted_titles(doc: Doc, taken: set[int]) -> list[Mention]:
    found: list[Mention] = []
    opened: int | None = None
    for token in doc:
        if token.text not in _QUOTES:
            continue
        if opened is None:
            opened = token.i
            continue
        start, end = opened + 1, token.i
        opened = None
        if start >= end or any(i in taken for i in range(start, end)):
            continue
        span = doc[start:end]
        if _title_case(span) and span.sent.start == doc[start].sent.start:
            found.append(make_mention(span, "WORK_OF_ART"))
            taken.update(range(start, end))
    return found


def nicknamed(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """ "Richard Elmer "Dick" Humbert": a quoted nickname inside a run of capitalised words is
    one person's name, written without the nickname; it replaces the pieces the recogniser
    cut the run into ("Richard Elmer", "Humbert")."""
    out = list(mentions)
    for i, token in enumerate(doc):
        if token.text not in _QUOTES or i + 2 >= len(doc) or doc[i + 2].text not in _QUOTES:
            continue
        if not doc[i + 1].text[:1].isupper():
            continue
        start = i
        sentence = token.sent
        while start > sentence.start and _name_word(doc[start - 1]):
            start -= 1
        end = i + 3
        while end < sentence.end and _name_word(doc[end]):
            end += 1
            while end + 1 < len(doc) and doc[end].text == "-" and _hyphened(doc, end + 1):
                end += 2
        if start == i or end == i + 3:
            continue
        name = f"{doc[start:i].text.strip()} {doc[i + 3 : end].text.strip()}"
        try:
            key = normalise_name(name)
        except EmptyTextError:
            continue
        out = [m for m in out if m.end <= start or m.start >= end]
        out.append(Mention(start=start, end=end, name=name, key=key, label="PERSON", weight=2))
    return out


def _name_word(token: Token) -> bool:
    return (token.is_alpha and token.text[:1].isupper()) or bool(_INITIAL.match(token.text))


_INITIAL: Final = re.compile(r"^[A-Z]\.$")


_COPULAS: Final = frozenset({"is", "was", "are", "were"})
_TITLE_LABELS: Final = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT", "SOFTWARE", "LAW"}
)


def titled(doc: Doc, headings: list[tuple[int, int]], mentions: list[Mention]) -> list[Mention]:
    """The paragraph under a title opens by naming it ("Heinkel HD 23" over "The Heinkel HD 23
    was a carrier-borne biplane"): where the first words after a heading repeat the title
    (without a bracketed qualifier such as "(film)" or a leading article) and a copula or a
    bracket follows, those words are one name. Its label is the kind the predicate's noun says
    (:data:`~redstring.extraction.name_cues.KIND_NOUNS`), else the recogniser's for a part of
    it; it replaces the parts the recogniser cut it into ("Heinkel")."""
    out = list(mentions)
    for start, end in headings:
        words = [t.text for t in doc[start:end]]
        if "(" in words:
            words = words[: words.index("(")]
        if words and words[0].lower() in ARTICLES:
            words = words[1:]
        if not words or len(words) > _MAX_TITLE:
            continue
        i = end + (end < len(doc) and doc[end].text in _QUOTES)
        if i < len(doc) and doc[i].lower_ == "the":
            i += 1
        j = i + len(words)
        if j >= len(doc) or [t.text for t in doc[i:j]] != words:
            continue
        span = doc[i:j]
        copula = _copula_after(doc, j)
        if copula is None or not _title_case(span):
            continue
        kind = _opening_kind(copula)
        parts = [m for m in out if m.start < j and m.end > i and not m.referring]
        whole = next((m for m in parts if (m.start, m.end) == (i, j)), None)
        label = kind or next((m.label for m in parts if m.label in _TITLE_LABELS), None)
        if label is None:
            continue
        # The title's own pieces ("Lafzon Ki Kahani" of "Do Lafzon Ki Kahani") go too.
        cut = {m.key for m in parts} - {make_mention(span, label).key}
        out = [m for m in out if not (start <= m.start < end and m.key in cut)]
        if whole is None:
            out = [m for m in out if m not in parts]
            whole = make_mention(span, label)
            if not whole.key:
                continue
            out.append(whole)
        if kind is not None:
            whole.label, whole.weight = kind, 2
    return out


def _copula_after(doc: Doc, j: int) -> Token | None:
    """The copula right after a name, past a closing quote and one bracketed aside."""
    if j < len(doc) and doc[j].text in _QUOTES:
        j += 1
    if j < len(doc) and doc[j].text == "(":
        close = next((t.i for t in doc[j:] if t.text == ")"), None)
        j = close + 1 if close is not None else j
    return doc[j] if j < len(doc) and doc[j].lower_ in _COPULAS else None


def _opening_kind(copula: Token) -> str | None:
    """The kind the noun heading a copula's predicate says ("was a 2011 South Korean
    television sitcom"): its complement when parsed so, else the last noun of the first run
    of nouns after it (a parse the opening name confused)."""
    nouns = [c for c in copula.children if c.dep_ == "attr" and c.pos_ == "NOUN"]
    if not nouns:
        run: list[Token] = []
        for token in copula.doc[copula.i + 1 : copula.sent.end]:
            if token.pos_ == "NOUN":
                run.append(token)
            elif run or token.pos_ in {"VERB", "PUNCT", "ADP"}:
                break
        nouns = run[-1:]
    if any(coordinated_person(n) for n in nouns):
        return "PERSON"
    return next((k for n in nouns if (k := KIND_NOUNS.get(n.lemma_.lower())) is not None), None)


def coordinated_person(noun: Token) -> bool:
    """ "X is an Indian film and documentary Director": the parser makes "film" the
    complement and "Director" its conjunct; a kind of person among the nouns coordinated with
    a predicate noun that is not one says what X is (nothing is a film and a director at
    once)."""
    if KIND_NOUNS.get(noun.lemma_.lower()) == "PERSON":
        return False
    return any(
        c.dep_ == "conj"
        and c.pos_ in {"NOUN", "PROPN"}
        and KIND_NOUNS.get(c.lemma_.lower()) == "PERSON"
        for c in noun.subtree
        if c.i > noun.i
    )
