"""Fellegi-Sunter weights: each comparison level's m and u probabilities, and term frequencies.

A level's weight is ``log2(m / u)``: ``m`` is how often two records of one real-world thing
land on that level, ``u`` how often two records of different things do. Agreement on a rare
value is stronger evidence than agreement on a common one, so the ``u`` of an exact level is
replaced by the value's frequency in the tenant's data when :class:`Frequencies` carry it.

The defaults below are priors from record-linkage practice, written for data of people and
organisations with the usual noise; they are module constants so a reader can see all of them
at once (ADR 0022 explains the choices).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import JsonValue


class FieldKind(StrEnum):
    """How an attribute's values are normalised and compared."""

    NAME = "name"
    DATE = "date"
    IDENTIFIER = "identifier"
    EMAIL = "email"
    PHONE = "phone"
    ADDRESS = "address"
    POSTCODE = "postcode"
    LOCALITY = "locality"
    CODE = "code"
    """A short value from a small set (a state, a street number, a category): equal or not."""
    TEXT = "text"
    LEGAL_FORM = "legal_form"


@dataclass(frozen=True, slots=True)
class Level:
    """One rung of a comparison ladder: its name and its m and u probabilities."""

    name: str
    m: float
    u: float

    @property
    def weight(self) -> float:
        """``log2(m / u)``: positive for evidence of a match, negative against."""
        return math.log2(self.m / self.u)


def _ladder(*levels: Level) -> dict[str, Level]:
    return {level.name: level for level in levels}


# Name levels assume names of two informative tokens, each with the default frequency
# TOKEN_FREQUENCY; ``scoring`` adjusts for the actual count and the tokens' frequencies.
LADDERS: dict[FieldKind, dict[str, Level]] = {
    FieldKind.NAME: _ladder(
        Level("exact", m=0.70, u=1e-4),
        Level("equivalent", m=0.06, u=1e-4),
        Level("subset", m=0.04, u=1e-4),
        Level("close", m=0.10, u=5e-4),
        Level("initials", m=0.05, u=1e-3),
        Level("acronym", m=0.01, u=1e-3),
        Level("partial", m=0.03, u=3e-3),
        Level("shared", m=0.02, u=3e-3),
        Level("most", m=0.40, u=2e-5),
        Level("many", m=0.15, u=2e-4),
        Level("some", m=0.05, u=2e-3),
        Level("fuzzy", m=0.01, u=1e-2),
        Level("different", m=0.01, u=0.98),
    ),
    FieldKind.DATE: _ladder(
        Level("exact", m=0.90, u=4e-5),
        Level("close", m=0.07, u=1e-3),
        Level("different", m=0.003, u=0.999),
    ),
    FieldKind.IDENTIFIER: _ladder(
        Level("exact", m=0.90, u=1e-6),
        Level("close", m=0.04, u=1e-5),
        Level("different", m=0.002, u=0.9999),
    ),
    FieldKind.EMAIL: _ladder(
        Level("exact", m=0.60, u=1e-5),
        Level("close", m=0.05, u=1e-4),
        Level("different", m=0.35, u=0.9999),
    ),
    FieldKind.PHONE: _ladder(
        Level("exact", m=0.60, u=1e-5),
        Level("close", m=0.05, u=1e-4),
        Level("different", m=0.35, u=0.9999),
    ),
    FieldKind.ADDRESS: _ladder(
        Level("exact", m=0.75, u=1e-4),
        Level("close", m=0.10, u=1e-3),
        Level("different", m=0.15, u=0.999),
    ),
    FieldKind.POSTCODE: _ladder(
        Level("exact", m=0.85, u=2e-3),
        Level("close", m=0.05, u=2e-2),
        Level("different", m=0.10, u=0.98),
    ),
    FieldKind.LOCALITY: _ladder(
        Level("exact", m=0.88, u=2e-2),
        Level("close", m=0.04, u=5e-3),
        Level("different", m=0.08, u=0.98),
    ),
    FieldKind.CODE: _ladder(
        Level("exact", m=0.90, u=0.10),
        Level("different", m=0.10, u=0.90),
    ),
    FieldKind.LEGAL_FORM: _ladder(
        Level("exact", m=0.90, u=0.30),
        Level("different", m=0.03, u=0.70),
    ),
    FieldKind.TEXT: _ladder(
        Level("exact", m=0.80, u=5e-2),
        Level("close", m=0.05, u=2e-2),
        Level("different", m=0.15, u=0.95),
    ),
}
"""Every field kind's ladder, strongest agreement first."""

