"""Scoring a pair of records: a match weight that is the sum of its fields' level weights.

A :class:`Profile` is a record prepared once (name form, normalised attribute values). Two
profiles of different types never match: :func:`score_pair` gives them weight ``-inf`` and
no field evidence. Otherwise every field either record carries adds one
:class:`FieldEvidence` (a field only one side carries adds nothing and says "missing"), and
the weight is their sum, so the explanation is the whole computation (a splink-style
waterfall). :func:`decide` turns a weight into "merge", "possible" or "new" by the two
thresholds of :class:`ResolutionSettings`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import JsonValue

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.name_forms import NameForm, name_form
from redstring.domain.resolution.fields import (
    DEFAULT_FIELD_KINDS,
    compare_values,
    field_of,
    flat_attributes,
    key_form,
    normalise_value,
)
from redstring.domain.resolution.names import Information, NameComparison, compare_names
from redstring.domain.resolution.weights import (
    LADDERS,
    TOKEN_FREQUENCY,
    FieldKind,
    Frequencies,
    LearnedWeights,
    Level,
)

Outcome = Literal["merge", "possible", "new"]

DEFAULT_MERGE_THRESHOLD = 12.5
"""Bits of evidence at or above which two records are merged.

Two identical two-word names with nothing else to compare score 12.8 bits before term
frequency, so they merge unless the name is common in the batch; a date of birth or an
identifier that disagrees (about -8.4 and -9 bits) keeps them apart. See ADR 0022.
"""

DEFAULT_POSSIBLE_THRESHOLD = 8.0
"""Bits at or above which, below the merge threshold, a pair is kept as a possible match."""

# Rarity may raise a weight less than commonness may lower it: rare values also cluster
# (a small town's namesakes, a household's shared surname), which the independence behind
# Fellegi-Sunter weights does not see.
_MAX_NAME_BOOST = 4.0
_MAX_FIELD_BOOST = 2.0
_MAX_PENALTY = 8.0
_TOKEN_BITS = math.log2(1 / TOKEN_FREQUENCY)
_EXPECTED_TOKENS = {
    "exact": 2,
    "equivalent": 2,
    "subset": 2,
    "close": 2,
    "initials": 1,
    "partial": 1,
}
_NO_DATA: Frequencies = Frequencies()

PLACE_KINDS = (FieldKind.ADDRESS, FieldKind.POSTCODE, FieldKind.LOCALITY)
"""Kinds of fields that all say where a record is, most specific first.

They are not independent: an address that agrees implies its postcode and locality agree.
Only the most specific agreeing one adds its weight; the others show level "implied" and add
nothing. Disagreement still counts for each."""

SHARED_KINDS = frozenset({*PLACE_KINDS, FieldKind.PHONE})
"""Kinds of fields that several distinct things share: an address, a switchboard number.

