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

from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId, TenantId
from redstring.domain.models import Entity, Provenance, Relationship
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


def awkward_json() -> st.SearchStrategy[JsonValue]:
    """JSON-ish values at the edges of what backends hold, for boundary properties.

    Floats of every kind (NaN, infinities, -0.0, the extremes), integers far past 64 bits,
    any Unicode including NUL and lone surrogates, nested. The models refuse some of them
    (``redstring.domain.portable``); a suite property checks that whatever they accept comes
    back equal from the adapter, so an outside adapter meets these values in its suite.
    """
    awkward_text = st.one_of(
        st.text(st.characters(codec=None, categories=None), max_size=6),
        st.sampled_from(("\x00", "a\x00b", "\ud800", "x\udfff", "-0", "NaN", "💥")),
    )
    scalars: st.SearchStrategy[JsonValue] = st.one_of(
        st.none(),
        st.booleans(),
        st.floats(),
        st.sampled_from((-0.0, 5e-324, 1.7976931348623157e308)),
        st.integers(-(2**200), 2**200),
        awkward_text,
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=3), st.dictionaries(awkward_text, children, max_size=3)
        ),
        max_leaves=5,
    )


def type_names() -> st.SearchStrategy[str]:
    """Valid entity or relationship type names."""
    return st.sampled_from(("Person", "Organisation", "Place", "Concept", "WORKS_FOR", "KNOWS"))


def random_entity_id() -> EntityId:
    """A fresh entity id outside hypothesis, for example-based tests."""
    return EntityId(uuid.uuid4())


# -- the graph --------------------------------------------------------------------------------

BLOCKING_KEY_VOCABULARY = (
    "Person|n:ada lovelace",
    "Person|p:L142",
    "Person|s:ada lovelace",
    "Place|n:zürich",
    "Organisation|n:acme",
)
"""A few blocking keys, so that generated entities share keys and lookups return several."""


def entity_names() -> st.SearchStrategy[str]:
    """Names: vocabulary phrases, or free non-blank text without NUL (any script)."""
    phrases = st.lists(words(), min_size=1, max_size=3).map(" ".join)
    free = st.text(
        st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=12
    ).filter(lambda text: bool(text.strip()))
    return st.one_of(phrases, free)


_CHUNK_IDS = tuple(ChunkId(text) for text in ("0f3a9c1e", "7b2d4e60", "c9e8a1f4"))


def provenances() -> st.SearchStrategy[Provenance]:
    """Provenance with or without a source, chunk ids and a provider-qualified model."""
    return st.builds(
        Provenance,
        source_id=st.sampled_from((None, SourceId("memo.md"), SourceId("notes-2.txt"))),
        chunk_ids=st.lists(st.sampled_from(_CHUNK_IDS), max_size=2, unique=True).map(tuple),
        model=st.sampled_from((None, "fake/extractor-1", "ollama/qwen3")),
    )


def small_attributes() -> st.SearchStrategy[dict[str, JsonValue]]:
    """Flat attributes that are cheap to draw, for tests about identity rather than fidelity."""
    return st.dictionaries(st.sampled_from(("rank", "tier")), st.integers(0, 3), max_size=2)


def entities(
    ids: st.SearchStrategy[EntityId] | None = None,
    types: st.SearchStrategy[str] | None = None,
    attributes: st.SearchStrategy[dict[str, JsonValue]] | None = None,
) -> st.SearchStrategy[Entity]:
    """Entities with provenance and blocking keys from ``BLOCKING_KEY_VOCABULARY``.

    Attributes default to ``metadata()`` (nested JSON that survives jsonb); pass
    ``small_attributes()`` where many entities are drawn and only identity matters. Pass
    ``ids`` drawn from a small pool to make re-upserts of one id likely.
    """
    return st.builds(
        Entity,
        id=entity_ids() if ids is None else ids,
        type=type_names() if types is None else types,
        name=entity_names(),
        attributes=metadata() if attributes is None else attributes,
        blocking_keys=st.lists(st.sampled_from(BLOCKING_KEY_VOCABULARY), max_size=3).map(tuple),
        provenance=provenances(),
    )


def relationships(
    subject_ids: st.SearchStrategy[EntityId],
    object_ids: st.SearchStrategy[EntityId],
    ids: st.SearchStrategy[RelationshipId] | None = None,
    attributes: st.SearchStrategy[dict[str, JsonValue]] | None = None,
) -> st.SearchStrategy[Relationship]:
    """Edges between the given endpoints, typed ``KNOWS`` or ``WORKS_FOR``.

    Attributes default to ``metadata()``, as for ``entities``.
    """
    return st.builds(
        Relationship,
        id=relationship_ids() if ids is None else ids,
        type=st.sampled_from(("KNOWS", "WORKS_FOR")),
        subject_id=subject_ids,
        object_id=object_ids,
        attributes=metadata() if attributes is None else attributes,
        provenance=provenances(),
    )