TOKEN_FREQUENCY = 0.01
"""The share of names holding a given name token, when the data says nothing else."""

SMOOTHING = 2.0
"""Pseudo-count added to both sides of a frequency ratio, so a small sample stays near 1."""

MAX_RATIO = 64.0
"""A value at most this much more (or less) common than the typical one moves its weight."""


COMMON_BITS = 6.0
"""A name token carrying fewer bits than this (held by more than about one name in 64 of a
type's names: "university", "company", "of") is common: boilerplate, not what names one
thing (see :mod:`~redstring.domain.resolution.names`)."""

MIN_COMMON_COUNT = 3
"""The fewest names a token must be counted in to be common."""


@dataclass(frozen=True)
class Frequencies:
    """How common each name token and attribute value is, relative to a typical one.

    :meth:`ratio` compares a value's count with the count a randomly drawn value has on
    average (``sum(c^2) / sum(c)``): "London" in a file of many towns scores above 1,
    a rare surname below. Duplicates of one thing inflate both counts alike, so the ratio
    survives them where a raw share would not. The exact-level ``u`` of a field is scaled by
    the ratio. Build one with :meth:`count`; the empty instance means "use the defaults".
    """

    counts: Mapping[str, int] = field(default_factory=dict)
    typical: Mapping[str, float] = field(default_factory=dict)
    totals: Mapping[str, int] = field(default_factory=dict)
    """How many distinct names of each ``"name:<type>"`` group were counted."""

    @classmethod
    def count(
        cls, items: Iterable[tuple[str, str]], totals: Mapping[str, int] | None = None
    ) -> Frequencies:
        """Count ``(group, value)`` pairs; a group is a field name or ``"name:<type>"``;
        ``totals`` says how many names each name group's counts came from."""
        counts: Counter[tuple[str, str]] = Counter(items)
        sums: Counter[str] = Counter()
        squares: Counter[str] = Counter()
        for (group, _), n in counts.items():
            sums[group] += n
            squares[group] += n * n
        return cls(
            counts={f"{group}|{value}": n for (group, value), n in counts.items()},
            typical={group: squares[group] / sums[group] for group in sums},
            totals=dict(totals or {}),
        )

    def information(self, group: str, token: str) -> float:
        """The bits a name token of ``group`` carries: ``log2((n + 1) / (count + 0.5))`` over
        the ``n`` names counted, so a token every name holds carries about nothing and one
        name's own word the most. A token counted fewer than :data:`MIN_COMMON_COUNT` times
        carries at least :data:`COMMON_BITS` (a few names cannot show a word is common), and
        every token :data:`COMMON_BITS` when nothing was counted."""
        total = self.totals.get(group)
        if not total:
            return COMMON_BITS
        count = self.counts.get(f"{group}|{token}", 0)
        bits = math.log2((total + 1) / (count + 0.5))
        return bits if count >= MIN_COMMON_COUNT else max(bits, COMMON_BITS)

    def ratio(self, group: str, value: str) -> float:
        """How much more common ``value`` is than a typical value of ``group`` (1 if unknown)."""
        typical = self.typical.get(group)
        if typical is None:
            return 1.0
        count = self.counts.get(f"{group}|{value}", 0)
        ratio = (count + SMOOTHING) / (typical + SMOOTHING)
        return max(1 / MAX_RATIO, min(MAX_RATIO, ratio))


