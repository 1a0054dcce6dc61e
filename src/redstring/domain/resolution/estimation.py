"""Learning m and u from a tenant's own records: random pairs for u, EM over candidates for m.

The recipe is record linkage's (Fellegi-Sunter as splink estimates it), written for
redstring's ladders; ADR 0035 records the choices.

* **u** (how often two records of *different* things land on a level) comes from pairs of
  records drawn at random, almost all of which are non-matches. The exact level of an
  attribute is computed, not sampled: the chance that two random records share a value,
  ``sum(c(c-1)) / (n(n-1))`` over the value counts. A name's strong levels (exact,
  equivalent, subset, close, initials, acronym) are too rare among random pairs to count
  and are already moved by term frequencies, so they keep their priors.
* **m** (how often two records of *one* thing land on a level) comes from expectation
  maximisation over *candidate* pairs: pairs that share a name blocking key, and pairs that
  share an attribute value. Each step weighs every pair by its current match probability
  and re-counts the levels of the probable matches; u stays fixed. A pair found because
  its names collide says nothing about how names of one thing vary, so it does not update
  the name's m (and one found only through a shared value does not update that field's m);
  a pair found by two fields updates both, each through the other. splink reaches the same
  end with a training session per blocking rule.
* **Priors**: every m starts from the previous estimate (or the defaults of
  :data:`~redstring.domain.resolution.weights.LADDERS`) and is pulled towards it by
  :data:`PRIOR_STRENGTH` pseudo-matches, so little data moves a weight little, and fewer
  than :data:`MIN_RECORDS` records give no estimate at all.

Deterministic: the same profiles in the same order give the same estimate (pairs are drawn
by a seeded generator, and every set is iterated in a fixed order). Probabilities are
rounded to six significant digits, as the event that records them stores them.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from redstring.domain.resolution.scoring import (
    DECISIVE_KINDS,
    Profile,
    discounted,
    frequencies_of,
    pair_levels,
)
from redstring.domain.resolution.weights import (
    LADDERS,
    FieldKind,
    FieldWeights,
    Frequencies,
    LearnedWeights,
    Level,
)

MIN_RECORDS = 50
"""Fewer records of a type than this give no estimate: the priors stay."""

RANDOM_PAIRS = 1_500
"""Pairs drawn at random to estimate u."""

CANDIDATE_PAIRS = 2_500
"""At most this many candidate pairs go into EM (a fixed, hash-chosen subset beyond it)."""

MAX_BLOCK = 12
"""A name key or attribute value shared by more records than this yields no candidate
pairs: such a block is mostly non-matches, and its pairs grow with its square."""

ITERATIONS = 20
CONVERGED = 1e-3
"""EM stops early once the expected matches move by less than this share between steps."""
PRIOR_STRENGTH = 10.0
"""Pseudo-matches behind the starting m of every field: the weight of the prior."""

PREVIOUS_STRENGTH = 50.0
"""At most this many pseudo-matches behind a previous estimate used as the prior."""

MIN_SEEN = 5
"""A level must be seen this often among the random pairs for its u to be estimated."""

MAX_DIFFERENT = 0.5
"""The largest m an attribute's "different" level may take (see :func:`_bounded`)."""

MAX_DIFFERENT_DECISIVE = 0.05
"""The largest m the "different" level of a date or an identifier may take."""

MIN_PROBABILITY = 1e-4
MIN_U = 1e-7

NAME_PRIOR_U_LEVELS = frozenset({"exact", "equivalent", "subset", "close", "initials", "acronym"})
"""Name levels whose u keeps its prior (see the module docstring)."""


