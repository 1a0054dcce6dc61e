"""Reciprocal rank fusion: one ranking from several, by summed ``1 / (k + rank)``.

RRF needs no score calibration between signals (a BM25 score and a cosine cannot be added,
their ranks can) and rewards an item several signals agree on. The order is total and the
same on every run: by fused score descending, then by the best rank the item reached in
any signal, then by its key's text.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from redstring.domain.errors import InvalidArgumentError

KeyT = TypeVar("KeyT", bound=Hashable)

DEFAULT_RRF_K = 60
"""The usual constant: a rank-1 hit is worth 1/61, a rank-60 hit half of that."""


@dataclass(frozen=True)
class Fused(Generic[KeyT]):
    """One fused item: its key, its fused score and its 1-based rank in each signal."""

    key: KeyT
    score: float
    ranks: dict[str, int]


def fuse(
    rankings: Mapping[str, Sequence[KeyT]],
    *,
    k: int = DEFAULT_RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[Fused[KeyT]]:
    """Fuse named rankings (best first, keys unique within each) into one, best first.

    Each signal's votes are multiplied by its weight in ``weights`` (1 when absent), so a
    key's score is the sum over signals of ``weight / (k + rank)``. A key repeated within one
    ranking counts at its first position. Raises :class:`InvalidArgumentError` for a
    negative ``k`` or weight.
    """
    if k < 0:
        raise InvalidArgumentError(f"the RRF constant k must be non-negative, got {k}")
    weight = dict(weights or {})
    for signal, value in weight.items():
        if not value >= 0:
            raise InvalidArgumentError(f"the weight of {signal} must be >= 0, got {value}")
    ranks: dict[KeyT, dict[str, int]] = {}
    for signal, ranking in rankings.items():
        for position, key in enumerate(ranking, start=1):
            ranks.setdefault(key, {}).setdefault(signal, position)
    fused = [
        Fused(
            key=key,
            score=sum(weight.get(signal, 1.0) / (k + rank) for signal, rank in by.items()),
            ranks=by,
        )
        for key, by in ranks.items()
    ]
    fused.sort(key=lambda item: (-item.score, _best_rank(item, weight), str(item.key)))
    return fused


def _best_rank(item: Fused[KeyT], weights: Mapping[str, float]) -> int:
    """The best rank among the signals that vote for ``item`` (a zero weight does not)."""
    return min(
        (rank for signal, rank in item.ranks.items() if weights.get(signal, 1.0) > 0),
        default=min(item.ranks.values()),
    )
