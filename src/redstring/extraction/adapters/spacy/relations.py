"""Relation cues: the dependency path between two mentions, who does what on it, and the
words that must match a relationship type's cues."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from redstring.extraction.adapters.spacy.candidates import Mention
from redstring.extraction.name_cues import KIND_NOUNS

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token


_SUBJECT: Final = 0


_OBJECT: Final = 1


_OBLIQUE: Final = 2


_SUBJECT_ARCS: Final = frozenset({"nsubj", "csubj", "agent"})


_OBJECT_ARCS: Final = frozenset({"dobj", "nsubjpass", "attr", "oprd", "dative", "csubjpass"})


_REFERRING: Final = {
    **dict.fromkeys(("he", "she", "him", "her", "his", "hers"), "PERSON"),
    **dict.fromkeys(("it", "its"), "THING"),
}
# What "it" may stand for: anything named but a person.
_THINGS: Final = frozenset({"ORG", "WORK_OF_ART", "PRODUCT", "EVENT", "FAC", "GPE", "LOC"})


_KIND_REFERENCES: Final = {
    noun: label for noun, label in KIND_NOUNS.items() if label not in {"PERSON", "PRODUCT"}
}
_COMPANY_NOUNS: Final = frozenset({"company", "firm", "business", "start-up", "startup"})


_CLAUSE_SUBJECTS: Final = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})


_NOMINAL_ARCS: Final = frozenset({"appos", "attr", "conj", "nsubj", "compound", "npadvmod"})


MAX_PATH: Final = 8


def implicit(
    a: Token, b: Token, inner: list[Token]
) -> Iterator[tuple[tuple[str, ...], bool, bool, bool]]:
    """Readings of constructions that leave their verb unsaid, as the verb they imply.

    "A, chief engineer at B" and "A of B" read as "A works at/of B"; "A, B" in apposition as
    "A works at B" or "A is based in B"; "the B firm A" (B a modifier) as "A is based in B" or
    "A works at B"; "B's A" as "B makes A" or "A works for B". Each reading still has to match
    one of the schema's triggers and its endpoint types, so the schema decides what, if
    anything, a construction means. The last element marks a weak reading (a possessive, a
    modifier, a bare "of", "by" or "in"): a guess that a derived cue accepts only for the
    type's own verbs (:meth:`Cues.confirms_guess`).
    """
    for first, second, forward in ((a, b, True), (b, a, False)):
        if len(inner) == 2 and _role_noun(inner[0], first) and _preposition_of(inner[1], second):
            yield ("work", inner[1].lower_), forward, False, inner[1].lower_ == "of"
        if (
            len(inner) in {3, 4}
            and inner[0].lemma_ == "be"
            and _subject_of_copula(inner[1], first)
            and inner[1].pos_ == "NOUN"
            and inner[2].head.i == inner[1].i
            and (
                _preposition_of(inner[2], second)
                if len(inner) == 3
                else _preposition_of(inner[2], inner[3])
                and _place_noun(inner[3])
                and second.dep_ == "compound"
                and second.head.i == inner[3].i
                and inner[2].lower_ in {"in", "near", "from"}
            )
        ):  # the fourth word: "A is a town in the B region"
            # "A is a town in B" and "A is a band from B" say where A is; "A is a professor
            # at B" whom A works for.
            if inner[2].lower_ in {"in", "near", "from"}:
                yield ("locate", "in"), forward, False, False
            else:
                yield ("work", inner[2].lower_), forward, False, inner[2].lower_ == "of"
        if len(inner) == 2 and _whose(inner, first, second):
            yield ("make",), forward, False, True
            yield ("work", "for"), not forward, False, True
        if (
            len(inner) == 1
            and inner[0].head.i == first.i
            and inner[0].lower_ in {"of", "at", "for", "with"}
            and _preposition_of(inner[0], second)
        ):
            yield ("work", inner[0].lower_), forward, False, True
        if not inner and second.dep_ == "appos" and second.head.i == first.i:
            yield ("work", "at"), forward, False, True
            yield ("base", "in"), forward, False, True
        if first.dep_ == "compound" and _modifies(first, second, inner):
            yield ("base", "in"), not forward, False, True
            yield ("work", "at"), not forward, False, True
        if first.dep_ == "poss" and _modifies(first, second, inner):
            yield ("make",), forward, False, True
            yield ("write",), forward, False, True
            yield ("work", "for"), not forward, False, True
        if len(inner) == 1 and inner[0].head.i == first.i and _preposition_of(inner[0], second):
            if inner[0].lower_ == "by":
                yield ("write",), not forward, False, True
                yield ("make",), not forward, False, True
            elif inner[0].lower_ == "in":
                yield ("locate", "in"), forward, False, True


def _subject_of_copula(noun: Token, root: Token) -> bool:
    """ "A is (the founder and) chief engineer": ``root`` is the subject ``noun`` predicates."""
    while noun.dep_ in {"conj", "appos"} and noun.head.pos_ == "NOUN":
        noun = noun.head  # "A was a composer, the fifth child and second son of B"
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


def references(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """Pronouns and "the company" standing for the nearest preceding name they can mean.

    Cheap coreference for relationships only (never a new entity): "she"/"he"/"his"/"her"
    for the last person named before them, "it"/"its" for the last thing named that is not a
    person (an organisation, work, product, event or place), "the company" for the last
    organisation,
    and "the film", "the band", "the town" (a kind noun after "the") for the last name of
    that kind.
    """
    named = sorted((m for m in mentions if not m.referring), key=lambda m: m.start)
    found: list[Mention] = []
    for token in doc:
        label = _REFERRING.get(token.lower_) if token.pos_ == "PRON" else None
        if (
            label is None
            and any(c.dep_ == "det" and c.lower_ == "the" for c in token.children)
            and not _named_here(token)
        ):
            noun = token.lemma_.lower()
            label = "ORG" if noun in _COMPANY_NOUNS else _KIND_REFERENCES.get(noun)
        if label is None:
            continue
        wanted = _THINGS if label == "THING" else {label}
        antecedent = _antecedent(doc, token, [m for m in named if m.label in wanted])
        if antecedent is not None:
            found.append(
                Mention(
                    start=token.i,
                    end=token.i + 1,
                    name=antecedent.name,
                    key=antecedent.key,
                    label=antecedent.label,
                    type=antecedent.type,
                    referring=True,
                )
            )
    return found


def _named_here(noun: Token) -> bool:
    """ "the city of Leeds", "the band Level 42": the kind noun names its own referent, so it
    points back to nothing."""
    for child in noun.children:
        if child.dep_ in {"appos", "compound"} and child.pos_ == "PROPN" and child.i > noun.i:
            return True
        if (
            child.dep_ == "prep"
            and child.lower_ == "of"
            and any(c.dep_ == "pobj" and c.pos_ == "PROPN" for c in child.children)
        ):
            return True
    return False


def _antecedent(doc: Doc, token: Token, candidates: list[Mention]) -> Mention | None:
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
    if subjects:
        return subjects[-1]
    # Else the passage's topic: the last subject that names one, then the nearest name
    # ("Sid Haig is an actor. His roles include Rob Zombie's films. He has appeared in ...").
    topics = [m for m in before if m.root(doc).dep_ in _CLAUSE_SUBJECTS]
    return (topics or before)[-1]


def _recent(doc: Doc, sentence_start: int) -> set[int]:
    """Starts of the sentence beginning at ``sentence_start`` and the one before it."""
    starts = {sentence_start}
    if sentence_start > 0:
        starts.add(doc[sentence_start - 1].sent.start)
    return starts


def dependency_path(a: Token, b: Token) -> list[Token] | None:
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
    own_agent = any(c.dep_ == "agent" for c in verb.children)
    if child is not None and child.dep_ == "conj" and child.pos_ == "VERB" and not own_agent:
        # "written and directed by A": conjoined participles share their agent.
        agent = next((c for c in child.children if c.dep_ == "agent"), None)
        shared = _child_towards(agent, root) if agent is not None else None
        return _SUBJECT if shared is not None and _names(shared, root) else None
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
    if (
        clause is not verb
        and clause.dep_ in {"relcl", "acl"}
        and not own_subject
        and (_is_or_names(root, clause.head) or _subject_of_copula(clause.head, root))
    ):
        return _modified_role(clause)  # "a film written and directed by A"
    if clause is not verb and not own_subject:
        # "was founded ... and is headquartered in": the conjoined or controlled verb shares
        # its governor's subject, active or passive.
        shared = _child_towards(clause, root)
        if shared is not None and shared.dep_ in _CLAUSE_SUBJECTS and _names(shared, root):
            return _SUBJECT if shared.dep_ in _SUBJECT_ARCS else _OBJECT
        return None
    if verb.dep_ in {"relcl", "acl"} and (
        _is_or_names(root, verb.head) or _subject_of_copula(verb.head, root)
    ):
        # "B, a maker founded by A" and "B is a film directed by A" alike.
        return _modified_role(verb)
    if verb.dep_ == "advcl" and not own_subject and verb.tag_ in {"VBN", "VBG"}:
        # "A is a band, formed in 2006 by B" / "Founded by B, A is ...": a participial clause
        # without a subject of its own is said of its governor's subject.
        subject = next((c for c in verb.head.children if c.dep_ in _CLAUSE_SUBJECTS), None)
        if subject is not None and _names(subject, root):
            passive = verb.tag_ == "VBN" or subject.dep_ == "nsubjpass"
            return _OBJECT if passive else _SUBJECT
    return None


def _names(child: Token, root: Token) -> bool:
    """``root`` is ``child`` itself, its prepositional object, joined to either by
    coordination or apposition, or an example of it ("including X", "such as X", "like X"):
    not a modifier deeper inside the phrase."""
    token = root
    while token.i != child.i:
        if token.dep_ == "pobj" and token.head.i == child.i:
            return True
        if token.dep_ == "pobj" and _as_role(token.head, child):
            return True
        if token.dep_ == "pobj" and _place_of(token.head):
            token = token.head.head  # "based in the city of X": X is the city
            continue
        if token.dep_ == "pobj" and token.head.lower_ in _EXAMPLES and token.head.dep_ == "prep":
            token = token.head.head  # "appeared in programs including X": X is one of them
            continue
        if token.dep_ not in {"conj", "appos"}:
            return False
        token = token.head
    return True


_EXAMPLES: Final = frozenset({"including", "like", "as"})


_PLACE_NOUNS: Final = frozenset(
    noun for noun, label in KIND_NOUNS.items() if label == "GPE" and noun != "capital"
)


def _place_of(preposition: Token) -> bool:
    """ "the city of X", "the state of X": a place kind noun naming the place after "of"."""
    return (
        preposition.lower_ == "of" and preposition.dep_ == "prep" and _place_noun(preposition.head)
    )


def _place_noun(noun: Token) -> bool:
    """A place kind noun after "the" ("the city", "the X region")."""
    return (
        noun.pos_ == "NOUN"
        and noun.lemma_.lower() in _PLACE_NOUNS
        and any(c.dep_ == "det" and c.lower_ == "the" for c in noun.children)
    )


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


def verb_order(verb: Token, a: Token, b: Token) -> bool | None:
    """True when ``a`` comes first (subject side) in ``verb``'s clause, False for ``b``."""
    role_a, role_b = _role(verb, a), _role(verb, b)
    if role_a is None or role_b is None or role_a == role_b:
        return None
    return role_a < role_b