def estimate(
    entity_type: str,
    profiles: Sequence[Profile],
    *,
    attribute_kinds: Mapping[str, tuple[str, FieldKind]],
    name_keys: Sequence[Sequence[str]],
    previous: LearnedWeights | None = None,
    tenant_records: int = 0,
    sampled: int | None = None,
) -> LearnedWeights | None:
    """The m and u of every field of ``profiles`` (records of ``entity_type``), or ``None``
    when there are fewer than :data:`MIN_RECORDS`.

    ``name_keys`` holds each profile's name blocking keys (in the same order), which make
    the name-blocked candidate pairs; ``attribute_kinds`` is recorded with the estimate so
    that later records are read the same way; ``previous`` is the tenant's last estimate,
    the prior this one starts from. ``sampled`` (all by default) says how many of the
    leading profiles are an even sample of the tenant's records: the random pairs for u
    are drawn among them only, because the rest were chosen for sharing blocking keys with
    them (so that EM sees both records of more pairs) and would make random pairs alike.
    """
    if len(profiles) < MIN_RECORDS:
        return None
    kinds = _field_kinds(profiles)
    frequencies = frequencies_of(list(profiles))
    agreement = {name: _exact_agreement(profiles, name) for name in kinds if name != "name"}
    even = profiles[:sampled] if sampled is not None and sampled >= 2 else profiles
    u = _u_probabilities(even, kinds, agreement, previous, frequencies)
    pairs = _candidate_pairs(profiles, kinds, name_keys)
    patterns = _patterns(profiles, pairs, kinds, frequencies)
    m, matches = _m_probabilities(patterns, kinds, u, agreement, previous)
    # The records' duplicates agree with each other, so the share of pairs agreeing on a
    # value overstates how often *different* things do; take out the agreeing pairs EM
    # believes are matches, and fit again.
    for name, (agreeing, total) in agreement.items():
        if total > matches + 1:
            corrected = (agreeing - matches * m[name]["exact"]) / (total - matches)
            u[name] = _rescaled(u[name], max(1.0 / total, MIN_U, corrected))
    m, matches = _m_probabilities(patterns, kinds, u, agreement, previous)
    fields: dict[str, FieldWeights] = {}
    for field_name, kind in kinds.items():
        fields[field_name] = FieldWeights(
            kind=kind,
            levels={
                level: Level(
                    level, m=_rounded(m[field_name][level]), u=_rounded(u[field_name][level])
                )
                for level in LADDERS[kind]
            },
        )
    return LearnedWeights(
        entity_type=entity_type,
        fields=fields,
        attribute_kinds=dict(attribute_kinds),
        records=len(profiles),
        pairs=len(pairs),
        matches=round(matches, 3),
        tenant_records=tenant_records,
    )


def _field_kinds(profiles: Sequence[Profile]) -> dict[str, FieldKind]:
    """``name`` and every attribute field, with the kind most profiles give it."""
    seen: defaultdict[str, Counter[FieldKind]] = defaultdict(Counter)
    for item in profiles:
        for field_name, (kind, _) in item.fields.items():
            seen[field_name][kind] += 1
    kinds = {"name": FieldKind.NAME}
    for field_name in sorted(seen):
        kinds[field_name] = min(seen[field_name], key=lambda k: (-seen[field_name][k], k.value))
    return kinds


def _prior(
    previous: LearnedWeights | None, field_name: str, kind: FieldKind
) -> Mapping[str, Level]:
    if previous is not None:
        learned = previous.fields.get(field_name)
        if learned is not None and learned.kind is kind:
            return {level: learned.levels.get(level, rung) for level, rung in LADDERS[kind].items()}
    return LADDERS[kind]


def _u_probabilities(
    profiles: Sequence[Profile],
    kinds: Mapping[str, FieldKind],
    agreement: Mapping[str, tuple[float, float]],
    previous: LearnedWeights | None,
    frequencies: Frequencies,
) -> dict[str, dict[str, float]]:
    generator = random.Random(f"u|{len(profiles)}|{profiles[0].type}")
    count = len(profiles)
    tallies: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for _ in range(RANDOM_PAIRS):
        i, j = generator.randrange(count), generator.randrange(count - 1)
        if j >= i:
            j += 1
        comparison, levels = pair_levels(profiles[i], profiles[j], frequencies)
        tallies["name"][comparison.level] += 1
        for field_name, level in levels.items():
            tallies[field_name][level] += 1
    u: dict[str, dict[str, float]] = {}
    for field_name, kind in kinds.items():
        prior = _prior(previous, field_name, kind)
        if kind is FieldKind.NAME:
            fixed = {level: prior[level].u for level in prior if level in NAME_PRIOR_U_LEVELS}
        else:
            agreeing, total = agreement[field_name]
            exact = max(MIN_U, agreeing / total) if total else prior["exact"].u
            fixed = {"exact": exact}
        u[field_name] = _sampled(prior, fixed, tallies[field_name])
    return u


