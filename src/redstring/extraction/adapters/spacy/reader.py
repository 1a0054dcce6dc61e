"""Reads one parsed passage into an Extraction for one schema: the steps in order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from redstring.domain.extraction import ExtractedEntity, ExtractedRelationship, Extraction
from redstring.domain.schema import Schema
from redstring.extraction.adapters.spacy.candidates import (
    Mention,
    clean_bounds,
    cued,
    make_mention,
    nicknamed,
    predicated,
    recurrences,
    titled,
)
from redstring.extraction.adapters.spacy.cues import Cues
from redstring.extraction.adapters.spacy.labels import (
    consistent,
    coordinated,
    label_map,
    relabelled,
    surnamed,
    voted,
)
from redstring.extraction.adapters.spacy.relations import (
    MAX_PATH,
    dependency_path,
    implicit,
    noun_order,
    references,
    verb_order,
    verb_words,
)
from redstring.extraction.junk import junk_reason
from redstring.extraction.name_cues import (
    EVENT_WORDS,
    KIND_NOUNS,
    ORGANISATION_WORDS,
    is_coined,
    label_from_words,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token


def _listed_places(doc: Doc, a: Mention, b: Mention) -> bool:
    """``a`` and ``b`` are places written one after the other with a comma between, and the
    run of places they stand in is no coordination ("in Alabama, Indiana, and Ohio")."""
    if not (
        a.label in _PLACE_LABELS
        and b.label in _PLACE_LABELS
        and b.start == a.end + 1
        and doc[a.end].text == ","
    ):
        return False
    sentence = doc[a.start].sent
    i = b.end
    while i < sentence.end and (doc[i].text == "," or doc[i].text[:1].isupper()):
        i += 1
    return not (i < sentence.end and doc[i].lower_ in {"and", "or"})


_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
_PEOPLE = frozenset({"PERSON", "NORP"})
_INITIAL = re.compile(r"^[A-Z]\.$")
_OBJECT_PRONOUNS = frozenset({"me", "you", "it", "us", "him", "her", "them"})


def _person_shaped(span: Span) -> bool:
    """Two to four capitalised words of letters, none all capitals: "Linus Torvalds" (a
    software name has one word, or a digit, an acronym or a capital inside a word)."""
    words = [t for t in span if not t.is_punct]
    return 2 <= len(words) <= 4 and all(
        t.is_alpha and t.text[:1].isupper() and t.text[1:].islower() for t in words
    )


def _splits(token: Token) -> bool:
    """A comma, an "or" or a spaced slash inside a recogniser's span joins names ("Linux,
    Mac", "Modernize or Futurize", "Red Hat / IBM"); "and" and "&" stay ("Kiln & Carrow")."""
    if token.text == ",":
        return True
    return token.lower_ == "or" or (token.text == "/" and bool(token.whitespace_))


_OPENERS = frozenset({":", "(", "-", "\u2013", "\u2014", "|"})
# A quote is no opener: one quoted capitalised word is a title ("Inertia", "Charmed").


def _spells(acronym: str, words: list[str]) -> bool:
    """ "AO" by "Abort output", "NOP" by "No Operation", "BRK" by "Break": the words' initials
    are the acronym, or one word holds its letters in order from its first."""
    letters = acronym.lower()
    if len(words) > 1:
        return "".join(w[0] for w in words).lower() == letters
    word = words[0].lower()
    if not word.startswith(letters[0]):
        return False
    rest = iter(word[1:])
    return all(letter in rest for letter in letters[1:])


