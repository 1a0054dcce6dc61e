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
    normalise_value,
)
from redstring.domain.resolution.names import compare_names
from redstring.domain.resolution.weights import (
    LADDERS,
    TOKEN_FREQUENCY,
    FieldKind,
    Frequencies,
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

PLACE_FIELDS = ("address", "postcode", "locality")
"""Fields that all say where a record is, most specific first.

They are not independent: an address that agrees implies its postcode and locality agree.
Only the most specific agreeing one adds its weight; the others show level "implied" and add
nothing. Disagreement still counts for each."""


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
) -> Profile:
    """Prepare a record; :class:`~redstring.domain.errors.EmptyTextError` for a name of no letters.

    Nested objects and lists are read as :func:`flat_attributes` says. Attributes whose keys
    name the same field ("city", "town") keep the first by key order; values that carry
    nothing (``None``, blanks) are left out.
    """
    kinds = (settings or ResolutionSettings()).field_kinds
    fields: dict[str, tuple[FieldKind, str]] = {}
    flat = flat_attributes(attributes, kinds)
    for key in sorted(flat):
        field_name, kind = field_of(key, kinds)
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
    return Frequencies.count(items)


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


def score_pair(left: Profile, right: Profile, frequencies: Frequencies | None = None) -> MatchScore:
    """The match weight of two prepared records; symmetric and deterministic.

    ``frequencies`` (from :func:`frequencies_of` over the tenant's records) sharpen the
    weights of exact agreement; without them the defaults of
    :mod:`~redstring.domain.resolution.weights` apply.
    """
    types = (left.type, right.type)
    if left.type != right.type:
        return MatchScore(weight=-math.inf, evidence=(), types=types)
    data = frequencies or _NO_DATA
    evidence = [_name_evidence(left, right, data)]
    place_agrees = False
    for name in sorted(left.fields.keys() | right.fields.keys(), key=_field_order):
        item = _field_evidence(name, left.fields.get(name), right.fields.get(name), data)
        if name in PLACE_FIELDS and item.weight > 0:
            if place_agrees:
                item = FieldEvidence(name, "implied", 0.0)
            place_agrees = True
        evidence.append(item)
    return MatchScore(weight=sum(e.weight for e in evidence), evidence=tuple(evidence), types=types)


def _field_order(name: str) -> tuple[int, str]:
    return (PLACE_FIELDS.index(name), "") if name in PLACE_FIELDS else (len(PLACE_FIELDS), name)


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


def _name_evidence(left: Profile, right: Profile, data: Frequencies) -> FieldEvidence:
    comparison = compare_names(left.form, right.form)
    base = LADDERS[FieldKind.NAME][comparison.level].weight
    adjustment = 0.0
    expected = _EXPECTED_TOKENS.get(comparison.level)
    if expected is not None and comparison.level == "exact":
        # A whole name that is one word ("Northwind", "Lagos") is as specific as that word
        # gets; only a name that drops words it has elsewhere loses for the missing ones.
        expected = min(expected, len(left.form.tokens))
    if expected is not None:
        adjustment += (min(comparison.informative, 3) - expected) * _TOKEN_BITS
        rarity = -sum(math.log2(data.ratio(f"name:{left.type}", t)) for t in comparison.shared)
        adjustment += max(-_MAX_PENALTY, min(_MAX_NAME_BOOST, rarity))
    return FieldEvidence("name", comparison.level, base + adjustment, adjustment)


def _field_evidence(
    name: str,
    left: tuple[FieldKind, str] | None,
    right: tuple[FieldKind, str] | None,
    data: Frequencies,
) -> FieldEvidence:
    if left is None or right is None:
        return FieldEvidence(name, "missing", 0.0)
    kind, left_value = left
    right_value = right[1]
    ladder = LADDERS[kind]
    level = compare_values(kind, left_value, right_value)
    rung = ladder[level]
    if level != "exact":
        conflict = level == "different" and kind in (FieldKind.DATE, FieldKind.IDENTIFIER)
        return FieldEvidence(name, level, rung.weight, conflict=conflict)
    adjustment = max(-_MAX_PENALTY, min(_MAX_FIELD_BOOST, -math.log2(data.ratio(name, left_value))))
    return FieldEvidence(name, level, rung.weight + adjustment, adjustment)
