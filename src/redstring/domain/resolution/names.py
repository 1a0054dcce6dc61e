"""Name comparison: pair the tokens of two names and name the level the pairing reaches.

Tokens pair in rounds, strongest first: equal, nickname of the same name ("bob"/"robert"),
a typo (Jaro-Winkler >= :data:`TYPO_SIMILARITY`), an initial ("a"/"amara"). The level follows
from what paired and what was left over (see :func:`compare_names`). The pairing starts from
the shorter name (ties broken by the tokens themselves), so comparing a with b and b with a
give the same answer.

Long names (both of :data:`LONG_NAME_TOKENS` tokens or more: "Board of Trustees of the
Leland Stanford Junior University") are judged by how much of their information pairs,
each token weighing what its rarity in the tenant says (:func:`weighted_similarity`): a word
that half the tenant's names carry ("university") says little, and a rare one that only one
side holds ("Southern Illinois") says they differ.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA, JaroWinkler

from redstring.domain.name_forms import NameForm
from redstring.domain.resolution.weights import COMMON_BITS

TYPO_SIMILARITY = 0.88
"""Two tokens of at least three letters this Jaro-Winkler similar are one token misspelt.

So are two tokens of at least four letters one edit apart (a letter added, dropped, changed
or two swapped), which catches the early typos Jaro-Winkler's prefix bonus misses ("Ynki")."""

FUZZY_SIMILARITY = 88.0
"""A token-sorted ratio (0-100) this high for names that do not pair is the "fuzzy" level."""

_ROUNDS = ("equal", "nickname", "typo", "initial")

LONG_NAME_TOKENS = 4
"""Names that both have this many tokens or more are compared by weighted similarity. Three
is too few: on the generated records it cost F1 0.012 (names + locality), and person names of
three words ("John Paul Parr") keep the ladder, whose levels the tenant's estimate learns."""

MOST_SIMILAR = 0.85
"""A weighted similarity this high between long names is level ``most``."""

MANY_SIMILAR = 0.7
"""A weighted similarity this high (below :data:`MOST_SIMILAR`) is level ``many``."""

SOME_SIMILAR = 0.5
"""A weighted similarity this high (below :data:`MANY_SIMILAR`) is level ``some``."""

_PAIR_SIMILARITY = {"equal": 1.0, "nickname": 0.95, "typo": 0.9, "initial": 0.5}
"""How much of two paired tokens' information a pairing of each round carries."""

Information = Callable[[str], float]
"""A canonical token's information in bits (rarer tokens carry more); see
:meth:`~redstring.domain.resolution.weights.Frequencies.information`."""


def _uniform(_: str) -> float:
    return COMMON_BITS


@dataclass(frozen=True, slots=True)
class NameComparison:
    """The level two names reach, and the tokens that paired as equal or as nicknames.

    ``informative`` counts the pairs of whole tokens (an initial, even one equal to an
    initial, is not one); ``shared`` holds the
    canonical token of each equal or nickname pair, for frequency adjustment.
    """

    level: str
    informative: int
    shared: tuple[str, ...]
    similarity: float | None = None
    """The weighted similarity of two long names (``None`` for shorter ones)."""


def compare_names(
    left: NameForm, right: NameForm, information: Information | None = None
) -> NameComparison:
    """The ladder level of two names.

    * ``exact``: the same tokens, in any order;
    * ``equivalent``: every token pairs as equal or as a nickname of the same name;
    * ``subset``: one name is the other plus tokens (a middle name), two or more pairs;
    * ``close``: every token of the shorter name pairs, at least one through a typo;
    * ``initials``: as close, with at least one initial and one whole token ("A. Okafor");
    * ``acronym``: one name is a single token spelling the other's initials ("IBM");
    * ``partial``: a single token of the shorter name pairs with one of the longer;
    * ``fuzzy``: no full pairing, but the token-sorted similarity is at least 88 of 100;
    * ``shared``: both names have two tokens or more, some whole tokens pair and others
      do not ("Amara Okafor" / "Chidi Okafor", "Northwind Holdings" / "Northwind Logistics"):
      a relative, a sister company, or (in some data) the same thing with a word replaced;
      the tenant's estimate says how often;
    * ``different``: anything else.

    Two long names (both of :data:`LONG_NAME_TOKENS` tokens or more) that are not exact or
    equivalent land on ``most``, ``many`` or ``some`` by their :func:`weighted_similarity`
    (tokens weighted by ``information``; alike without it), else ``different``: an extra or
    replaced word counts by how rare it is, not by the level's name. Their pairing also
    reads contractions ("jr" for "junior", "dept" for "department").
    """
    short, long = sorted(
        (left, right), key=lambda form: (len(form.tokens), form.canonical, form.tokens)
    )
    weigh = information or _uniform
    lengthy = len(short.tokens) >= LONG_NAME_TOKENS
    pairs, shared, informative = _pair(short, long, contractions=lengthy)
    kinds = [kind for _, _, kind in pairs]
    unpaired_short = len(short.tokens) - len(pairs)
    unpaired_long = len(long.tokens) - len(pairs)
    if lengthy and (unpaired_short or unpaired_long or set(kinds) - {"equal", "nickname"}):
        similarity = weighted_similarity(short, long, pairs, weigh)
        if similarity >= MOST_SIMILAR:
            level = "most"
        elif similarity >= MANY_SIMILAR:
            level = "many"
        elif similarity >= SOME_SIMILAR:
            level = "some"
        else:
            level = "different"
        return NameComparison(level, informative, tuple(shared), round(similarity, 4))
    if unpaired_short:
        level = _unpaired_level(short, long)
        if level == "different" and informative and len(short.tokens) >= 2:
            level = "shared"
        return NameComparison(level, informative, tuple(shared))
    if "initial" in kinds:
        level = "initials" if informative else "partial"
    elif unpaired_long and len(kinds) < 2:
        level = "partial"
    elif unpaired_long:
        level = "close" if "typo" in kinds else "subset"
    elif set(kinds) == {"equal"}:
        level = "exact"
    elif "typo" in kinds:
        level = "close"
    else:
        level = "equivalent"
    return NameComparison(level, informative, tuple(shared))


