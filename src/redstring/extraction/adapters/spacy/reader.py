"""Reads one parsed passage into an Extraction for one schema: the steps in order."""

from __future__ import annotations

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
)
from redstring.extraction.adapters.spacy.cues import Cues
from redstring.extraction.adapters.spacy.labels import (
    consistent,
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
from redstring.extraction.name_cues import KIND_NOUNS

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
    ) -> None:
        self._doc = doc
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
        found = [m for m in (self._from_entity(ent) for ent in self._doc.ents) if m]
        found = nicknamed(self._doc, found)
        found += cued(self._doc, found)
        found += predicated(self._doc, found)
        found = surnamed(voted(consistent(found)))
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
        dictionary word capitalised only by its place ("Content is king"), and a user name
        beside the name it stands for ("BethGriggs" by "Beth Griggs")."""
        reason = junk_reason(mention.name)
        if reason is not None:
            return reason
        if mention.end - mention.start == 1:
            token = self._doc[mention.start]
            if token.is_stop or self._capitalised_by_position(token):
                return "junk_phrase"
            if token.lower_ in self._joined_names:
                return "junk_handle"
        if self._in_heading(mention) and mention.name not in self._prose():
            return "junk_heading"
        if self._role_phrase(mention):
            return "junk_phrase"
        return None

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
        """A dictionary word ("Content", "Specifying") capitalised only because it opens a
        sentence or a block: nowhere in the passage is it capitalised mid-sentence."""
        if token.i != token.sent.start or token.lemma_.lower() not in self._dictionary:
            return False
        return not any(
            other.text == token.text and other.i != other.sent.start
            for other in self._doc
            if other.i != token.i
        )

    def _in_heading(self, mention: Mention) -> bool:
        return any(start <= mention.start < end for start, end in self._headings)

    def _prose(self) -> str:
        if self._prose_text is None:
            inside = {i for start, end in self._headings for i in range(start, end)}
            self._prose_text = " ".join(t.text for t in self._doc if t.i not in inside)
        return self._prose_text

    def _from_entity(self, ent: Span) -> Mention | None:
        bounds = clean_bounds(ent)
        if bounds is None:
            return None
        span = self._doc[bounds[0] : bounds[1]]
        label = relabelled(span, ent.label_)
        mention = make_mention(span, label)
        # A label the name's words or context gave outvotes the recogniser's guesses.
        mention.weight = 1 if label == ent.label_ else 2
        return mention if mention.key else None

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
                words = (token.lemma_.lower(),)
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
