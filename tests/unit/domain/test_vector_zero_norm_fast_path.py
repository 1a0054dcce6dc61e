"""``has_zero_norm``'s float64 fast path gives the exact float32 answer on every vector.

The fast path exists so that validating a 384-wide vector costs microseconds rather than the
~0.6 ms of emulating float32 component by component (bulk upserts validate every vector).
The reference below is that emulation, written here independently of the library.
"""

from __future__ import annotations

import math
import re
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.vector import has_zero_norm, validate_vector

_F32 = struct.Struct("<f")


def _f32(value: float) -> float:
    try:
        return float(_F32.unpack(_F32.pack(value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def reference(vector: list[float]) -> bool:
    total = 0.0
    for component in vector:
        narrowed = _f32(component)
        total = _f32(total + _f32(narrowed * narrowed))
    return total < 2.0**-126


# Mantissas scaled by powers of two around the band where float32 squares underflow
# (components near 2**-63), plus exact zeros and ordinary values.
_components = st.one_of(
    st.builds(
        lambda mantissa, exponent: math.ldexp(mantissa, exponent),
        st.floats(min_value=-2.0, max_value=2.0, allow_nan=False),
        st.integers(min_value=-80, max_value=-50),
    ),
    st.just(0.0),
    st.floats(min_value=-1e3, max_value=1e3, allow_nan=False),
)


@given(st.lists(_components, max_size=40))
def test_the_fast_path_agrees_with_float32_emulation(vector: list[float]) -> None:
    """Whatever the mix of tiny, zero and ordinary components, the answer is the exact one."""
    assert has_zero_norm(vector) == reference(vector)


@given(st.integers(min_value=1, max_value=2000), st.integers(min_value=-70, max_value=-55))
def test_wide_vectors_of_equal_tiny_components_agree(width: int, exponent: int) -> None:
    """Many equal tiny components: the sum crosses the threshold while no square does."""
    vector = [math.ldexp(1.0, exponent)] * width
    assert has_zero_norm(vector) == reference(vector)


def test_validation_still_names_the_first_bad_component() -> None:
    """The fast finiteness check falls back to the loop that names the offender."""
    for bad in (math.nan, math.inf, 1e39):
        with pytest.raises(ValueError, match=re.escape(f"component 1 is {bad!r}")):
            validate_vector([1.0, bad, math.nan], dimension=3)
