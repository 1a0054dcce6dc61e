"""Name comparison: pair the tokens of two names and name the level the pairing reaches.

Tokens pair in rounds, strongest first: equal, nickname of the same name ("bob"/"robert"),
a typo (Jaro-Winkler >= :data:`TYPO_SIMILARITY`), an initial ("a"/"amara"). The level follows
from what paired and what was left over (see :func:`compare_names`). The pairing starts from
the shorter name (ties broken by the tokens themselves), so comparing a with b and b with a
give the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA, JaroWinkler

from redstring.domain.name_forms import NameForm

TYPO_SIMILARITY = 0.88
"""Two tokens of at least three letters this Jaro-Winkler similar are one token misspelt.

So are two tokens of at least four letters one edit apart (a letter added, dropped, changed
or two swapped), which catches the early typos Jaro-Winkler's prefix bonus misses ("Ynki")."""

FUZZY_SIMILARITY = 88.0
"""A token-sorted ratio (0-100) this high for names that do not pair is the "fuzzy" level."""

_ROUNDS = ("equal", "nickname", "typo", "initial")


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


def compare_names(left: NameForm, right: NameForm) -> NameComparison:
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
    """
    short, long = sorted(
        (left, right), key=lambda form: (len(form.tokens), form.canonical, form.tokens)
    )
    kinds, shared, unpaired_short, unpaired_long, informative = _pair(short, long)
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


def _pair(short: NameForm, long: NameForm) -> tuple[list[str], list[str], int, int, int]:
    free = list(range(len(long.tokens)))
    paired: dict[int, str] = {}
    shared: list[str] = []
    for round_name in _ROUNDS:
        for index in range(len(short.tokens)):
            if index in paired:
                continue
            match = _partner(round_name, short, index, long, free)
            if match is not None:
                free.remove(match)
                paired[index] = round_name
                if round_name in ("equal", "nickname"):
                    shared.append(short.canonical[index])
    informative = sum(
        kind != "initial" and len(short.tokens[index]) > 1 for index, kind in paired.items()
    )
    unpaired = len(short.tokens) - len(paired)
    return list(paired.values()), shared, unpaired, len(free), informative


def _partner(
    round_name: str, short: NameForm, index: int, long: NameForm, free: list[int]
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