class Reader:
    """Reads one parsed passage into an Extraction for one schema."""

    def __init__(
        self,
        doc: Doc,
        schema: Schema,
        cues: dict[str, Cues],
        cooccurrence: str | None,
        headings: list[tuple[int, int]] | None = None,
        dictionary: frozenset[str] = frozenset(),
        *,
        code: frozenset[str] = frozenset(),
        people: frozenset[str] = frozenset(),
        handles: frozenset[str] = frozenset(),
        verbs: frozenset[str] = frozenset(),
    ) -> None:
        self._doc = doc
        self._verbs = verbs
        self._people = people
        self._handles = handles
        self._code = code
        self._code_lower = frozenset(word.lower() for word in code)
        self._dictionary = dictionary
        self._joined_names: set[str] = set()
        self._headings = headings or []
        self._schema = schema
        self._cues = cues
        self._cooccurrence = (
            cooccurrence if cooccurrence and schema.relationship_type(cooccurrence) else None
        )
        self._labels = label_map(schema)
        self._dropped: dict[str, int] = {}
        self._prose_text: str | None = None
        self._lowercase: frozenset[str] | None = None

    def extraction(self) -> Extraction:
        mentions = self._mentions()
        entities: dict[tuple[str, str], ExtractedEntity] = {}
        for mention in mentions:
            if not mention.referring:
                entities.setdefault(
                    (mention.key, mention.type),
                    ExtractedEntity(name=mention.name, type=mention.type),
                )
        relationships = self._relationships(mentions + references(self._doc, mentions))
        return Extraction(
            entities=list(entities.values()),
            relationships=relationships,
            dropped=dict(self._dropped),
        )

    # --- entities ------------------------------------------------------------------------

    def _mentions(self) -> list[Mention]:
        found = self._people_named([m for ent in self._doc.ents for m in self._from_entity(ent)])
        found = nicknamed(self._doc, found)
        found += cued(self._doc, found)
        found += predicated(self._doc, found)
        found = titled(self._doc, self._headings, found)
        for mention in found:
            if self._in_heading(mention):
                mention.weight = 0  # a title has no context: the prose says what it names
        found = surnamed(voted(coordinated(self._doc, consistent(found))))
        found += recurrences(self._doc, found)
        mentions: list[Mention] = []
        refused: dict[str, str] = {}
        self._joined_names = {m.key.replace(" ", "") for m in found if " " in m.key}
        for mention in found:
            kind = self._labels.get(mention.label)
            if kind is None:
                continue
            reason = self._junk(mention)
            if reason is not None:
                refused.setdefault(mention.key, reason)
                continue
            mention.type = kind
            mentions.append(mention)
        chunk_type = next((s.name for s in self._schema.entity_types if s.noun_chunks), None)
        if chunk_type is not None:
            for mention in self._noun_chunks(chunk_type, mentions):
                reason = junk_reason(mention.name)
                if reason is None or reason == "junk_phrase":  # a noun phrase is lowercase
                    mentions.append(mention)
                else:
                    refused.setdefault(mention.key, reason)
        for reason in refused.values():
            self._dropped[reason] = self._dropped.get(reason, 0) + 1
        return sorted(mentions, key=lambda m: m.start)

    def _junk(self, mention: Mention) -> str | None:
        """Why the mention is not a name (:mod:`redstring.extraction.junk`), or ``None``; a
        lone common word ("This", "Note") is a phrase too, and so is a heading's candidate that
        the passage's prose never names ("Getting Started"; "Adaeze Okafor" is named below), a
        dictionary word capitalised only by its place ("Content is king"), a user name
        beside the name it stands for ("BethGriggs" by "Beth Griggs"), one word exclaimed or
        read as an adjective or verb ("Woohoo!", "the Formatted string literals"), and an
        acronym of a term its bracket spells out ("AO (Abort output)")."""
        reason = junk_reason(mention.name)
        if reason is not None:
            return reason
        if mention.name in self._code and not mention.name.isupper():
            return "junk_code"  # "TypeVar" where the passage's code writes `TypeVar`
        if mention.name in self._handles:
            return "junk_handle"
        if self._path_head(mention):
            return "junk_path"
        if self._term(mention) or self._section_title(mention) or self._instruction(mention):
            return "junk_phrase"
        last = self._doc[mention.end - 1]
        if (
            mention.end - mention.start > 1
            and last.is_stop
            and last.is_alpha
            and last.lower_ not in _OBJECT_PRONOUNS
            and mention.label != "WORK_OF_ART"
        ):
            # "W. That", "W. Such": a name never ends in a stop word, but a title may
            # ("Release Me", "Only You", "Let It Be").
            return "junk_phrase"
        if mention.end - mention.start == 1:
            token = self._doc[mention.start]
            if (
                token.is_upper
                and token.is_alpha
                and len(token) >= 4
                and token.lower_ in self._dictionary
            ):
                return "junk_heading"  # "LOCAL", "MERGED": a word in capitals, a label
            if token.is_stop or self._capitalised_by_position(token) or self._not_a_noun(token):
                return "junk_phrase"
            if self._abbreviated_term(token):
                return "junk_common_noun"
            if token.lower_ in self._joined_names:
                return "junk_handle"
        if self._in_heading(mention) and mention.name not in self._prose():
            return "junk_heading"
        if self._role_phrase(mention):
            return "junk_phrase"
        return None

    def _not_a_noun(self, token: Token) -> bool:
        """ "Woohoo!", "the Formatted string literals": one word exclaimed as a sentence of its
        own, or that the parser reads as an interjection, or a dictionary word it reads as an
        adjective or a verb, names nothing."""
        sentence = token.sent
        alone = [t for t in sentence if not t.is_punct] == [token]
        if token.pos_ == "INTJ" or (alone and sentence[-1].text == "!"):
            return True
        return token.pos_ in {"ADJ", "VERB"} and (
            token.lower_ in self._dictionary or token.lemma_.lower() in self._dictionary
        )

    def _abbreviated_term(self, token: Token) -> bool:
        """ "AO (Abort output)", "BRK (Break)", "EC (Erase Character)": an acronym whose
        bracketed expansion right after it spells it in dictionary words, the last of them no
        kind, organisation or event word, abbreviates a term, not a name. "WBA (Super)" spells
        nothing; "NIST (National Institute of Standards and Technology)" and "SQL (Structured
        Query Language)" end in a kind word: all three are names."""
        if not (token.is_upper and token.is_alpha and len(token) >= 2):
            return False
        doc = self._doc
        if token.i + 2 >= len(doc) or doc[token.i + 1].text != "(":
            return False
        words: list[Token] = []
        for other in doc[token.i + 2 : min(len(doc), token.i + 8)]:
            if other.text == ")":
                break
            words.append(other)
        else:
            return False
        if not words or not all(w.is_alpha and w.lower_ in self._dictionary for w in words):
            return False
        last = words[-1].lemma_.lower()
        if last in ORGANISATION_WORDS or last in KIND_NOUNS or last in EVENT_WORDS:
            return False
        return _spells(token.text, [w.text for w in words])

    def _instruction(self, mention: Mention) -> bool:
        """ "Install Python", "Enable Profile Guided Optimization", "Modify": a candidate
        opening with a word that is only ever a verb is an instruction or a button's label. A
        work's title may be one ("Forget Paris"), and a person's given name ("Rob Zombie",
        "Harry Shearer"), so works and people are kept."""
        first = self._doc[mention.start]
        return (
            mention.label not in {"WORK_OF_ART", "PERSON"}
            and first.is_alpha
            and first.lower_ in self._verbs
            and not first.is_upper
        )

    def _path_head(self, mention: Mention) -> bool:
        """ "Documentation/*.jpg": the first part of a path, a slash right after it."""
        end = mention.end
        return (
            end < len(self._doc)
            and self._doc[end].text.startswith("/")
            and not self._doc[end - 1].whitespace_
        )

    def _people_named(self, found: list[Mention]) -> list[Mention]:
        """A name the raw text writes as a person's ("Italo A. Casas <...>") is one person's
        mention, whatever pieces the recogniser cut it into ("Italo A.", "Casas")."""
        if not self._people:
            return found
        texts = [t.text for t in self._doc]
        for name in self._people:
            words = name.replace(".", ". ").split()
            for start in range(len(texts)):
                end = self._match_words(start, words)
                if end is None:
                    continue
                found = [m for m in found if m.end <= start or m.start >= end]
                mention = make_mention(self._doc[start:end], "PERSON")
                mention.weight = 2
                if mention.key:
                    found.append(mention)
        return found

    def _match_words(self, start: int, words: list[str]) -> int | None:
        """The end of the tokens from ``start`` that spell ``words``, or ``None``."""
        i, joined, wanted = start, "", "".join(words)
        while i < len(self._doc) and len(joined) < len(wanted):
            joined += self._doc[i].text
            i += 1
        return i if joined == wanted and self._doc[start].text[:1].isupper() else None

    def _technical_guess(self, span: Span, label: str) -> str | None:
        """What a recogniser's unsupported guess is in a passage with code: "Perl", "SMTP",
        "Tk", "Emacs", "NumPy", "Python 4" a technology; "Linus Torvalds" (a full name of
        words no dictionary holds) a person; ``None`` to keep the guess."""
        before = self._doc[span.start - 1].text if span.start > 0 else None
        if label_from_words([t.text for t in span], before) is not None:
            return None
        last = span[-1]
        if len(span) > 1 and last.is_digit and len(last) <= 2:
            return "SOFTWARE"  # "Python 4", "Perl 5": a name with a release number
        if label in {"GPE", "LOC"}:
            return "SOFTWARE" if len(span) == 1 and is_coined(span.text) else None
        if label == "PERSON":
            return "SOFTWARE" if len(span) == 1 and span.text not in self._people else None
        if label not in {"ORG", "PRODUCT"}:
            return None
        if _person_shaped(span):
            unknown = [t.lower_ not in self._dictionary for t in span if t.is_alpha]
            return "PERSON" if label == "ORG" and all(unknown[1:]) else None
        return "SOFTWARE"

    def _term(self, mention: Mention) -> bool:
        """ "Regular Expression Syntax", "Interactive Mode": a title-case run of dictionary
        words whose last word the passage also writes in lowercase is a term, unless that word
        says what kind of thing it names ("Python Software Foundation")."""
        every = [t for t in self._doc[mention.start : mention.end] if not t.is_punct]
        words = [t for t in every if not _INITIAL.match(t.text)]  # "A. Parent": "Parent"
        if not words or len(every) < 2 or not all(t.is_alpha for t in words):
            return False
        last = words[-1].lemma_.lower()
        if last in ORGANISATION_WORDS or last in KIND_NOUNS or last in EVENT_WORDS:
            return False
        if not all(t.lower_ in self._dictionary or t.lemma_ in self._dictionary for t in words):
            return False
        if self._lowercase is None:
            self._lowercase = frozenset(
                form for t in self._doc if t.is_lower for form in (t.text, t.lemma_)
            )
        return words[-1].lower_ in self._lowercase or last in self._lowercase

    def _section_title(self, mention: Mention) -> bool:
        """ "Managing Global State", "Writing Tests": a title opening with a gerund of a
        dictionary verb and going on in dictionary words names a section, not a thing."""
        words = [t for t in self._doc[mention.start : mention.end] if t.is_alpha]
        if len(words) < 2 or not words[0].lower_.endswith("ing"):
            return False
        stem = words[0].lower_[:-3]
        if not ({stem, stem + "e", stem[:-1]} & self._dictionary) or len(stem) < 3:
            return False
        return all(t.lower_ in self._dictionary or t.lemma_ in self._dictionary for t in words)

    def _spelled_in_code(self, span: Span) -> bool:
        """ "Git" where the passage's code runs ``git``: a one-word name whose lowercase form
        the code writes is the program's or the language's (the name written exactly as the
        code writes it is an identifier, refused as ``junk_code``)."""
        word = span.text
        return (
            len(span) == 1
            and word not in self._code
            and word.lower() in self._code_lower
            and word[:1].isupper()
        )

    def _role_phrase(self, mention: Mention) -> bool:
        """ "He is also Story Writer": a predicate of common words ending in a person's role
        noun names a role, not a person."""
        words = [t for t in self._doc[mention.start : mention.end] if t.is_alpha]
        if len(words) < 2 or KIND_NOUNS.get(words[-1].lemma_.lower()) != "PERSON":
            return False
        if mention.root(self._doc).dep_ not in {"attr", "oprd", "conj"}:
            return False  # only a predicate: "he is also Story Writer", never "by Stephen King"
        return all(t.lemma_.lower() in self._dictionary for t in words)

    def _capitalised_by_position(self, token: Token) -> bool:
        """A dictionary word ("Content", "Types") capitalised only where its place explains
        the capital: opening a sentence or a block, after a colon, bracket or dash, or
        inside a title ("Built-in Types", "Fixed Set of Keys"); nowhere in the passage is it
        capitalised where nothing explains it."""
        if token.lemma_.lower() not in self._dictionary or not self._explained(token):
            return False
        return not any(
            other.text == token.text and not self._explained(other)
            for other in self._doc
            if other.i != token.i
        )

    def _explained(self, token: Token) -> bool:
        """The capital of ``token`` is its place's: see :meth:`_capitalised_by_position`."""
        doc, start = self._doc, token.sent.start
        if token.i == start or doc[token.i - 1].text in _OPENERS:
            return True
        k = token.i - 1  # the first token of the word before (hyphens join: "Built-in")
        if not (doc[k].is_alpha or doc[k].text == "-"):
            k = start  # a comma or a bracket between: no title runs through it
        while k - 1 >= start and not doc[k - 1].whitespace_:
            k -= 1
        after = token.i + 1
        return (k > start and doc[k].text[:1].isupper() and doc[k].is_alpha) or (
            after < token.sent.end and doc[after].is_title and doc[after].is_alpha
        )

    def _in_heading(self, mention: Mention) -> bool:
        return any(start <= mention.start < end for start, end in self._headings)

    def _prose(self) -> str:
        if self._prose_text is None:
            inside = {i for start, end in self._headings for i in range(start, end)}
            self._prose_text = " ".join(t.text for t in self._doc if t.i not in inside)
        return self._prose_text

    def _from_entity(self, ent: Span) -> list[Mention]:
        """The recogniser's span as mentions: one per part between its commas ("Linux, Mac"
        is two names, a list the recogniser read as one), each cleaned and relabelled."""
        found: list[Mention] = []
        start = ent.start
        cuts = [t.i for t in ent if _splits(t)]
        if ent.label_ not in {"WORK_OF_ART", "EVENT", "LAW"}:
            # "Python 2's Unicode features": the possessor is the name, the rest is what it has.
            # A possessive inside a title-case name is part of it ("Women's National
            # Basketball League"): only a lowercase word after it shows a possession.
            owned = next((t.i for t in ent if t.tag_ == "POS" and t.i < ent.end - 1), None)
            after = self._doc[owned + 1 : ent.end] if owned is not None else None
            if owned is not None and after is not None and any(t.is_lower for t in after):
                cuts = [i for i in cuts if i < owned] + [owned]
        for i in [*cuts, ent.end]:
            bounds = clean_bounds(self._doc[start:i]) if i > start else None
            start = i + 1
            if i != ent.end and self._doc[i].tag_ == "POS":
                start = ent.end  # nothing after the possessive is a name of this span
            if bounds is None:
                continue
            span = self._doc[bounds[0] : bounds[1]]
            label = relabelled(span, ent.label_)
            if span.text in self._people:
                label = "PERSON"
            elif label == ent.label_ and label not in _PEOPLE and self._spelled_in_code(span):
                label = "SOFTWARE"
            elif label == ent.label_ and self._code:
                # In a passage with code, a name only guessed an organisation, a product or
                # (in one word) a person is a tool's, a language's or a format's far more
                # often; one shaped like a person's full name is a person's.
                guess = self._technical_guess(span, label)
                if guess is not None:
                    mention = make_mention(span, guess)
                    if mention.key:
                        found.append(mention)
                    continue
            mention = make_mention(span, label)
            # A label the name's words or context gave outvotes the recogniser's guesses.
            mention.weight = 1 if label == ent.label_ else 2
            if mention.key:
                found.append(mention)
        return found

    def _noun_chunks(self, kind: str, mentions: list[Mention]) -> list[Mention]:
        taken = {i for m in mentions for i in range(m.start, m.end)}
        found: list[Mention] = []
        for chunk in self._doc.noun_chunks:
            if chunk.root.pos_ == "PRON" or any(t.i in taken for t in chunk):
                continue
            bounds = clean_bounds(chunk, name=False)
            if bounds is not None:
                found.append(make_mention(self._doc[bounds[0] : bounds[1]], "NOUN_CHUNK", kind))
        return [m for m in found if m.key]

    # --- relationships -------------------------------------------------------------------

    def _relationships(self, mentions: list[Mention]) -> list[ExtractedRelationship]:
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

    def _pairs(self, mentions: list[Mention]) -> Iterator[tuple[Mention, Mention]]:
        for sentence in self._doc.sents:
            inside = sorted(
                (m for m in mentions if sentence.start <= m.start < sentence.end),
                key=lambda m: m.start,
            )
            for i, first in enumerate(inside):
                for second in inside[i + 1 :]:
                    if first.key != second.key:
                        yield first, second

    def _matches(self, a: Mention, b: Mention) -> Iterator[tuple[str, Mention, Mention, bool]]:
        root_a, root_b = a.root(self._doc), b.root(self._doc)
        path = dependency_path(root_a, root_b)
        if path is None or len(path) > MAX_PATH:
            return
        inner = [t for t in path if not (a.start <= t.i < a.end or b.start <= t.i < b.end)]
        seen: set[tuple[str, str, str]] = set()
        readings: list[tuple[tuple[str, ...], bool, bool, bool]]
        if _listed_places(self._doc, a, b):
            # "Columbus, Ohio", "Honolulu County, Hawaii, United States": each place is in the
            # one written after it, whatever the parser made of the commas.
            readings = [(("locate", "in"), True, False, False)]
            stated = False
        else:
            readings = [(*r, False) for r in self._explicit(inner, path, root_a, root_b)]
            stated = bool(readings)
            if not stated:
                readings = list(implicit(root_a, root_b, inner))
        for words, a_first, nominal, weak in readings:
            first, second = (a, b) if a_first else (b, a)
            for spec in self._schema.relationship_types:
                cues = self._cues[spec.name]
                if weak and not cues.confirms_guess(words[0]):
                    continue  # a guessed verb needs the type's own words to confirm it
                for direction in cues.directions(words, nominal=nominal):
                    subject, obj = (first, second) if direction else (second, first)
                    if cues.derived and not self._schema.allows(spec.name, subject.type, obj.type):
                        # A cue derived from a description knows its verb, not always its
                        # voice ("the film stars X"): the endpoint types decide the direction.
                        subject, obj = obj, subject
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
                ordered = verb_order(token, root_a, root_b)
                words = verb_words(token, path)
            elif token.pos_ in {"NOUN", "PROPN"}:
                ordered = noun_order(token, root_a, root_b, path)
                on_path = {t.i for t in path}
                words = (
                    token.lemma_.lower(),
                    *(c.lower_ for c in token.children if c.dep_ == "prep" and c.i in on_path),
                )
            else:
                continue
            if ordered is None:
                continue
            nominal = token.pos_ not in {"VERB", "AUX"}
            if any(
                True
                for spec in self._schema.relationship_types
                for _ in self._cues[spec.name].directions(words, nominal=nominal)
            ):
                yield words, ordered, nominal