def _exact_agreement(profiles: Sequence[Profile], field_name: str) -> tuple[float, float]:
    """How many pairs of records carrying the field share its value, of how many pairs."""
    values = Counter(item.fields[field_name][1] for item in profiles if field_name in item.fields)
    total = sum(values.values())
    return sum(n * (n - 1) / 2 for n in values.values()), total * (total - 1) / 2


def _rescaled(u: Mapping[str, float], exact: float) -> dict[str, float]:
    """``u`` with its exact level set to ``exact`` and the others scaled to fill the rest."""
    rest = sum(value for level, value in u.items() if level != "exact")
    scale = (1.0 - exact) / rest if rest else 1.0
    return {level: exact if level == "exact" else value * scale for level, value in u.items()}


def _sampled(
    prior: Mapping[str, Level], fixed: Mapping[str, float], tally: Counter[str]
) -> dict[str, float]:
    """u per level: ``fixed`` ones as given, the others from ``tally`` smoothed towards the
    prior, scaled to share what the fixed ones leave."""
    # A level seen fewer than MIN_SEEN times among the random pairs is rarer than the sample
    # can measure: it keeps its prior rather than falling towards zero with the sample size.
    rare = {
        level: prior[level].u for level in prior if level not in fixed and tally[level] < MIN_SEEN
    }
    kept = {**fixed, **rare}
    free = [level for level in prior if level not in kept]
    left = max(MIN_U, 1.0 - sum(kept.values()))
    counted = sum(tally[level] for level in free)
    u = dict(kept)
    for level in free:
        u[level] = max(MIN_U, left * tally[level] / counted) if counted else prior[level].u
    return u


def _candidate_pairs(
    profiles: Sequence[Profile],
    kinds: Mapping[str, FieldKind],
    name_keys: Sequence[Sequence[str]],
) -> dict[tuple[int, int], frozenset[str]]:
    """Candidate pairs (index pairs, smaller first) and the fields that made each one."""
    blocks: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    for index, keys in enumerate(name_keys):
        for key in keys:
            blocks[("name", key)].append(index)
    for index, item in enumerate(profiles):
        for field_name, (_, value) in item.fields.items():
            if field_name in kinds:
                blocks[(field_name, value)].append(index)
    found: defaultdict[tuple[int, int], set[str]] = defaultdict(set)
    for (field_name, _), members in blocks.items():
        if not 2 <= len(members) <= MAX_BLOCK:
            continue
        for position, left in enumerate(members):
            for right in members[position + 1 :]:
                if left != right:
                    found[(min(left, right), max(left, right))].add(field_name)
    if len(found) > CANDIDATE_PAIRS:
        # A fixed pseudo-random subset: integer hashing, the same in every process.
        chosen = heapq.nsmallest(CANDIDATE_PAIRS, found, key=_scrambled)
    else:
        chosen = list(found)
    return {pair: frozenset(found[pair]) for pair in sorted(chosen)}


def _scrambled(pair: tuple[int, int]) -> tuple[int, int, int]:
    return ((pair[0] * 2_654_435_761 + pair[1] * 40_503) % 4_294_967_291, *pair)


Patterns = Counter[tuple[tuple[tuple[str, str], ...], frozenset[str]]]
"""Candidate pairs counted by their levels (field, level) and the fields that paired them."""


def _patterns(
    profiles: Sequence[Profile],
    pairs: Mapping[tuple[int, int], frozenset[str]],
    kinds: Mapping[str, FieldKind],
    frequencies: Frequencies,
) -> Patterns:
    patterns: Patterns = Counter()
    for (left, right), blocked in pairs.items():
        comparison, levels = pair_levels(profiles[left], profiles[right], frequencies)
        # What scoring discounts (a household's shared address) is no evidence here either:
        # relatives at one address would otherwise be learned as duplicates.
        kept = {
            f: level
            for f, level in levels.items()
            if f in kinds and (level == "different" or not discounted(comparison.level, kinds[f]))
        }
        kept["name"] = comparison.level
        patterns[(tuple(sorted(kept.items())), blocked)] += 1
    return patterns