Pairs = list[tuple[int, int, str]]
"""Paired tokens: (index in the shorter name, index in the longer, the round that paired)."""


def weighted_similarity(
    short: NameForm, long: NameForm, pairs: Pairs, information: Information
) -> float:
    """The cosine of two names' token vectors, each token weighted by its information and
    each pair by its round (a typo carries 0.9 of the information, an initial half): 1 when
    every token pairs as equal, less for each token only one side holds, by its weight.

    Two paired tokens both weigh what the commoner of them does: a misspelling
    ("representd") is rare because it is a misspelling, not because it names something."""
    left = [information(token) for token in short.canonical]
    right = [information(token) for token in long.canonical]
    dot = 0.0
    for i, j, kind in pairs:
        weight = min(left[i], right[j])
        left[i] = right[j] = weight
        dot += _PAIR_SIMILARITY[kind] * weight * weight
    norms = math.sqrt(sum(w * w for w in left) * sum(w * w for w in right))
    return dot / norms if norms else 0.0


def _pair(
    short: NameForm, long: NameForm, *, contractions: bool = False
) -> tuple[Pairs, list[str], int]:
    free = list(range(len(long.tokens)))
    paired: dict[int, tuple[int, str]] = {}
    shared: list[str] = []
    for round_name in _ROUNDS:
        for index in range(len(short.tokens)):
            if index in paired:
                continue
            match = _partner(round_name, short, index, long, free, contractions)
            if match is not None:
                free.remove(match)
                paired[index] = (match, round_name)
                if round_name in ("equal", "nickname"):
                    shared.append(short.canonical[index])
    informative = sum(
        kind != "initial" and len(short.tokens[index]) > 1 for index, (_, kind) in paired.items()
    )
    pairs = [(index, match, kind) for index, (match, kind) in sorted(paired.items())]
    return pairs, shared, informative


def _partner(
    round_name: str,
    short: NameForm,
    index: int,
    long: NameForm,
    free: list[int],
    contractions: bool,
) -> int | None:
    token, canonical = short.tokens[index], short.canonical[index]
    best: int | None = None
    best_similarity = TYPO_SIMILARITY
    for other in free:
        other_token, other_canonical = long.tokens[other], long.canonical[other]
        if round_name == "equal":
            if token == other_token:
                return other
        elif round_name == "nickname":
            if canonical == other_canonical and len(token) > 1 and len(other_token) > 1:
                return other
        elif round_name == "typo":
            if _abbreviates(token, other_token) or _abbreviates(other_token, token):
                return other
            if contractions and (_contracts(token, other_token) or _contracts(other_token, token)):
                return other
            if min(len(token), len(other_token)) >= 3:
                similarity = JaroWinkler.similarity(canonical, other_canonical)
                if similarity < TYPO_SIMILARITY and min(len(token), len(other_token)) >= 4:
                    similarity = TYPO_SIMILARITY if OSA.distance(token, other_token) <= 1 else 0
                if similarity >= best_similarity and (best is None or similarity > best_similarity):
                    best, best_similarity = other, similarity
        elif _is_initial_of(token, other_token, other_canonical) or _is_initial_of(
            other_token, token, canonical
        ):
            return other
    return best


def _abbreviates(short: str, long: str) -> bool:
    """ "univ" for "university", "corp" for "corporation": a word's first three letters or
    more, standing for a word at least two letters longer."""
    return len(short) >= 3 and len(long) >= len(short) + 2 and long.startswith(short)


def _contracts(short: str, long: str) -> bool:
    """ "jr" for "junior", "dept" for "department", "bd" for "board": two letters or more,
    the word's first letter, then others of it in order, at least two letters shorter."""
    if len(short) < 2 or len(long) < len(short) + 2 or short[0] != long[0]:
        return False
    rest = iter(long[1:])
    return all(letter in rest for letter in short[1:])


def _is_initial_of(initial: str, token: str, canonical: str) -> bool:
    return len(initial) == 1 and len(token) > 1 and initial in (token[0], canonical[0])


def _unpaired_level(short: NameForm, long: NameForm) -> str:
    if (
        len(short.tokens) == 1
        and len(long.tokens) >= 2
        and len(short.tokens[0]) >= 2
        and short.tokens[0] == "".join(token[0] for token in long.tokens)
    ):
        return "acronym"
    similarity = fuzz.token_sort_ratio(" ".join(short.canonical), " ".join(long.canonical))
    return "fuzzy" if similarity >= FUZZY_SIMILARITY else "different"
