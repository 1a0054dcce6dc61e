"""Values every backend can hold: what the models refuse so that no adapter has to (ADR 0023)."""

from __future__ import annotations

import math
import uuid
from typing import Any

import pytest
from pydantic import ValidationError

from redstring.domain.blocking import attribute_keys, blocking_keys, lookup_keys
from redstring.domain.chunks import Chunk, StoredChunk, chunk_id
from redstring.domain.events import NewEvent
from redstring.domain.ids import EntityId, EventId, RelationshipId, SourceId
from redstring.domain.models import Alias, Entity, Relationship
from redstring.domain.portable import MAX_BLOCKING_KEY_LENGTH, MAX_SQL_INT, check_json
from redstring.domain.vector import VectorRecord

ADA = EntityId(uuid.UUID(int=1))
SURROGATE = "\ud800"

UNPORTABLE_JSON: list[Any] = [
    math.nan,
    math.inf,
    -math.inf,
    [1, {"deep": math.nan}],
    f"lone {SURROGATE}",
    {f"key {SURROGATE}": 1},
]
PORTABLE_JSON: list[Any] = [
    -0.0,
    2**200,
    -(2**70),
    1e308,
    "Zürich ✓ 𝄞",
    "nul\x00inside",
    {"key\x00": [None, True]},
]


@pytest.mark.parametrize("value", UNPORTABLE_JSON, ids=repr)
def test_every_json_field_refuses_what_a_backend_cannot_hold(value: Any) -> None:
    """Attributes, payloads and metadata refuse NaN, infinities and lone surrogates."""
    builders = (
        lambda: Entity(id=ADA, type="Person", name="Ada", attributes={"x": value}),
        lambda: Relationship(
            id=RelationshipId(ADA),
            type="KNOWS",
            subject_id=ADA,
            object_id=ADA,
            attributes={"x": value},
        ),
        lambda: NewEvent(event_id=EventId(ADA), type="Noted", payload={"x": value}),
        lambda: VectorRecord(entity_id=ADA, vector=[1.0], metadata={"x": value}),
        lambda: StoredChunk(
            id=chunk_id("s", "text"),
            source_id=SourceId("s"),
            chunk_index=0,
            text="text",
            metadata={"x": value},
        ),
    )
    for build in builders:
        with pytest.raises(ValidationError):
            build()


@pytest.mark.parametrize("value", PORTABLE_JSON, ids=repr)
def test_json_every_backend_holds_is_accepted(value: Any) -> None:
    """Negative zero, integers past 64 bits, NUL and any script are JSON every backend keeps."""
    assert check_json({"x": value}) == {"x": value}
    assert Entity(id=ADA, type="Person", name="Ada", attributes={"x": value}).attributes == {
        "x": value
    }


def test_names_and_keys_refuse_lone_surrogates() -> None:
    """A lone surrogate cannot be encoded as UTF-8, so no store could keep the name."""
    with pytest.raises(ValidationError, match="surrogate"):
        Entity(id=ADA, type="Person", name=f"Ada {SURROGATE}")
    with pytest.raises(ValidationError, match="surrogate"):
        Entity(id=ADA, type="Person", name="Ada", blocking_keys=(f"k:{SURROGATE}",))
    with pytest.raises(ValidationError, match="surrogate"):
        Alias(alias_id=ADA, canonical_id=ADA, name=SURROGATE)


def test_a_blocking_key_is_at_most_the_longest_every_backend_indexes() -> None:
    """A key of ``MAX_BLOCKING_KEY_LENGTH`` characters is kept; one more is refused."""
    longest = "k" * MAX_BLOCKING_KEY_LENGTH
    assert Entity(id=ADA, type="Person", name="Ada", blocking_keys=(longest,)).blocking_keys == (
        longest,
    )
    with pytest.raises(ValidationError, match="longer than"):
        Entity(id=ADA, type="Person", name="Ada", blocking_keys=(longest + "k",))


def test_keys_derived_from_a_very_long_name_fit() -> None:
    """Names of 9,000 characters (past Neo4j's 8,146-byte index limit) yield storable keys."""
    name = " ".join(["Ada"] * 3000)
    keys = blocking_keys("Person", name)
    assert max(map(len, keys)) == MAX_BLOCKING_KEY_LENGTH
    Entity(id=ADA, type="Person", name=name, blocking_keys=keys)


def test_lookup_and_attribute_keys_of_very_long_values_fit_and_meet() -> None:
    """The keys a long name is looked up under, and a long identifier's key, are cut like the
    stored ones: they fit an ``Entity``, and a lookup still meets what was stored."""
    name = " ".join(["Ada"] * 3000)
    looked_up = lookup_keys("Person", name)
    assert max(map(len, looked_up)) == MAX_BLOCKING_KEY_LENGTH
    assert set(looked_up) & set(blocking_keys("Person", name))
    keys = attribute_keys("Person", {"identifier": "X" * 5000})
    assert keys
    assert max(map(len, keys)) == MAX_BLOCKING_KEY_LENGTH
    Entity(id=ADA, type="Person", name="Ada", blocking_keys=keys)


def test_a_chunk_index_fits_a_sql_integer() -> None:
    """``chunk_index`` stops at ``2**31 - 1``: PostgreSQL raised a driver error past it."""
    text = "text"
    Chunk(id=chunk_id("s", text), source_id=SourceId("s"), chunk_index=MAX_SQL_INT, text=text)
    with pytest.raises(ValidationError):
        Chunk(
            id=chunk_id("s", text), source_id=SourceId("s"), chunk_index=MAX_SQL_INT + 1, text=text
        )
