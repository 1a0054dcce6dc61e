"""Relation cues: the words that say a relationship type holds, stated or derived.

A relationship type's cues are its ``triggers`` (verbs stated subject first) and
``inverse_triggers`` (object first) when the schema gives any. When it gives neither, they
are derived from its own words, parsed by the same pipeline:

* its name, read as a phrase ("WORKS_FOR" as "works for", "DIRECTED_BY" as "directed by",
  "CAPITAL_OF" as "capital of"): a verb is a cue, object first when it is a participle
  followed by "by"; a noun is a noun cue ("X is the capital of Y"), object first after
  "has" ("HAS_CAPITAL");
* its description: every verb but the light ones (:data:`~redstring.extraction.relation_words.
  LIGHT_VERBS`), object first when passive with an agent ("is employed by"; "is located in"
  keeps the subject first), and every noun that governs a preposition as a predicate ("is a
  member of the band");
* each derived verb also stands for the verbs of its group
  (:func:`~redstring.extraction.relation_words.same_relation`: "based" for "located"), and
  each derived noun for the nouns of its group
  (:func:`~redstring.extraction.relation_words.same_noun`: "bassist of" for "member of").

A derived verb cue is matched on its lemma (and a phrasal particle such as "over"), never its
prepositions, which only introduce the endpoints. Derivation runs once per schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from redstring.domain.schema import RelationshipTypeSpec, Schema
from redstring.extraction.relation_words import (
    INVERSE_NOUNS,
    LIGHT_VERBS,
    same_noun,
    same_relation,
)

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Token

_AGENT_SUFFIXES: Final = ("er", "or", "ee", "ant", "ent", "ist")
_CAMEL: Final = re.compile(r"(?<=[a-z])(?=[A-Z])")
_POSSESSING: Final = frozenset({"has", "have", "had"})
_PREDICATE_ARCS: Final = frozenset({"attr", "appos", "ROOT", "conj", "acomp", "oprd"})


@dataclass(frozen=True)
class Cues:
    """What says one relationship type: verbs (each a lemma, then particles) and nouns."""

    forward: tuple[tuple[str, ...], ...] = ()
    inverse: tuple[tuple[str, ...], ...] = ()
    nouns: frozenset[str] = frozenset()
    inverse_nouns: frozenset[str] = frozenset()
    derived: bool = False
    own: frozenset[str] = frozenset()
    """The verbs a derived cue took from the type's own words, before their groups."""

    def confirms_guess(self, verb: str) -> bool:
        """Whether a verb a construction only implies may stand for this type: always for
        stated triggers; for derived cues only where a thing is ("the Aldmere firm" as "based
        in", when the type's own words say "located") and what an organisation makes ("B's
        A" as "makes", when they say "make"). A person beside an organisation or a work has
        too many unsaid verbs (employed by, member of, owner of; wrote, sang, directed) for a
        description to choose among."""
        if not self.derived:
            return True
        if verb in {"base", "locate"}:
            return "locate" in self.own or "base" in self.own
        return verb == "make" and verb in self.own

    def directions(self, words: tuple[str, ...], *, nominal: bool) -> Iterator[bool]:
        """True for each cue the words match subject first, False for each object first.

        A noun reads like its verb ("founder of" like "found"), except that an "-ee" noun
        names the relationship's subject either way ("employee of", "attendee of").
        """
        head = words[0]
        for cues, forward in ((self.forward, True), (self.inverse, False)):
            for parts in cues:
                if nominal:
                    if not parts[1:] and agent_noun(head, parts[0]):
                        yield forward or head.endswith("ee")
                    elif parts[1:] and head == parts[0] and words[1:] == parts[1:]:
                        yield forward  # a noun trigger and its preposition: "part of"
                elif head == parts[0] and all(part in words[1:] for part in parts[1:]):
                    yield forward
        if nominal and head in self.nouns:
            yield True
        if nominal and head in self.inverse_nouns:
            yield False

    def __bool__(self) -> bool:
        return bool(self.forward or self.inverse or self.nouns or self.inverse_nouns)


def stated(spec: RelationshipTypeSpec) -> Cues:
    """The cues ``spec`` states itself (its triggers), exactly as written."""
    return Cues(
        forward=tuple(tuple(t.lower().split()) for t in spec.triggers if t.strip()),
        inverse=tuple(tuple(t.lower().split()) for t in spec.inverse_triggers if t.strip()),
    )