def verb_words(verb: Token, path: list[Token]) -> tuple[str, ...]:
    on_path = {t.i for t in path}
    extra = [
        child.lower_
        for child in verb.children
        if child.dep_ == "prt" or (child.dep_ in {"prep", "agent"} and child.i in on_path)
    ]
    return (verb.lemma_.lower(), *extra)


def noun_order(noun: Token, a: Token, b: Token, path: list[Token]) -> bool | None:
    """For "A, founder of B" / "the maker of B, A": the side reached through the noun's
    preposition is the object; the side joined by apposition, predicate or compound is the
    subject."""
    below_a = _child_towards(noun, a)
    below_b = _child_towards(noun, b)
    if _through_preposition(below_a, a) and _joined(noun, b, below_b):
        return False
    if _through_preposition(below_b, b) and _joined(noun, a, below_a):
        return True
    if _modifier(below_a, a) and _joined(noun, b, below_b):
        return False
    if _modifier(below_b, b) and _joined(noun, a, below_a):
        return True
    return None


def _modifier(child: Token | None, root: Token) -> bool:
    """ "Microsoft co-founder Paul Allen", "Ingo Molnar, a Linux kernel developer": a name
    modifying the role noun (itself, or through the nouns it modifies) is what the role is of,
    as if after "of". Not when the noun states its "of" ("the Port Harlow maker of TideCell
    batteries") or the name is a place's ("the Leeds firm" says where, not of what)."""
    if child is None or child.dep_ not in {"compound", "poss"} or child.i > child.head.i:
        return False
    if root.ent_type_ in {"GPE", "LOC", "FAC"} or any(
        c.dep_ == "prep" and c.lower_ == "of" for c in child.head.children
    ):
        return False
    token = root
    while token.i != child.i:
        if token.dep_ != "compound":
            return False
        token = token.head
    return True


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