Two restaurants inside one hotel agree on all of them, and so do the members of one
household. When the names clearly differ (level "different"), agreement on these adds
nothing ("shared"); only evidence about the thing itself (an identifier, a date of birth,
an e-mail) can then outweigh the names."""

HOUSEHOLD_KINDS = frozenset({FieldKind.ADDRESS, FieldKind.POSTCODE, FieldKind.PHONE})
"""Kinds of fields a household shares. When two names share some words but not others
(level "shared": "Joe Bromshaw" and "Diana Bromshaw"), agreement on these is what relatives
living together show, so it adds nothing; a town still counts."""


def discounted(name_level: str, kind: FieldKind) -> bool:
    """Whether agreement on a field of ``kind`` adds nothing beside a name at ``name_level``
    (see :data:`SHARED_KINDS` and :data:`HOUSEHOLD_KINDS`)."""
    if name_level == "different":
        return kind in SHARED_KINDS
    return name_level == "shared" and kind in HOUSEHOLD_KINDS


DECISIVE_KINDS = frozenset({FieldKind.DATE, FieldKind.IDENTIFIER})
"""Kinds whose disagreement says two records are different things: see :attr:`conflict`."""

CONFLICT_BITS = -4.0
"""A decisive field's "different" level weighing this little (or less) is a conflict. With
the priors a date of birth that differs weighs -8.4 bits; an estimate keeps it at -4.3 or
less (ADR 0035), so a decisive field stays decisive unless a caller's own weights say
otherwise."""


@dataclass(frozen=True, slots=True)
class ResolutionSettings:
    """The decision thresholds (bits) and the attribute-key table; defaults are documented above.

    Raises :class:`InvalidArgumentError` when ``possible_threshold`` exceeds ``merge_threshold``
    or either is not finite.
    """

    merge_threshold: float = DEFAULT_MERGE_THRESHOLD
    possible_threshold: float = DEFAULT_POSSIBLE_THRESHOLD
    field_kinds: Mapping[str, tuple[str, FieldKind]] = field(
        default_factory=lambda: dict(DEFAULT_FIELD_KINDS)
    )

    def __post_init__(self) -> None:
        if not (math.isfinite(self.merge_threshold) and math.isfinite(self.possible_threshold)):
            raise InvalidArgumentError(
                f"thresholds must be finite numbers of bits, got merge={self.merge_threshold!r} "
                f"and possible={self.possible_threshold!r}"
            )
        if self.possible_threshold > self.merge_threshold:
            raise InvalidArgumentError(
                f"possible_threshold {self.possible_threshold} exceeds merge_threshold "
                f"{self.merge_threshold}: use possible <= merge"
            )


@dataclass(frozen=True, slots=True)
class Profile:
    """A record prepared for scoring: its type, name form and normalised field values."""

    type: str
    form: NameForm
    fields: Mapping[str, tuple[FieldKind, str]]


def profile(
    entity_type: str,
    name: str,
    attributes: Mapping[str, JsonValue],
    settings: ResolutionSettings | None = None,
    kinds: Mapping[str, tuple[str, FieldKind]] | None = None,
) -> Profile:
    """Prepare a record; :class:`~redstring.domain.errors.EmptyTextError` for a name of no letters.

    ``kinds`` (attribute key in key form -> field and kind, from
    :func:`~redstring.domain.resolution.kinds.attribute_kinds`) decides how each attribute
    is read; a key it lacks is looked up in the settings' key table, else it is text.
    Nested objects and lists are read as :func:`flat_attributes` says. Attributes that name
    the same field ("city", "town") keep the first by key order; values that carry nothing
    (``None``, blanks) are left out.
    """
    table = (settings or ResolutionSettings()).field_kinds
    known = kinds or {}
    fields: dict[str, tuple[FieldKind, str]] = {}
    flat = flat_attributes(attributes, table)
    for key in sorted(flat):
        field_name, kind = known.get(key_form(key)) or field_of(key, table)
        if field_name in fields:
            continue
        value = normalise_value(kind, flat[key])
        if value is not None:
            fields[field_name] = (kind, value)
    form = name_form(name)
    if form.legal_form is not None:
        fields["legal_form"] = (FieldKind.LEGAL_FORM, form.legal_form)
    return Profile(type=entity_type, form=form, fields=fields)


def frequencies_of(profiles: list[Profile]) -> Frequencies:
    """Token and value frequencies counted over ``profiles`` (one tenant's records).

    Each distinct name (type and sorted tokens) counts once, and each attribute value once
    per distinct name carrying it: duplicates of one thing would otherwise make its own name
    and date of birth look common and weaken the very agreement that should merge them.
    """
    names = {(p.type, tuple(sorted(p.form.canonical))) for p in profiles}
    values = {
        (p.type, tuple(sorted(p.form.canonical)), name, value)
        for p in profiles
        for name, (_, value) in p.fields.items()
    }
    items = [(f"name:{kind}", token) for kind, tokens in names for token in set(tokens)]
    items.extend((name, value) for _, _, name, value in values)
    totals: dict[str, int] = {}
    for kind, _ in names:
        totals[f"name:{kind}"] = totals.get(f"name:{kind}", 0) + 1
    return Frequencies.count(items, totals)


@dataclass(frozen=True, slots=True)
class FieldEvidence:
    """One field's contribution: the level it reached and the bits it adds.

    ``weight`` is the level's ``log2(m/u)`` plus ``adjustment`` (term frequency and, for
    names, token count); a field only one side carries has level "missing" and weight 0.
    ``conflict`` marks a date or identifier that disagrees: two records with one cannot be
    one thing, whatever else agrees, unless the data is wrong.
    """

    field: str
    level: str
    weight: float
    adjustment: float = 0.0
    conflict: bool = False

    def to_json(self) -> dict[str, JsonValue]:
        """A JSON object with the weight and adjustment rounded to three decimals."""
        return {
            "field": self.field,
            "level": self.level,
            "weight": round(self.weight, 3),
            "adjustment": round(self.adjustment, 3),
        }


@dataclass(frozen=True, slots=True)
class MatchScore:
    """The match weight of two records and the evidence it sums; ``-inf`` across types."""

    weight: float
    evidence: tuple[FieldEvidence, ...]
    types: tuple[str, str]

    @property
    def conflicting(self) -> bool:
        """Whether a date or an identifier disagrees (see :attr:`FieldEvidence.conflict`)."""
        return any(evidence.conflict for evidence in self.evidence)

    @property
    def compatible(self) -> bool:
        """Whether the two records are of one type, so they may merge at all."""
        return self.types[0] == self.types[1]

    def explanation(self) -> dict[str, JsonValue]:
        """The waterfall as JSON: total weight and each field's level and weight, in order."""
        if not self.compatible:
            return {"level": "incompatible-types", "types": list(self.types)}
        return {
            "weight": round(self.weight, 3),
            "fields": [evidence.to_json() for evidence in self.evidence],
        }


