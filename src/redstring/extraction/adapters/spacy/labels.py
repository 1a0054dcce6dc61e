"""Typing: recogniser labels corrected by a name's words and context, made consistent within
a passage, and mapped to the schema's types."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Final

from redstring.domain.schema import EntityTypeSpec, Schema
from redstring.extraction.adapters.spacy.candidates import Mention, coordinated_person
from redstring.extraction.name_cues import (
    BASED_NOUNS,
    KIND_NOUNS,
    PRODUCT_NOUNS,
    ROLE_NOUNS,
    SOFTWARE_NOUNS,
    WORK_NOUNS,
    is_coined,
    label_from_words,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token


DEFAULT_NER_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "Person": ("PERSON",),
    "Organization": ("ORG",),
    "Organisation": ("ORG",),
    "Location": ("GPE", "LOC", "FAC"),
    "Place": ("GPE", "LOC", "FAC"),
    "Product": ("PRODUCT",),
    "Technology": ("SOFTWARE",),
    "Software": ("SOFTWARE",),
    "Event": ("EVENT",),
    "Work": ("WORK_OF_ART",),
}
"""Recogniser labels for well-known type names, used when a type states no ``ner_labels``.

``SOFTWARE`` is no recogniser's label: the rules give it (a software noun, a version, "written
in X", a name the passage's code spells). A schema with no type for it gets its names as the
type ``PRODUCT`` lands on."""


_PLACE_LABELS: Final = frozenset({"GPE", "LOC", "FAC"})


_NAME_LABELS: Final = frozenset(
    {
        "PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "SOFTWARE", "EVENT",
        "WORK_OF_ART", "LAW",
    }
)  # fmt: skip


_VERSION: Final = re.compile(r"^v?\d+(?:\.\d+)+[a-z]?$")
_SPEECH_VERBS: Final = frozenset(
    {"say", "tell", "add", "argue", "explain", "note", "describe", "recall", "write", "think"}
)


_WRITING_VERBS: Final = frozenset({"write", "publish", "author", "co-author", "edit", "read"})


_WORK_MAKERS: Final = frozenset({"author", "writer", "publisher", "editor", "translator"})


_AGENT_ENDINGS: Final = ("ist", "ian")


# "in X" names where, except after these: an investment, a role, or what code is written in.
_NOT_PLACES: Final = frozenset(
    {
        "invest", "investment", "stake", "interest", "share", "role", "write", "implement",
        "code", "program", "develop", "available", "support", "include", "run", "script",
        "use", "build", "document", "express", "change", "feature", "version", "release",
    }
)  # fmt: skip


# On a tied vote a person or organisation wins: a multi-word place name is the rarer reading.
_TIE_ORDER: Final = {
    label: rank
    for rank, label in enumerate(
        ("PERSON", "ORG", "PRODUCT", "SOFTWARE", "EVENT", "WORK_OF_ART", "FAC")
    )
}


def label_map(schema: Schema) -> dict[str, str]:
    """Which schema type each recogniser label lands on.

    A type's own ``ner_labels`` first, then the defaults of well-known type names, then, for a
    type that has neither (a caller's "CreativeWork", "Company"), the labels the words of its
    name and description point to (:data:`~redstring.extraction.name_cues.KIND_NOUNS`: "film",
    "album" and "novel" are ``WORK_OF_ART``): each label goes to the type whose words name it
    most often, a place label bringing the other place labels with it.
    """
    labels: dict[str, str] = {}
    derive: list[EntityTypeSpec] = []
    for spec in schema.entity_types:
        own = spec.ner_labels or DEFAULT_NER_LABELS.get(spec.name, ())
        if not own:
            derive.append(spec)
        for label in own:
            labels.setdefault(label, spec.name)
    votes: dict[str, Counter[str]] = {}
    for spec in derive:
        for word in _words_of(spec):
            kind = KIND_NOUNS.get(word) or _TYPE_WORDS.get(word)
            if kind is not None:
                for each in _PLACE_LABELS if kind == "GPE" else (kind,):
                    votes.setdefault(each, Counter())[spec.name] += 1
    for label, counts in votes.items():
        if label not in labels:
            top = max(counts.values())
            labels[label] = next(s.name for s in derive if counts[s.name] == top)
    if "SOFTWARE" not in labels and "PRODUCT" in labels:
        labels["SOFTWARE"] = labels["PRODUCT"]
    return labels


_TYPE_WORDS: Final = {
    **dict.fromkeys(("person", "people", "human", "individual"), "PERSON"),
    **dict.fromkeys(("organisation", "organization", "group", "institution"), "ORG"),
    **dict.fromkeys(("place", "location", "site", "area", "geographic", "venue"), "GPE"),
    **dict.fromkeys(("event", "occurrence"), "EVENT"),
    **dict.fromkeys(("work", "creative", "artwork", "title"), "WORK_OF_ART"),
    **dict.fromkeys(("product", "vehicle", "aircraft", "device"), "PRODUCT"),
    **dict.fromkeys(
        ("technology", "software", "language", "library", "tool", "protocol"), "SOFTWARE"
    ),
}
"""Words that name a kind in a type's own name or description, beside the kind nouns."""


def _words_of(spec: EntityTypeSpec) -> list[str]:
    """A type's name (split at capitals and separators) and description, lowercase, each word
    also without a plural "s"."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", spec.name) + " " + spec.description
    words = [w.lower() for w in re.findall(r"[A-Za-z-]+", text)]
    return words + [w[:-1] for w in words if w.endswith("s") and len(w) > 3]


def relabelled(span: Span, label: str) -> str:
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
    if _pronouns_follow(span):
        return "PERSON"
    kind = _predicated_kind(root)
    if kind is not None:
        return kind
    if _versioned(span):
        return "SOFTWARE"
    if _written_in(root) or _names_software(root) or _used_as_software(span, root, label):
        return "SOFTWARE"
    if _dateline(span):
        return "GPE"
    if _names_a_product(root, label, coined=len(span) == 1 and is_coined(span.text)):
        return "PRODUCT"
    if label in {"ORG", "PERSON"} and (_names_a_place(root) or _modifies_as_place(root)):
        return "GPE"
    if label in {"GPE", "LOC"} and len(span) > 1 and _acts_as_person(root):
        return "PERSON"
    return label


def _predicated_kind(root: Token) -> str | None:
    """The kind a noun predicating the name says: "X is an American actor" (a copula's
    complement), "X, a village in Y" (an apposition), "the band X" (a kind noun before it)."""
    nouns: list[Token] = []
    if root.dep_ in {"nsubj", "nsubjpass"} and root.head.lemma_ == "be":
        nouns += [c for c in root.head.children if c.dep_ == "attr"]
    nouns += [c for c in root.children if c.dep_ == "appos"]
    nouns += [
        c
        for c in root.children
        if c.dep_ == "compound" and c.i < root.i and any(d.dep_ == "det" for d in c.children)
    ]
    if root.dep_ == "appos" and root.head.pos_ == "NOUN":
        nouns.append(root.head)
    for noun in nouns:
        if coordinated_person(noun):
            return "PERSON"
        if noun.pos_ == "NOUN":
            kind = KIND_NOUNS.get(noun.lemma_.lower())
            if kind is not None:
                return kind
    return None


def _pronouns_follow(span: Span) -> bool:
    """ "Antoine du Hamel (he/him)": the pronouns a person gives right after their name."""
    doc = span.doc
    following = [t.lower_ for t in doc[span.end : span.end + 4]]
    return len(following) >= 2 and following[0] == "(" and following[1] in _PRONOUNS


_PRONOUNS: Final = frozenset({"he", "she", "they", "xe", "ze", "he/him", "she/her", "they/them"})


def _versioned(span: Span) -> bool:
    """ "Python 3.11", "Node.js 18.1": a name with a version number is a product's."""
    doc = span.doc
    following = doc[span.end] if span.end < len(doc) else None
    last = doc[span.end - 1]
    return (len(span) > 1 and bool(_VERSION.match(last.text))) or (
        following is not None and bool(_VERSION.match(following.text))
    )


def _written_in(root: Token) -> bool:
    """ "written in Python", "implemented in C": the language code is written in."""
    return (
        root.dep_ == "pobj"
        and root.head.lower_ == "in"
        and root.head.head.lemma_.lower() in _CODING_VERBS
    )


_CODING_VERBS: Final = frozenset({"write", "implement", "code", "program", "script", "rewrite"})


def _names_software(root: Token) -> bool:
    """ "the Tkinter module", "an SMTP server", "IDLE, an IDE for Python": a name modifying, or
    in apposition with, a software noun."""
    if root.dep_ in {"compound", "amod", "nmod"} and root.head.lemma_.lower() in SOFTWARE_NOUNS:
        return True
    return any(c.dep_ == "appos" and c.lemma_.lower() in SOFTWARE_NOUNS for c in root.children) or (
        root.dep_ == "appos" and root.head.lemma_.lower() in SOFTWARE_NOUNS
    )


def _used_as_software(span: Span, root: Token, label: str) -> bool:
    """What a sentence does with a name says it is software: "install Emacs", "parse XML"
    (the object of a verb done to programs and formats), and for an acronym the recogniser
    read as an organisation, "in HTML", "via SMTP", "over SSH", "as JSON"."""
    if label not in {"ORG", "PERSON", "GPE"}:
        return False
    if root.dep_ == "dobj" and root.head.lemma_.lower() in _SOFTWARE_VERBS:
        return label != "PERSON" or len(span) == 1
    return (
        label == "ORG"
        and len(span) == 1
        and bool(_ACRONYM.match(span.text))
        and root.dep_ == "pobj"
        and root.head.lower_ in {"in", "via", "over", "using", "into", "as"}
    )


_SOFTWARE_VERBS: Final = frozenset(
    {
        "install", "uninstall", "run", "parse", "implement", "encode", "decode", "convert",
        "load", "import", "configure", "enable", "compile", "download", "upgrade", "execute",
        "invoke", "launch", "emulate", "serialize", "serialise",
    }
)  # fmt: skip
_ACRONYM: Final = re.compile(r"^[A-Z][A-Z0-9+#-]{1,7}$")


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


def consistent(mentions: list[Mention]) -> list[Mention]:
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


def coordinated(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """Names in one coordination ("Phil Harris, Eva Gabor and Sterling Holloway"; "C, C++ or
    Java") are of one kind: a name the recogniser only guessed takes the label most of the
    list carries, when the rest of the list outweighs its own guess."""
    by_root = {m.root(doc).i: m for m in mentions}
    groups: dict[int, list[Mention]] = {}
    for mention in mentions:
        token = mention.root(doc)
        while token.dep_ == "conj" and token.head.i != token.i:
            token = token.head
        groups.setdefault(token.i, []).append(mention)
    for head, group in groups.items():
        if head in by_root and by_root[head] not in group:
            group.append(by_root[head])
        if len(group) < 2:
            continue
        for mention in group:
            if mention.weight > 1:
                continue
            others: Counter[str] = Counter()
            for other in group:
                if other is not mention and other.label in _NAME_LABELS:
                    others[other.label] += other.weight
            if not others:
                continue
            label, weight = others.most_common(1)[0]
            if label != mention.label and weight > 1 and weight > others[mention.label]:
                mention.label = label
    return mentions


def surnamed(mentions: list[Mention]) -> list[Mention]:
    """A longer name ending in a word the passage uses alone for a person is a person's
    ("Adaeze Okafor" when "Okafor" is a person), unless an organisation word says otherwise."""
    people = {m.key for m in mentions if m.label == "PERSON" and " " not in m.key}
    for mention in mentions:
        words = mention.key.split()
        if len(words) > 1 and words[-1] in people and mention.label in {"GPE", "LOC", "NORP"}:
            mention.label = "PERSON"
    return mentions


def voted(mentions: list[Mention]) -> list[Mention]:
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
