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


def fuse(rankings: Mapping[str, Sequence[KeyT]], *, k: int = DEFAULT_RRF_K) -> list[Fused[KeyT]]:
    """Fuse named rankings (best first, keys unique within each) into one, best first.

    A key repeated within one ranking counts at its first position. Raises
    :class:`InvalidArgumentError` for a negative ``k``.
    """
    if k < 0:
        raise InvalidArgumentError(f"the RRF constant k must be non-negative, got {k}")
    ranks: dict[KeyT, dict[str, int]] = {}
    for signal, ranking in rankings.items():
        for position, key in enumerate(ranking, start=1):
            ranks.setdefault(key, {}).setdefault(signal, position)
    fused = [
        Fused(key=key, score=sum(1.0 / (k + rank) for rank in by.values()), ranks=by)
        for key, by in ranks.items()
    ]
    fused.sort(key=lambda item: (-item.score, min(item.ranks.values()), str(item.key)))
    return fused
