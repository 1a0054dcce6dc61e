"""One name, one type: votes across a document and its tenant settle what type a name has.

An extractor types each passage on its own, so one tool can be a Person in one passage and an
Organization in the next, and the graph ends up holding the same name as several entities of
different types. Before resolution, every mention of a name votes for its type: one vote per
passage of the document that names it so, plus the tenant's existing entities of that name,
each voting for its type with the number of mentions that support it. Then:

* the type with most votes wins; on a tie the document's first type wins, so a tenant's first
  guess (one passage of one document) does not outvote every later document by seniority;
* a second type stands beside it only with evidence of its own: at least
  :data:`MIN_SECOND_VOTES` votes and a third of all the votes ("Washington" the person and
  the state, each named often), so a name has at most two types;
* every other mention takes the winner's type.

Pure: votes in, a mapping out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Final

MIN_SECOND_VOTES: Final = 2
"""Votes a second type of one name needs to stay a separate entity."""

SECOND_SHARE: Final = 1 / 3
"""The share of a name's votes a second type needs to stay a separate entity."""


def settle_types(
    document: Sequence[str], tenant: Mapping[str, int] | None = None
) -> dict[str, str]:
    """For one name: each type it was given maps to the type it keeps.

    ``document`` lists the type of each passage's mention of the name, in passage order;
    ``tenant`` maps each type the tenant already holds the name as to its supporting mentions.
    """
    held = dict(tenant or {})
    votes: Counter[str] = Counter(document)
    votes.update(held)
    if not votes:
        return {}
    first_seen = {kind: index for index, kind in reversed(list(enumerate(document)))}
    ranked = sorted(
        votes,
        key=lambda kind: (-votes[kind], first_seen.get(kind, len(document)), kind),
    )
    kept = ranked[:1]
    total = sum(votes.values())
    if len(ranked) > 1:
        second = ranked[1]
        if votes[second] >= MIN_SECOND_VOTES and votes[second] >= SECOND_SHARE * total:
            kept.append(second)
    return {kind: kind if kind in kept else kept[0] for kind in votes}