def score_pair(
    left: Profile,
    right: Profile,
    frequencies: Frequencies | None = None,
    weights: LearnedWeights | None = None,
) -> MatchScore:
    """The match weight of two prepared records; symmetric and deterministic.

    ``frequencies`` (from :func:`frequencies_of` over the tenant's records) sharpen the
    weights of exact agreement; ``weights`` are the m and u the tenant's data gave for this
    type (:mod:`~redstring.domain.resolution.estimation`); without them the priors of
    :mod:`~redstring.domain.resolution.weights` apply.
    """
    types = (left.type, right.type)
    if left.type != right.type:
        return MatchScore(weight=-math.inf, evidence=(), types=types)
    data = frequencies or _NO_DATA
    comparison = compare_names(left.form, right.form, _information(data, left.type))
    name = _name_evidence(left, right, comparison, data, weights)
    evidence = [name]
    place_agrees = False
    for field_name, kind in field_kinds(left, right):
        item = _field_evidence(
            field_name,
            kind,
            left.fields.get(field_name),
            right.fields.get(field_name),
            data,
            weights,
        )
        if item.weight > 0 and discounted(name.level, kind):
            item = FieldEvidence(field_name, "shared", 0.0)
        elif kind in PLACE_KINDS and item.weight > 0:
            if place_agrees:
                item = FieldEvidence(field_name, "implied", 0.0)
            place_agrees = True
        evidence.append(item)
    return MatchScore(weight=sum(e.weight for e in evidence), evidence=tuple(evidence), types=types)


def field_kinds(left: Profile, right: Profile) -> list[tuple[str, FieldKind]]:
    """Every attribute field either profile carries, with its kind, in scoring order: place
    fields most specific first (see :data:`PLACE_KINDS`), then the rest by name."""
    kinds = {name: kind for name, (kind, _) in right.fields.items()}
    kinds.update((name, kind) for name, (kind, _) in left.fields.items())
    return sorted(kinds.items(), key=_field_order)


def _field_order(item: tuple[str, FieldKind]) -> tuple[int, str]:
    name, kind = item
    rank = PLACE_KINDS.index(kind) if kind in PLACE_KINDS else len(PLACE_KINDS)
    return (rank, name)


def pair_levels(
    left: Profile, right: Profile, frequencies: Frequencies | None = None
) -> tuple[NameComparison, dict[str, str]]:
    """The name comparison and each attribute field's level ("missing" left out): what
    :func:`score_pair` weighs, without the weights (the input of estimation)."""
    levels: dict[str, str] = {}
    for field_name, (kind, value) in left.fields.items():
        other = right.fields.get(field_name)
        if other is not None and other[0] is kind:
            levels[field_name] = compare_values(kind, value, other[1])
    information = _information(frequencies or _NO_DATA, left.type)
    return compare_names(left.form, right.form, information), levels


def _information(data: Frequencies, entity_type: str) -> Information:
    group = f"name:{entity_type}"
    return lambda token: data.information(group, token)


def decide(score: MatchScore, settings: ResolutionSettings | None = None) -> Outcome:
    """``"merge"`` at or above the merge threshold, ``"possible"`` at or above the other."""
    chosen = settings or ResolutionSettings()
    if not score.compatible:
        return "new"
    if score.weight >= chosen.merge_threshold:
        return "merge"
    if score.weight >= chosen.possible_threshold:
        return "possible"
    return "new"


def _name_evidence(
    left: Profile,
    right: Profile,
    comparison: NameComparison,
    data: Frequencies,
    weights: LearnedWeights | None,
) -> FieldEvidence:
    base = _level("name", FieldKind.NAME, comparison.level, weights).weight
    adjustment = 0.0
    expected = _EXPECTED_TOKENS.get(comparison.level)
    if expected is not None and comparison.level == "exact":
        # A whole name that is one word ("Northwind", "Lagos") is as specific as that word
        # gets; only a name that drops words it has elsewhere loses for the missing ones.
        expected = min(expected, len(left.form.tokens))
    if expected is not None:
        adjustment += (min(comparison.informative, 3) - expected) * _TOKEN_BITS
    if expected is not None or comparison.level == "shared":
        rarity = -sum(math.log2(data.ratio(f"name:{left.type}", t)) for t in comparison.shared)
        adjustment += max(-_MAX_PENALTY, min(_MAX_NAME_BOOST, rarity))
    return FieldEvidence("name", comparison.level, base + adjustment, adjustment)


def _level(field_name: str, kind: FieldKind, level: str, weights: LearnedWeights | None) -> Level:
    if weights is None:
        return LADDERS[kind][level]
    return weights.level(field_name, kind, level)


def _field_evidence(
    name: str,
    kind: FieldKind,
    left: tuple[FieldKind, str] | None,
    right: tuple[FieldKind, str] | None,
    data: Frequencies,
    weights: LearnedWeights | None,
) -> FieldEvidence:
    if left is None or right is None or left[0] is not right[0]:
        return FieldEvidence(name, "missing", 0.0)
    left_value, right_value = left[1], right[1]
    level = compare_values(kind, left_value, right_value)
    rung = _level(name, kind, level, weights)
    if level != "exact":
        conflict = level == "different" and kind in DECISIVE_KINDS and rung.weight <= CONFLICT_BITS
        return FieldEvidence(name, level, rung.weight, conflict=conflict)
    adjustment = max(-_MAX_PENALTY, min(_MAX_FIELD_BOOST, -math.log2(data.ratio(name, left_value))))
    return FieldEvidence(name, level, rung.weight + adjustment, adjustment)