@dataclass(frozen=True, slots=True)
class FieldWeights:
    """One field's ladder as estimated from a tenant's data: its kind and each level."""

    kind: FieldKind
    levels: Mapping[str, Level]

    def to_json(self) -> dict[str, JsonValue]:
        """``{"kind", "levels": {name: {"m", "u"}}}`` with probabilities to six digits."""
        return {
            "kind": self.kind.value,
            "levels": {
                name: {"m": _rounded(level.m), "u": _rounded(level.u)}
                for name, level in self.levels.items()
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> FieldWeights:
        """The inverse of :meth:`to_json`."""
        levels = data["levels"]
        assert isinstance(levels, dict)
        parsed: dict[str, Level] = {}
        for name, probabilities in levels.items():
            assert isinstance(probabilities, dict)
            m, u = probabilities["m"], probabilities["u"]
            assert isinstance(m, int | float)
            assert isinstance(u, int | float)
            parsed[name] = Level(name, m=float(m), u=float(u))
        return cls(kind=FieldKind(str(data["kind"])), levels=parsed)


@dataclass(frozen=True)
class LearnedWeights:
    """The m and u probabilities one tenant's data gave for one entity type (ADR 0035).

    ``fields`` holds the estimated ladder of each field, ``"name"`` included; a field or
    level it lacks keeps the prior of :data:`LADDERS`. ``attribute_kinds`` records the kind
    each attribute key (in key form) was read as when the estimate was made, so later
    records are compared the same way. ``records`` and ``pairs`` say how much data the
    estimate saw; ``tenant_records`` how many records the tenant had imported with them,
    which decides when it is refreshed. Recorded in the event log, so every process and
    every rebuild uses the same.
    """

    entity_type: str
    fields: Mapping[str, FieldWeights] = field(default_factory=dict)
    attribute_kinds: Mapping[str, tuple[str, FieldKind]] = field(default_factory=dict)
    records: int = 0
    pairs: int = 0
    matches: float = 0.0
    tenant_records: int = 0

    def level(self, field_name: str, kind: FieldKind, level: str) -> Level:
        """The estimated level, or the prior when this estimate has none for it."""
        learned = self.fields.get(field_name)
        if learned is not None and learned.kind is kind:
            found = learned.levels.get(level)
            if found is not None:
                return found
        return LADDERS[kind][level]

    def to_json(self) -> dict[str, JsonValue]:
        """A JSON object holding everything, for the event that records the estimate."""
        return {
            "entity_type": self.entity_type,
            "fields": {name: item.to_json() for name, item in sorted(self.fields.items())},
            "attribute_kinds": {
                key: [name, kind.value]
                for key, (name, kind) in sorted(self.attribute_kinds.items())
            },
            "records": self.records,
            "pairs": self.pairs,
            "matches": round(self.matches, 3),
            "tenant_records": self.tenant_records,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> LearnedWeights:
        """The inverse of :meth:`to_json`."""
        fields = data.get("fields") or {}
        kinds = data.get("attribute_kinds") or {}
        assert isinstance(fields, dict)
        assert isinstance(kinds, dict)
        attribute_kinds: dict[str, tuple[str, FieldKind]] = {}
        for key, pair in kinds.items():
            assert isinstance(pair, list)
            assert len(pair) == 2
            attribute_kinds[key] = (str(pair[0]), FieldKind(str(pair[1])))
        parsed_fields: dict[str, FieldWeights] = {}
        for name, item in fields.items():
            assert isinstance(item, dict)
            parsed_fields[name] = FieldWeights.from_json(item)
        records, pairs = data.get("records", 0), data.get("pairs", 0)
        matches, imported = data.get("matches", 0.0), data.get("tenant_records", 0)
        assert isinstance(records, int)
        assert isinstance(pairs, int)
        assert isinstance(matches, int | float)
        assert isinstance(imported, int)
        return cls(
            entity_type=str(data["entity_type"]),
            fields=parsed_fields,
            attribute_kinds=attribute_kinds,
            records=records,
            pairs=pairs,
            matches=float(matches),
            tenant_records=imported,
        )


def _rounded(probability: float) -> float:
    return float(f"{probability:.6g}")