def _m_probabilities(
    patterns: Patterns,
    kinds: Mapping[str, FieldKind],
    u: Mapping[str, Mapping[str, float]],
    agreement: Mapping[str, tuple[float, float]],
    previous: LearnedWeights | None,
) -> tuple[dict[str, dict[str, float]], float]:
    """m per field and level by EM over the candidate pairs, and the expected matches.

    Every source of candidates is a *session*, as in splink: the pairs whose names collide
    (``"name"``), and for each attribute the pairs that share its value. A pair is in every
    session that found it. In a field's session that field agrees by construction, so it
    is left out of the match probability and its m is not updated; the share of matches
    there is ``P(match | the field agrees)``, the expected matches of the name session
    times the field's m of agreeing over the pairs that agree on it (Bayes), which pins
    what one remaining field could not. In the name session the name's level still varies
    and counts towards the match probability, but the name's m is not updated from it.
    """
    strength = PRIOR_STRENGTH
    if previous is not None:
        strength = max(PRIOR_STRENGTH, min(PREVIOUS_STRENGTH, previous.matches))
    start = {
        field_name: {level: rung.m for level, rung in _prior(previous, field_name, kind).items()}
        for field_name, kind in kinds.items()
    }
    m = {field_name: dict(levels) for field_name, levels in start.items()}
    sessions: defaultdict[str, list[tuple[tuple[tuple[str, str], ...], int]]] = defaultdict(list)
    for (pattern, blocked), count in patterns.items():
        for session in sorted(blocked):
            sessions[session].append((pattern, count))
    shares = dict.fromkeys(sessions, 0.01)
    expected = 0.0
    for _ in range(ITERATIONS):
        numerators: defaultdict[str, defaultdict[str, float]] = defaultdict(
            lambda: defaultdict(float)
        )
        denominators: defaultdict[str, float] = defaultdict(float)
        found: dict[str, float] = {}
        bits = {
            field_name: {level: math.log(p / u[field_name][level]) for level, p in levels.items()}
            for field_name, levels in m.items()
        }
        for session in sorted(sessions, key=lambda name: (name != "name", name)):
            share = shares[session]
            if session != "name" and "name" in found:
                agreeing = agreement.get(session, (0.0, 0.0))[0]
                if agreeing:
                    share = found["name"] * m[session]["exact"] / agreeing
                share = min(0.9, max(1e-4, share))
            prior_logit = math.log(share / (1 - share))
            total = 0.0
            matched = 0.0
            for pattern, count in sessions[session]:
                logit = prior_logit
                for field_name, level in pattern:
                    if field_name != session or session == "name":
                        logit += bits[field_name][level]
                weight = count / (1 + math.exp(-max(-50.0, min(50.0, logit))))
                matched += weight
                total += count
                for field_name, level in pattern:
                    if field_name != session:
                        numerators[field_name][level] += weight
                        denominators[field_name] += weight
            found[session] = matched
            shares[session] = min(0.999, max(1e-6, matched / total)) if total else share
        before, expected = expected, found.get("name", max(found.values(), default=0.0))
        settled = abs(expected - before) <= CONVERGED * max(1.0, expected)
        for field_name, kind in kinds.items():
            prior = start[field_name]
            denominator = denominators[field_name] + strength
            m[field_name] = _bounded(
                kind,
                {
                    level: max(
                        MIN_PROBABILITY,
                        (numerators[field_name][level] + strength * prior[level]) / denominator,
                    )
                    for level in prior
                },
            )
        if settled:
            break
    return m, expected


def _bounded(kind: FieldKind, m: dict[str, float]) -> dict[str, float]:
    """``m`` with an attribute's "different" level at most :data:`MAX_DIFFERENT`.

    A field on which true duplicates disagree more often than not carries no evidence
    *for* a match when it disagrees, and EM on a file with no duplicates at all takes
    namesakes for them and learns exactly that. Disagreement stays at least weak evidence
    against (about -1 bit): people move, and the learned m says how weak, down to that.

    A date of birth or an identifier (:data:`~.scoring.DECISIVE_KINDS`) that differs stays
    strong evidence against (at most :data:`MAX_DIFFERENT_DECISIVE`, about -4.3 bits): EM
    cannot tell relatives at one address from duplicates, and would learn their different
    birth dates as the duplicates' noise.
    """
    limit = MAX_DIFFERENT_DECISIVE if kind in DECISIVE_KINDS else MAX_DIFFERENT
    if kind is FieldKind.NAME or m.get("different", 0.0) <= limit:
        return m
    rest = sum(value for level, value in m.items() if level != "different")
    scale = (1.0 - limit) / rest if rest else 0.0
    return {level: limit if level == "different" else value * scale for level, value in m.items()}


def _rounded(probability: float) -> float:
    return float(f"{probability:.6g}")
