"""Hypothesis strategies shared by the suites and by adapters' own property tests.

``vectors(dimension)`` draws float32-representable components within +-1e3 with no
subnormals and never the zero vector: float32 so "the stored vector equals the written one"
holds on a float4 column, the bound so a sum of squares never overflows, and no subnormals
because they square to zero and a vector of them has no direction (the port rejects it).
"""

from __future__ import annotations

import uuid

from hypothesis import strategies as st
from pydantic import JsonValue

from redstring.domain.ids import EntityId, RelationshipId, SourceId, TenantId
from redstring.domain.vector import has_zero_norm

MAGNITUDE = 1e3


def vector_components() -> st.SearchStrategy[float]:
    """One float32-representable component in [-1e3, 1e3], never subnormal, never NaN."""
    return st.floats(
        min_value=-MAGNITUDE,
        max_value=MAGNITUDE,
        width=32,
        allow_nan=False,
        allow_infinity=False,
        allow_subnormal=False,
    )


def vectors(dimension: int) -> st.SearchStrategy[list[float]]:
    """Vectors of ``dimension`` components with a direction (see the module docstring)."""
    return st.lists(vector_components(), min_size=dimension, max_size=dimension).filter(
        lambda vector: not has_zero_norm(vector)
    )


def tenant_ids() -> st.SearchStrategy[TenantId]:
    """Valid tenant ids, short and varied."""
    return st.from_regex(r"\A[a-z0-9][a-z0-9._:-]{0,15}\Z").map(TenantId)


def tenant_pairs() -> st.SearchStrategy[tuple[TenantId, TenantId]]:
    """Two distinct tenant ids."""
    return st.tuples(tenant_ids(), tenant_ids()).filter(lambda pair: pair[0] != pair[1])


def entity_ids() -> st.SearchStrategy[EntityId]:
    """Random entity ids."""
    return st.uuids(version=4).map(EntityId)


def relationship_ids() -> st.SearchStrategy[RelationshipId]:
    """Random relationship ids."""
    return st.uuids(version=4).map(RelationshipId)


def source_ids() -> st.SearchStrategy[SourceId]:
    """Source ids such as ``doc-3.md``."""
    return st.from_regex(r"\A[a-z][a-z0-9_-]{0,11}\.(md|txt)\Z").map(SourceId)


_WORDS = (
    "graph",
    "tenant",
    "vector",
    "alpha",
    "beta",
    "gamma",
    "delta",
    "ada",
    "lovelace",
    "engine",
    "river",
    "stone",
    "café",
    "naïve",
    "zürich",
    "東京",
    "data",
    "the",
    "of",
    "a",
)


def words() -> st.SearchStrategy[str]:
    """Words from a small vocabulary (incl. non-ASCII), so generated texts share terms."""
    return st.sampled_from(_WORDS)


def chunk_texts() -> st.SearchStrategy[str]:
    """Short passages of vocabulary words with punctuation: never blank, never NUL."""
    return st.lists(words(), min_size=1, max_size=12).map(lambda ws: " ".join(ws) + ".")


def _json_text() -> st.SearchStrategy[str]:
    # No NUL: PostgreSQL text and jsonb cannot hold it.
    return st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)


def metadata() -> st.SearchStrategy[dict[str, JsonValue]]:
    """JSON metadata objects (nested lists and objects, non-ASCII text) that survive jsonb.

    No floats, so equality after a round trip never hinges on a decimal rendering, and
    integers stay within 32 bits.
    """
    scalars: st.SearchStrategy[JsonValue] = st.one_of(
        st.none(), st.booleans(), st.integers(-(2**31), 2**31 - 1), _json_text()
    )
    values = st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=3), st.dictionaries(_json_text(), children, max_size=3)
        ),
        max_leaves=6,
    )
    return st.dictionaries(_json_text(), values, max_size=4)


def type_names() -> st.SearchStrategy[str]:
    """Valid entity or relationship type names."""
    return st.sampled_from(("Person", "Organisation", "Place", "Concept", "WORKS_FOR", "KNOWS"))


def random_entity_id() -> EntityId:
    """A fresh entity id outside hypothesis, for example-based tests."""
    return EntityId(uuid.uuid4())
