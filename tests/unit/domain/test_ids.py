"""Ids: validated tenant and source ids, fresh UUIDs, and the canonical text order."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import (
    existing_source_id,
    id_text,
    new_entity_id,
    new_event_id,
    new_relationship_id,
    source_id,
    tenant_id,
)


class TestTenantId:
    """1-128 characters of letters, digits and ``._:-``, starting with a letter or digit."""

    @pytest.mark.parametrize("value", ["acme", "A", "7", "team-1.eu:prod_2", "x" * 128])
    def test_valid_tenant_ids_are_returned_unchanged(self, value: str) -> None:
        """Validation returns the same string, typed."""
        assert tenant_id(value) == value

    @pytest.mark.parametrize(
        "value",
        ["", "x" * 129, "-leading", ".hidden", "has space", "semi;colon", "a/b", "ünï", "a\x00"],
    )
    def test_invalid_tenant_ids_are_rejected_with_the_value_named(self, value: str) -> None:
        """The message quotes the value and states the alphabet."""
        with pytest.raises(InvalidArgumentError, match="letters, digits") as info:
            tenant_id(value)
        assert repr(value) in str(info.value)

    def test_a_trailing_newline_is_not_accepted(self) -> None:
        """A ``$`` that matched before a final newline would let ``"acme\\n"`` through."""
        with pytest.raises(InvalidArgumentError):
            tenant_id("acme\n")


class TestSourceId:
    """Non-blank, at most 1024 characters, printable (no control character, no lone
    surrogate); anything else a caller likes."""

    @pytest.mark.parametrize("value", ["memo.md", "s3://bucket/a b.pdf", "東京.txt", "x" * 1024])
    def test_valid_source_ids_are_returned_unchanged(self, value: str) -> None:
        """Paths, URLs and non-ASCII names are all fine."""
        assert source_id(value) == value

    @pytest.mark.parametrize("value", ["", "   ", "\n\t", "x" * 1025])
    def test_invalid_source_ids_are_rejected(self, value: str) -> None:
        """Blank or over-long ids are typed errors naming the rule."""
        with pytest.raises(InvalidArgumentError, match="1-1024 characters"):
            source_id(value)

    @pytest.mark.parametrize(
        ("value", "position"),
        [("a\x00b", 1), ("a\r\nb", 1), ("\x1b[31mred", 0), ("tab\there", 3), ("x\x85", 1),
         ("del\x7f", 3), ("x\ud800", 1)],
    )  # fmt: skip
    def test_control_characters_and_lone_surrogates_are_rejected(
        self, value: str, position: int
    ) -> None:
        """Every listing shows an id as typed: the error names the character and where."""
        with pytest.raises(InvalidArgumentError, match=f"character {position} is"):
            source_id(value)

    def test_an_existing_source_keeps_the_rule_it_was_stored_under(self) -> None:
        """A source an earlier version stored with a line break can still be named."""
        assert existing_source_id("a\r\nb") == "a\r\nb"
        with pytest.raises(InvalidArgumentError, match="no NUL"):
            existing_source_id("a\x00b")


class TestFreshIds:
    """New entity, relationship and event ids are random UUIDs."""

    @pytest.mark.parametrize("make", [new_entity_id, new_relationship_id, new_event_id])
    def test_fresh_ids_are_distinct_version_4_uuids(self, make: Callable[[], uuid.UUID]) -> None:
        """A thousand calls give a thousand different v4 UUIDs."""
        ids = [make() for _ in range(1000)]
        assert len(set(ids)) == 1000
        assert all(isinstance(value, uuid.UUID) and value.version == 4 for value in ids)


class TestIdText:
    """The canonical text of a UUID: lowercase, hyphenated, and the order paging uses."""

    def test_the_text_is_lowercase_and_hyphenated(self) -> None:
        """Always the 36-character form, whatever spelling built the UUID."""
        value = uuid.UUID("{0F0E0D0C-0B0A-4908-8706-050403020100}")
        assert id_text(value) == "0f0e0d0c-0b0a-4908-8706-050403020100"

    @given(st.uuids(), st.uuids())
    def test_text_order_is_unsigned_big_endian_order(self, a: uuid.UUID, b: uuid.UUID) -> None:
        """Comparing texts agrees with comparing the 128-bit values, so a backend may use either."""
        assert (id_text(a) < id_text(b)) == (a.int < b.int)
        assert (id_text(a) == id_text(b)) == (a == b)

    @given(st.uuids())
    def test_the_text_round_trips(self, value: uuid.UUID) -> None:
        """Parsing the text gives the same UUID back."""
        assert uuid.UUID(id_text(value)) == value
