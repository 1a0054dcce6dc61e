"""Entity resolution scoring: pure, explainable Fellegi-Sunter match weights.

Two records of one type are compared field by field; each field lands on a named level of its
ladder and adds that level's weight in bits (``log2(m/u)``). The sum decides: merge, possible
match for review, or a new entity (:func:`decide`). Nothing here does I/O; the ingest layer
finds candidates by blocking key and records decisions as events (ADR 0022).
"""

from redstring.domain.resolution.fields import DEFAULT_FIELD_KINDS
from redstring.domain.resolution.names import NameComparison, compare_names
from redstring.domain.resolution.scoring import (
    DEFAULT_MERGE_THRESHOLD,
    DEFAULT_POSSIBLE_THRESHOLD,
    FieldEvidence,
    MatchScore,
    Outcome,
    Profile,
    ResolutionSettings,
    decide,
    frequencies_of,
    profile,
    score_pair,
)
from redstring.domain.resolution.weights import (
    LADDERS,
    FieldKind,
    FieldWeights,
    Frequencies,
    LearnedWeights,
    Level,
)

__all__ = [
    "DEFAULT_FIELD_KINDS",
    "DEFAULT_MERGE_THRESHOLD",
    "DEFAULT_POSSIBLE_THRESHOLD",
    "LADDERS",
    "FieldEvidence",
    "FieldKind",
    "FieldWeights",
    "Frequencies",
    "LearnedWeights",
    "Level",
    "MatchScore",
    "NameComparison",
    "Outcome",
    "Profile",
    "ResolutionSettings",
    "compare_names",
    "decide",
    "frequencies_of",
    "profile",
    "score_pair",
]
