"""Reciprocal rank fusion: the sum, the order, and the tie-break."""

from __future__ import annotations

import pytest

from redstring.domain.errors import InvalidArgumentError
from redstring.retrieval.fusion import fuse
from redstring.retrieval.settings import RetrievalSettings


def test_scores_are_the_sum_of_reciprocal_ranks() -> None:
    """An item two signals found scores 1/(k+r1) + 1/(k+r2) and reports both ranks."""
    fused = fuse({"a": ["x", "y"], "b": ["y"]}, k=10)
    assert [item.key for item in fused] == ["y", "x"]
    assert fused[0].score == pytest.approx(1 / 12 + 1 / 11)
    assert fused[0].ranks == {"a": 2, "b": 1}
    assert fused[1].ranks == {"a": 1}


def test_equal_scores_break_by_best_rank_then_key() -> None:
    """Ties go to the item with the better single rank, then to the smaller key text."""
    fused = fuse({"a": ["p", "q"], "b": ["q", "p"], "c": ["s"], "d": ["r"]}, k=0)
    assert [item.key for item in fused] == ["p", "q", "r", "s"]


def test_a_repeated_key_counts_at_its_first_position() -> None:
    """A signal listing a key twice votes once, at the better rank."""
    [item] = fuse({"a": ["x", "x"]}, k=0)
    assert (item.score, item.ranks) == (1.0, {"a": 1})


def test_a_weight_multiplies_its_signals_votes() -> None:
    """Weighted, a signal's second item can beat another signal's first; weight 0 keeps the
    rank but not the vote, and an unlisted signal weighs 1."""
    plain = fuse({"a": ["x"], "b": ["y", "x"]}, k=0)
    assert [item.key for item in plain] == ["x", "y"]
    weighted = fuse({"a": ["x"], "b": ["y", "x"]}, k=0, weights={"a": 0.1, "b": 3})
    assert [item.key for item in weighted] == ["y", "x"]
    assert weighted[1].score == pytest.approx(0.1 + 3 / 2)
    muted = fuse({"a": ["x"], "b": ["y"]}, k=0, weights={"a": 0})
    assert [(item.key, item.score, item.ranks) for item in muted] == [
        ("y", 1.0, {"b": 1}),
        ("x", 0.0, {"a": 1}),
    ]
    with pytest.raises(InvalidArgumentError, match="weight of a"):
        fuse({"a": ["x"]}, weights={"a": -1})


def test_settings_refuse_bad_weights_and_walk_shares() -> None:
    """Weights for unknown signals, negative weights and shares outside [0, 1] are typed
    errors naming what is wrong."""
    with pytest.raises(InvalidArgumentError, match="unknown signals"):
        RetrievalSettings(weights={"telepathy": 1.0})
    with pytest.raises(InvalidArgumentError, match="weight of lexical"):
        RetrievalSettings(weights={"lexical": -0.5})
    for field in ("walk_damping", "walk_passage_restart"):
        with pytest.raises(InvalidArgumentError, match=field):
            RetrievalSettings(**{field: 1.5})  # type: ignore[arg-type]
    assert RetrievalSettings().weight("names") == 0.25
    assert RetrievalSettings(weights={}).weight("names") == 1.0


def test_a_negative_constant_is_a_typed_error() -> None:
    """The message names the constant."""
    with pytest.raises(InvalidArgumentError, match="RRF constant"):
        fuse({"a": ["x"]}, k=-1)


@pytest.mark.parametrize(
    "field",
    [
        "per_signal",
        "seeds",
        "evidence_relationships",
        "rrf_k",
        "walk_seed_passages",
        "walk_passages",
        "walk_entities",
        "walk_related_entities",
        "relationship_weight",
    ],
)
def test_negative_settings_are_typed_errors(field: str) -> None:
    """Every count in RetrievalSettings refuses a negative value, naming the field."""
    with pytest.raises(InvalidArgumentError, match=field):
        RetrievalSettings(**{field: -1})  # type: ignore[arg-type]


def test_a_non_positive_cache_lifetime_is_a_typed_error() -> None:
    """A query vector cached for zero seconds would never be read back."""
    with pytest.raises(InvalidArgumentError, match="query_vector_ttl_seconds"):
        RetrievalSettings(query_vector_ttl_seconds=0)
