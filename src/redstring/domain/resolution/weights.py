"""Fellegi-Sunter weights: each comparison level's m and u probabilities, and term frequencies.

A level's weight is ``log2(m / u)``: ``m`` is how often two records of one real-world thing
land on that level, ``u`` how often two records of different things do. Agreement on a rare
value is stronger evidence than agreement on a common one, so the ``u`` of an exact level is
replaced by the value's frequency in the tenant's data when :class:`Frequencies` carry it.

The defaults below are priors from record-linkage practice, written for data of people and
organisations with the usual noise; they are module constants so a reader can see all of them
at once (ADR 0016 explains the choices).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class FieldKind(StrEnum):
    """How an attribute's values are normalised and compared."""

    NAME = "name"
    DATE = "date"
    IDENTIFIER = "identifier"
    CONTACT = "contact"
    ADDRESS = "address"
    POSTCODE = "postcode"
    LOCALITY = "locality"
    TEXT = "text"


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
        Level("partial", m=0.02, u=1e-2),
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
    FieldKind.CONTACT: _ladder(
        Level("exact", m=0.60, u=1e-5),
        Level("different", m=0.40, u=0.9999),
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
    FieldKind.TEXT: _ladder(
        Level("exact", m=0.80, u=5e-2),
        Level("close", m=0.05, u=2e-2),
        Level("different", m=0.15, u=0.95),
    ),
}
"""Every field kind's ladder, strongest agreement first."""

TOKEN_FREQUENCY = 0.01
"""The share of names holding a given name token, when the data says nothing else."""

PRIOR_STRENGTH = 100.0
"""How many observations the default frequency counts as when data frequencies are blended in."""


@dataclass(frozen=True)
class Frequencies:
    """How common each name token and attribute value is among a tenant's records.

    Counts are blended with the defaults as ``(count + k * default) / (total + k)`` with
    ``k = PRIOR_STRENGTH``, so a handful of records barely moves a weight and a large sample
    decides it. Build one with :meth:`count`; the empty instance means "use the defaults".
    """

    tokens: Mapping[str, int] = field(default_factory=dict)
    values: Mapping[str, int] = field(default_factory=dict)
    totals: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def count(
        cls,
        names: Iterable[tuple[str, Iterable[str]]],
        values: Iterable[tuple[str, str]],
    ) -> Frequencies:
        """Count ``(entity_type, tokens)`` per name and ``(field, value)`` per attribute value.

        A token counts once per name; types are counted apart, so "paris" the person does not
        make "Paris" the city common.
        """
        token_counts: Counter[str] = Counter()
        name_totals: Counter[str] = Counter()
        for entity_type, tokens in names:
            name_totals[entity_type] += 1
            token_counts.update(f"{entity_type}|{token}" for token in set(tokens))
        value_counts: Counter[str] = Counter()
        field_totals: Counter[str] = Counter()
        for field_name, value in values:
            field_totals[field_name] += 1
            value_counts[f"{field_name}|{value}"] += 1
        totals = dict(field_totals)
        totals.update({f"name:{t}": n for t, n in name_totals.items()})
        return cls(tokens=dict(token_counts), values=dict(value_counts), totals=totals)

    def token(self, entity_type: str, token: str) -> float:
        """The blended share of ``entity_type`` names holding ``token``."""
        total = self.totals.get(f"name:{entity_type}", 0)
        count = self.tokens.get(f"{entity_type}|{token}", 0)
        return _blend(count, total, TOKEN_FREQUENCY)

    def value(self, field_name: str, value: str, default: float) -> float:
        """The blended share of ``field_name`` values equal to ``value``."""
        count = self.values.get(f"{field_name}|{value}", 0)
        return _blend(count, self.totals.get(field_name, 0), default)


def _blend(count: int, total: int, default: float) -> float:
    return (count + PRIOR_STRENGTH * default) / (total + PRIOR_STRENGTH)
