"""Table names: only plain lowercase identifiers, leaving room for every derived name."""

from __future__ import annotations

import pytest

from redstring.domain.errors import InvalidArgumentError
from redstring.postgres.names import TableNames, identifier

NEEDS_QUOTES = [
    "",
    "Upper",
    "has-dash",
    "has space",
    "9starts_with_digit",
    "ünïcode",
    "tab\there",
    "nul\x00",
    'quote"inside',
    "x" * 64,
]


@pytest.mark.parametrize("value", ["a", "_", "redstring_", "tenant_data_2", "x" * 63])
def test_a_plain_identifier_is_returned_unchanged(value: str) -> None:
    """Lowercase letters, digits and ``_``, starting with a letter or ``_``, up to 63."""
    assert identifier(value, what="table prefix") == value


@pytest.mark.parametrize("value", NEEDS_QUOTES)
def test_a_name_needing_quotes_is_refused_with_the_value_and_rule_named(value: str) -> None:
    """The message names what was checked, the value as given, and the rule."""
    with pytest.raises(InvalidArgumentError) as info:
        identifier(value, what="schema name")
    message = str(info.value)
    assert f"invalid schema name {value!r}" in message
    assert "lowercase letters, digits and '_'" in message
    assert "at most 63 characters" in message


def test_room_for_a_suffix_shortens_the_limit_exactly() -> None:
    """With ``room=20`` a 43-character name fits and a 44-character one does not."""
    assert identifier("p" * 43, what="table prefix", room=20) == "p" * 43
    with pytest.raises(InvalidArgumentError, match="at most 43 characters"):
        identifier("p" * 44, what="table prefix", room=20)


def test_table_names_check_both_parts_and_quote_what_they_derive() -> None:
    """The prefix leaves room for the longest suffix; tables are schema-qualified."""
    names = TableNames.checked(schema="kg", prefix="rs_", longest_suffix="chunks_source_idx")
    assert names.table("chunks") == '"kg"."rs_chunks"'
    assert names.index("chunks_source_idx") == '"rs_chunks_source_idx"'
    assert names.quoted_schema == '"kg"'
    room = 63 - len("chunks_source_idx")
    with pytest.raises(InvalidArgumentError, match="invalid table prefix"):
        TableNames.checked(schema="kg", prefix="p" * (room + 1), longest_suffix="chunks_source_idx")
    with pytest.raises(InvalidArgumentError, match="invalid schema name"):
        TableNames.checked(schema="KG", prefix="rs_", longest_suffix="chunks_source_idx")
