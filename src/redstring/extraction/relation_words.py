"""General English about relationship words, for cues derived from a schema's own words.

A caller who writes a schema for an LLM names a relationship type and describes it
("WORKS_FOR: the person is employed by or works for the organisation") and states no trigger
lemmas. The offline extractor then derives its cues from those words, and these lists say
what a verb in them does not: which verbs carry no relation ("be", "have"), and which verbs
say the same relation in other words ("based in" for "located in"). Pure data.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

LIGHT_VERBS: Final = frozenset(
    {
        "be", "have", "do", "can", "could", "may", "might", "must", "shall", "should", "will",
        "would", "get", "include", "involve", "refer", "describe", "mean", "represent",
        "denote", "name", "call", "use",
    }
)  # fmt: skip
"""Verbs of a description that say nothing about the relation itself."""

VERB_GROUPS: Final = (
    frozenset({"locate", "base", "situate", "headquarter", "lie", "sit"}),
    frozenset({"work", "serve"}),
    frozenset({"employ", "hire", "recruit", "appoint"}),
    frozenset({"found", "establish", "co-found", "cofound", "create", "form", "start"}),
    frozenset({"write", "author", "co-write", "co-author", "pen"}),
    frozenset({"produce", "make", "manufacture", "build"}),
    frozenset({"develop", "create", "design", "invent"}),
    frozenset({"acquire", "buy", "purchase"}),
    frozenset({"marry", "wed"}),
    frozenset({"lead", "head", "chair", "run", "manage"}),
    frozenset({"own", "control"}),
    frozenset({"live", "reside", "settle", "dwell"}),
    frozenset({"attend", "participate"}),
    frozenset({"publish", "issue"}),
    frozenset({"release", "issue"}),
    frozenset({"direct", "helm"}),
    frozenset({"contain", "include", "comprise"}),
    frozenset({"perform", "sing"}),
    frozenset({"star", "appear", "act", "feature", "co-star"}),
    frozenset({"bear"}),
    frozenset({"die"}),
)
"""Verbs that state one relation with the same direction (subject first in each)."""


INVERSE_NOUNS: Final = {
    **dict.fromkeys(("son", "daughter", "child"), frozenset({"father", "mother", "parent"})),
    **dict.fromkeys(("father", "mother", "parent"), frozenset({"son", "daughter", "child"})),
    **dict.fromkeys(("husband", "wife", "spouse"), frozenset({"husband", "wife", "spouse"})),
    **dict.fromkeys(("employee",), frozenset({"employer"})),
    **dict.fromkeys(("employer",), frozenset({"employee"})),
}
"""Nouns stating one relation the other way round ("A is the son of B": "B is the father of
A"), for noun cues derived from a description."""


NOUN_GROUPS: Final = (
    frozenset(
        {
            "member", "singer", "vocalist", "frontman", "frontwoman", "guitarist", "bassist",
            "drummer", "keyboardist", "pianist", "saxophonist", "trumpeter", "violinist",
        }
    ),
)  # fmt: skip
"""Nouns that state one relation as a predicate of the same shape ("A is the bassist of the
band B" says what "A is a member of B" says): a noun cue derived from a description stands
for its group."""


def _with_groups(lemma: str, groups: Iterable[frozenset[str]]) -> frozenset[str]:
    """``lemma`` and every word of a group of ``groups`` it belongs to."""
    found = {lemma}
    for group in groups:
        if lemma in group:
            found |= group
    return frozenset(found)


def same_noun(lemma: str) -> frozenset[str]:
    """``lemma`` and every noun of a group it belongs to."""
    return _with_groups(lemma, NOUN_GROUPS)


def same_relation(lemma: str) -> frozenset[str]:
    """``lemma`` and every verb of a group it belongs to."""
    return _with_groups(lemma, VERB_GROUPS)
