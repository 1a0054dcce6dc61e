"""Vector math: the port's 0..1 cosine score, the zero-norm guard and vector validation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.errors import (
    DimensionMismatchError,
    InvalidArgumentError,
    ZeroVectorError,
)
from redstring.domain.vector import cosine, cosine_score, has_zero_norm, validate_vector
from redstring.testing.strategies import vectors


class TestCosineScore:
    """``(1 + cosine) / 2``: 1.0 identical, 0.5 orthogonal, 0.0 opposite."""

    def test_identical_directions_score_one(self) -> None:
        """A vector matches itself, and any positive multiple of itself, at 1.0."""
        assert cosine_score([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]) == pytest.approx(1.0)
        assert cosine_score([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]) == pytest.approx(1.0)

    def test_orthogonal_directions_score_one_half(self) -> None:
        """Unrelated directions sit in the middle of the scale."""
        assert cosine_score([1.0, 0.0], [0.0, 1.0]) == pytest.approx(0.5)

    def test_opposite_directions_score_zero(self) -> None:
        """The scale's floor is the exact opposite direction."""
        assert cosine_score([1.0, -2.0], [-1.0, 2.0]) == pytest.approx(0.0)

    def test_a_known_angle(self) -> None:
        """Sixty degrees apart: cosine 0.5, score 0.75."""
        assert cosine_score([1.0, 0.0], [0.5, math.sqrt(3) / 2]) == pytest.approx(0.75)

    @given(vectors(4), vectors(4))
    def test_scores_are_symmetric_and_within_the_scale(
        self, a: list[float], b: list[float]
    ) -> None:
        """Order does not matter and the score never leaves [0, 1]."""
        score = cosine_score(a, b)
        assert 0.0 <= score <= 1.0
        assert score == pytest.approx(cosine_score(b, a))
        assert score == pytest.approx((1.0 + cosine(a, b)) / 2.0)

    def test_mismatched_lengths_raise(self) -> None:
        """Vectors of different lengths have no cosine."""
        with pytest.raises(DimensionMismatchError):
            cosine_score([1.0, 0.0], [1.0, 0.0, 0.0])

    def test_a_zero_vector_raises(self) -> None:
        """Cosine is undefined at the origin."""
        with pytest.raises(ZeroVectorError):
            cosine_score([0.0, 0.0], [1.0, 0.0])

    def test_large_float32_components_are_scored(self) -> None:
        """Components near the top of float32's range square past it; that is not an error.

        The zero guard narrows to float32 and used to raise ``OverflowError`` here.
        """
        assert cosine_score([1e20, 0.0], [3e38, 0.0]) == pytest.approx(1.0)


class TestHasZeroNorm:
    """The guard's band: the origin and vectors whose float32 sum of squares underflows."""

    def test_the_zero_vector_has_zero_norm(self) -> None:
        """All zeros, of either sign."""
        assert has_zero_norm([0.0, 0.0, 0.0])
        assert has_zero_norm([-0.0, 0.0])

    def test_an_empty_vector_has_zero_norm(self) -> None:
        """No components, no direction."""
        assert has_zero_norm([])

    @pytest.mark.parametrize("component", [1e-20, -1e-20, 1e-30, 1e-38, 1e-45])
    def test_components_whose_squares_underflow_float32_have_zero_norm(
        self, component: float
    ) -> None:
        """1e-20 squares to 1e-40, below float32's smallest normal: no usable direction."""
        assert has_zero_norm([component, component, component])

    @pytest.mark.parametrize("component", [1e-10, 1e-18, 1.0, -3.5, 1e20, 3.4e38])
    def test_components_whose_squares_stay_normal_have_a_norm(self, component: float) -> None:
        """1e-10 squares to 1e-20, comfortably a normal float32; large values overflow to inf."""
        assert not has_zero_norm([component, component, component])

    def test_one_ordinary_component_is_enough(self) -> None:
        """A single normal component gives the vector a direction."""
        assert not has_zero_norm([0.0, 1e-30, 0.5])

    @given(vectors(8))
    def test_generated_vectors_are_never_zero_norm(self, vector: list[float]) -> None:
        """The shared strategy only draws vectors the port accepts."""
        assert not has_zero_norm(vector)


class TestValidateVector:
    """Length, finiteness and direction, each with its own typed error."""

    def test_a_good_vector_passes(self) -> None:
        """Right length, finite, with a direction: no error."""
        validate_vector([0.1, -0.2, 0.3], dimension=3)

    @pytest.mark.parametrize("vector", [[1.0, 2.0], [1.0, 2.0, 3.0, 4.0], []])
    def test_a_wrong_length_is_a_dimension_mismatch(self, vector: list[float]) -> None:
        """The error carries both numbers and names them in its message."""
        with pytest.raises(DimensionMismatchError, match=f"has {len(vector)} components") as info:
            validate_vector(vector, dimension=3)
        assert (info.value.expected, info.value.actual) == (3, len(vector))

    @pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 1e39, -1e300])
    def test_non_finite_or_out_of_float32_components_are_rejected(self, bad: float) -> None:
        """NaN, infinities and values float32 cannot hold; the message names the index."""
        with pytest.raises(InvalidArgumentError, match="component 1"):
            validate_vector([1.0, bad, 1.0], dimension=3)

    @pytest.mark.parametrize("vector", [[0.0, 0.0], [1e-20, 1e-20], [1e-30, -1e-30]])
    def test_a_directionless_vector_is_a_zero_vector_error(self, vector: list[float]) -> None:
        """Zero and underflowing norms are refused before they reach a backend."""
        with pytest.raises(ZeroVectorError, match="zero norm"):
            validate_vector(vector, dimension=2)

    @pytest.mark.parametrize("vector", [[3.4e38, -1e20], [1e20, 1e20], [2e19, 0.0]])
    def test_a_sum_of_squares_past_float32_is_rejected(self, vector: list[float]) -> None:
        """pgvector sums squares in float32 and scores ``[1e20, 1e20]`` as orthogonal to
        itself without an error, so such vectors are refused before they reach a backend."""
        with pytest.raises(InvalidArgumentError, match="float32 range"):
            validate_vector(vector, dimension=2)

    def test_large_components_whose_squares_fit_are_accepted(self) -> None:
        """1e18 squared is 1e36, inside float32: large is fine, overflowing is not."""
        validate_vector([1e18, -1e18], dimension=2)

    def test_every_vector_error_is_a_value_error(self) -> None:
        """Callers catching ``ValueError`` for bad input catch all three."""
        for error in (DimensionMismatchError, InvalidArgumentError, ZeroVectorError):
            assert issubclass(error, ValueError)


@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1, max_size=6))
def test_the_guard_agrees_with_the_float32_band(vector: list[float]) -> None:
    """Outside the fuzzy edge of the band the answer is known, and nothing raises.

    A component of at least 2**-63 squares to a normal float32 (2**-126 or more), so the
    vector has a direction; six components of at most 2**-65 sum to under 2**-127.
    """
    largest = max(abs(component) for component in vector)
    if largest >= 2.0**-63:
        assert not has_zero_norm(vector)
    elif largest <= 2.0**-65:
        assert has_zero_norm(vector)