def schema_cues(schema: Schema, nlp: Language) -> dict[str, Cues]:
    """Every relationship type's cues: stated when it has triggers, else derived."""
    found: dict[str, Cues] = {}
    for spec in schema.relationship_types:
        own = stated(spec)
        found[spec.name] = own if own else derived(spec, nlp, schema)
    return found


def derived(spec: RelationshipTypeSpec, nlp: Language, schema: Schema) -> Cues:
    """Cues from ``spec``'s name and description (see the module docstring)."""
    forward: set[tuple[str, ...]] = set()
    inverse: set[tuple[str, ...]] = set()
    nouns: set[str] = set()
    inverse_nouns: set[str] = set()
    words = [w.lower() for w in re.split(r"[_\s-]+", _CAMEL.sub(" ", spec.name)) if w]
    if words and words[0] in {"is", "be", "was"}:
        words = words[1:]
    if words and words[0] in _POSSESSING and len(words) > 1:
        inverse_nouns.add(_lemma(nlp, " ".join(words[1:])))
    elif words:
        phrase = nlp(f"It {' '.join(words)} them.")
        head = phrase[1]
        if head.tag_.startswith("VB") and head.lemma_.lower() not in LIGHT_VERBS:
            particles = tuple(t.lower_ for t in head.children if t.dep_ == "prt")
            passive = head.tag_ == "VBN" and "by" in words
            (inverse if passive else forward).add((head.lemma_.lower(), *particles))
        elif head.pos_ in {"NOUN", "PROPN", "ADJ"} or len(words) == 1:
            nouns.add(_lemma(nlp, words[0]))
    types = _type_words(schema)
    if spec.description.strip():
        for token in nlp(spec.description):
            _description_cue(token, types, forward, inverse, nouns)
    for noun in nouns:
        inverse_nouns.update(INVERSE_NOUNS.get(noun, ()))
    nouns = {grouped for noun in nouns for grouped in same_noun(noun)}
    return Cues(
        forward=_grouped(forward),
        inverse=_grouped(inverse),
        nouns=frozenset(nouns),
        inverse_nouns=frozenset(inverse_nouns - nouns),
        derived=True,
        own=frozenset(cue[0] for cue in forward | inverse),
    )


def _description_cue(
    token: Token,
    types: set[str],
    forward: set[tuple[str, ...]],
    inverse: set[tuple[str, ...]],
    nouns: set[str],
) -> None:
    lemma = token.lemma_.lower()
    if token.pos_ == "VERB" and lemma not in LIGHT_VERBS:
        particles = tuple(t.lower_ for t in token.children if t.dep_ == "prt")
        # Passive with an agent ("is employed by the organisation") puts the relationship's
        # object first; without one ("is located in") the subject stays first.
        passive = token.tag_ == "VBN" and any(
            c.dep_ == "agent" or (c.dep_ == "prep" and c.lower_ == "by") for c in token.children
        )
        (inverse if passive else forward).add((lemma, *particles))
    elif (
        token.pos_ == "NOUN"
        and lemma not in types
        and token.dep_ in _PREDICATE_ARCS
        and any(c.dep_ == "prep" and c.lower_ in {"of", "for", "at", "to"} for c in token.children)
    ):
        nouns.add(lemma)


def _grouped(cues: set[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """Each verb cue and the verbs of its group, with their particles."""
    out: set[tuple[str, ...]] = set()
    for lemma, *particles in cues:
        for verb in same_relation(lemma):
            out.add((verb, *particles))
    return tuple(sorted(out))


def _type_words(schema: Schema) -> set[str]:
    """Lowercase words of the entity types' names: nouns naming an endpoint, not a relation."""
    words = {"thing", "entity", "one", "other", "kind", "type", "name"}
    for spec in schema.entity_types:
        words.update(w.lower() for w in re.split(r"[_\s-]+", _CAMEL.sub(" ", spec.name)) if w)
    return words


def _lemma(nlp: Language, word: str) -> str:
    doc = nlp(f"the {word}")
    return doc[-1].lemma_.lower() if len(doc) > 1 else word


def agent_noun(noun: str, verb: str) -> bool:
    """``noun`` names who does (or undergoes) ``verb``: founder, maker, employee, resident."""
    if noun == verb:
        return verb.endswith(("er", "or"))
    stems = {verb, verb.removesuffix("e"), verb.removesuffix("ate")}
    return any(
        len(stem) >= 3 and noun.startswith(stem) and noun[len(stem) :] in _AGENT_SUFFIXES
        for stem in stems
    )
