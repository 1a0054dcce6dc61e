"""Content-addressed chunk ids, and the Chunk model that refuses any other id."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from redstring.domain.chunks import Chunk, StoredChunk, chunk_id
from redstring.domain.ids import ChunkId, EntityId, SourceId

SOURCE = SourceId("memo.md")
TEXT = "Ada Lovelace wrote the first program."


def _chunk(text: str = TEXT, *, source: SourceId = SOURCE, index: int = 0) -> Chunk:
    return Chunk(id=chunk_id(source, text), source_id=source, chunk_index=index, text=text)


def test_the_id_is_the_same_in_another_process() -> None:
    """A fresh interpreter with a different hash seed computes the same id.

    Python's ``hash()`` of a string is salted per process; an id built on it would change on
    every run and re-ingesting unchanged text would never be a no-op.
    """
    program = (
        f"from redstring.domain.chunks import chunk_id\nprint(chunk_id({SOURCE!r}, {TEXT!r}))\n"
    )
    ids = {
        subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert ids == {chunk_id(SOURCE, TEXT)}


def test_the_id_is_a_fixed_digest() -> None:
    """Pinned value: a change to the derivation would orphan every stored chunk."""
    assert chunk_id(SourceId("s"), "t") == "c1db05dfba1a8fcf82e8541b1121386d9fda36ca"


@given(st.text(), st.text())
def test_the_id_is_deterministic_and_well_formed(source: str, text: str) -> None:
    """``c`` followed by 39 lowercase hex digits, the same on every call."""
    value = chunk_id(source, text)
    assert value == chunk_id(source, text)
    assert len(value) == 40
    assert value[0] == "c"
    assert set(value[1:]) <= set("0123456789abcdef")


def test_source_and_text_cannot_trade_characters() -> None:
    """The source id is length-prefixed, so the boundary between the parts is part of the id."""
    assert chunk_id("ab", "c") != chunk_id("a", "bc")
    assert chunk_id("", "abc") != chunk_id("abc", "")


@given(st.text(), st.text(), st.text(), st.text())
def test_different_pairs_have_different_ids(s1: str, t1: str, s2: str, t2: str) -> None:
    """Two distinct (source, text) pairs never share an id."""
    if (s1, t1) != (s2, t2):
        assert chunk_id(s1, t1) != chunk_id(s2, t2)


def test_the_same_passage_in_two_sources_has_two_ids() -> None:
    """The id covers the source, so a shared quotation is two chunks."""
    assert chunk_id(SourceId("a.md"), TEXT) != chunk_id(SourceId("b.md"), TEXT)


def test_a_chunk_with_its_content_address_is_accepted() -> None:
    """The id derived from source and text is the one a chunk may carry."""
    chunk = _chunk()
    assert chunk.id == chunk_id(SOURCE, TEXT)
    assert (chunk.char_start, chunk.char_end) == (0, 0)


def test_a_chunk_rejects_an_id_that_is_not_content_addressed() -> None:
    """Any other id is refused, and the message says how to build the right one."""
    with pytest.raises(ValidationError, match="chunk_id"):
        Chunk(id=ChunkId("c" + "0" * 39), source_id=SOURCE, chunk_index=0, text=TEXT)


def test_a_chunk_rejects_the_id_of_another_source() -> None:
    """An id derived for another source does not vouch for this one."""
    with pytest.raises(ValidationError, match="not chunk_id"):
        Chunk(id=chunk_id("other.md", TEXT), source_id=SOURCE, chunk_index=0, text=TEXT)


def test_changing_the_text_of_a_chunk_is_rejected() -> None:
    """Assignment is validated too, so a chunk cannot drift away from its id."""
    chunk = _chunk()
    with pytest.raises(ValidationError, match="not chunk_id"):
        chunk.text = "Something else."


def test_a_chunk_rejects_nul_and_empty_text() -> None:
    """NUL cannot be stored in PostgreSQL text; an empty passage holds nothing."""
    with pytest.raises(ValidationError, match="NUL"):
        _chunk("a\x00b")
    with pytest.raises(ValidationError, match="at least 1 character"):
        _chunk("")


@pytest.mark.parametrize(
    "field", [{"chunk_index": -1}, {"char_start": -1}, {"char_end": -1}, {"tenant": "x"}]
)
def test_a_chunk_rejects_negative_positions_and_unknown_fields(field: dict[str, object]) -> None:
    """Positions are non-negative and a misspelt field is an error, not silently dropped."""
    values: dict[str, object] = {
        "id": chunk_id(SOURCE, TEXT),
        "source_id": SOURCE,
        "chunk_index": 0,
        "text": TEXT,
        **field,
    }
    with pytest.raises(ValidationError):
        Chunk.model_validate(values)


def test_a_stored_chunk_keeps_its_entities_and_metadata() -> None:
    """A stored chunk is still content-addressed and carries entity ids and JSON metadata."""
    entity = EntityId(uuid.UUID(int=7))
    stored = StoredChunk(
        id=chunk_id(SOURCE, TEXT),
        source_id=SOURCE,
        chunk_index=3,
        text=TEXT,
        entity_ids=(entity,),
        metadata={"page": 2},
    )
    assert stored.entity_ids == (entity,)
    assert stored.metadata == {"page": 2}
    with pytest.raises(ValidationError, match="not chunk_id"):
        StoredChunk(id=ChunkId("cx"), source_id=SOURCE, chunk_index=0, text=TEXT)


@given(st.lists(st.integers(1, 4).map(lambda n: EntityId(uuid.UUID(int=n))), max_size=8))
def test_a_stored_chunk_names_each_entity_once_where_it_first_appears(
    entities: list[EntityId],
) -> None:
    """Repeats are dropped on construction and on assignment, first positions kept, so a
    store never indexes one entity twice under a chunk (ADR 0028)."""
    distinct = list(dict.fromkeys(entities))
    stored = StoredChunk(
        id=chunk_id(SOURCE, TEXT), source_id=SOURCE, chunk_index=0, text=TEXT, entity_ids=entities
    )
    assert list(stored.entity_ids) == distinct
    stored.entity_ids = (*entities, *reversed(entities))
    assert list(stored.entity_ids) == distinct
