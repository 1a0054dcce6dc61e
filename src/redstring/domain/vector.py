"""Vector math and vector records: cosine scores on the port's 0..1 scale and the zero guard.

A score is ``(1 + cosine) / 2``: 1.0 identical, 0.5 orthogonal, 0.0 opposite. Cosine is
undefined at the origin, and a vector whose sum of squares underflows in float32 (the storage
width of pgvector) is as directionless as the zero vector, so both are rejected.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from redstring.domain.errors import DimensionMismatchError, InvalidArgumentError, ZeroVectorError
from redstring.domain.ids import EntityId
from redstring.domain.portable import JsonObject

FLOAT32_SMALLEST_NORMAL = 2.0**-126
"""Below this a float32 sum of squares is subnormal or zero and loses its direction."""

_F32 = struct.Struct("<f")
_CLEARLY_NORMAL_SQUARE = 2.0**-120
_FLOAT32_MAX = 3.4e38


def _to_float32(value: float) -> float:
    try:
        return float(_F32.unpack(_F32.pack(value))[0])
    except OverflowError:
        # struct refuses what float32 arithmetic would round to infinity; a square that
        # large has a direction, so infinity is the faithful answer.
        return math.copysign(math.inf, value)


def has_zero_norm(vector: Sequence[float]) -> bool:
    """True when ``vector`` has no usable direction once stored as float32.

    That is the zero vector, and also vectors whose float32 sum of squares underflows below
    the smallest normal float32 (components around 1e-20 and smaller), where a backend
    computing in float32 divides by zero and yields NaN.
    """
    # Fast path, same answer: when the float64 sum of squares is at least n * 2**-120, the
    # largest square alone is >= 2**-120, a normal float32 even after narrowing, and a float32
    # running sum of non-negative terms never drops below its largest term. NaN fails the
    # comparison and takes the exact route below.
    squares = sum(component * component for component in vector)
    if squares >= max(len(vector), 1) * _CLEARLY_NORMAL_SQUARE:
        return False
    total = 0.0
    for component in vector:
        narrowed = _to_float32(component)
        total = _to_float32(total + _to_float32(narrowed * narrowed))
    return total < FLOAT32_SMALLEST_NORMAL


def validate_vector(vector: Sequence[float], *, dimension: int) -> None:
    """Raise unless ``vector`` has ``dimension`` finite components and a usable direction.

    Raises :class:`DimensionMismatchError` on a wrong length, :class:`InvalidArgumentError`
    on NaN or infinity or a sum of squares that overflows float32 (a float32 backend would
    score such a vector wrongly without an error), and :class:`ZeroVectorError` on a vector
    with no direction.
    """
    if len(vector) != dimension:
        raise DimensionMismatchError(expected=dimension, actual=len(vector))
    # Two C-level passes decide the common case; the loop only finds the offender to name it.
    if not all(map(math.isfinite, vector)) or max(map(abs, vector), default=0.0) > _FLOAT32_MAX:
        for index, component in enumerate(vector):
            if not math.isfinite(component) or abs(component) > _FLOAT32_MAX:
                raise InvalidArgumentError(
                    f"vector component {index} is {component!r}: components must be finite "
                    "float32 values"
                )
    if math.fsum(component * component for component in vector) > _FLOAT32_MAX:
        raise InvalidArgumentError(
            "the vector's sum of squares exceeds the float32 range (3.4e38), so a float32 "
            "backend cannot compute its cosine; scale it down, e.g. normalise it to length 1"
        )
    if has_zero_norm(vector):
        raise ZeroVectorError(
            "the vector has zero norm (or a norm that underflows in float32): cosine is "
            "undefined at the origin; pass a vector with a direction"
        )


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two equal-length, non-zero vectors, clamped to [-1, 1]."""
    if len(a) != len(b):
        raise DimensionMismatchError(expected=len(a), actual=len(b))
    if has_zero_norm(a) or has_zero_norm(b):
        raise ZeroVectorError("cosine is undefined for a vector with zero norm")
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    # One square root of the product, as pgvector computes it: for a == b it is sqrt(s * s),
    # which IEEE rounding returns as exactly s, so a self-match scores exactly 1.0 (the
    # product of two roots scored 0.9999999999999999).
    norm = math.sqrt(math.fsum(x * x for x in a) * math.fsum(y * y for y in b))
    return max(-1.0, min(1.0, dot / norm))


MAX_K = 2**31 - 1
"""The most matches ``search`` returns: every backend's integer types hold it."""


def validate_search(k: int, min_score: float | None) -> None:
    """Raise :class:`InvalidArgumentError` for ``k`` outside ``0..MAX_K`` or a NaN ``min_score``.

    NaN compares false with every score, so one backend returned everything and another
    nothing; it is refused instead (ADR 0023).
    """
    if not 0 <= k <= MAX_K:
        raise InvalidArgumentError(f"k must be between 0 and {MAX_K}, got {k}")
    if min_score is not None and math.isnan(min_score):
        raise InvalidArgumentError(
            "min_score=nan matches no score: pass a number on the 0..1 scale, or None"
        )


def float32_vector(vector: Sequence[float]) -> list[float]:
    """``vector`` with each component rounded to float32, the storage width of pgvector."""
    return [_to_float32(component) for component in vector]


def cosine_score(a: Sequence[float], b: Sequence[float]) -> float:
    """The port's similarity score ``(1 + cosine) / 2``: 1.0 identical, 0.0 opposite."""
    return (1.0 + cosine(a, b)) / 2.0


class VectorRecord(BaseModel):
    """One entity's embedding and the metadata stored beside it (e.g. ``entity_type``)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    entity_id: EntityId
    vector: list[float]
    metadata: JsonObject = Field(default_factory=dict)


class VectorMatch(BaseModel):
    """A search hit: the entity, its score on the 0..1 scale, and the stored metadata."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    entity_id: EntityId
    score: float
    metadata: JsonObject = Field(default_factory=dict)
