"""Event envelopes: what the log stores, with validated names and positive positions."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import ValidationError

from redstring.domain.events import NewEvent, StoredEvent
from redstring.domain.ids import EventId

EVENT = EventId(uuid.UUID(int=5))


def _stored(**overrides: Any) -> StoredEvent:
    values: dict[str, Any] = {
        "event_id": EVENT,
        "type": "EntityCreated",
        "payload": {"name": "Ada"},
        "stream": "entity-1",
        "stream_version": 1,
        "position": 1,
        **overrides,
    }
    return StoredEvent.model_validate(values)


class TestNewEvent:
    """An event to append: an id, a type and a JSON payload."""

    def test_the_payload_defaults_to_empty_and_is_not_shared(self) -> None:
        """Two events never share one default dictionary."""
        first = NewEvent(event_id=EVENT, type="SourceDeleted")
        second = NewEvent(event_id=EventId(uuid.UUID(int=6)), type="SourceDeleted")
        first.payload["source_id"] = "memo.md"
        assert second.payload == {}

    @pytest.mark.parametrize("event_type", ["EntityCreated", "entity.created", "v2_Merge", "X"])
    def test_identifier_like_types_are_accepted(self, event_type: str) -> None:
        """A letter, then letters, digits, ``_`` or ``.``."""
        assert NewEvent(event_id=EVENT, type=event_type).type == event_type

    @pytest.mark.parametrize(
        "event_type", ["", "1st", ".hidden", "Entity Created", "Entity-Created", "a" * 129]
    )
    def test_other_types_are_rejected_with_the_value_named(self, event_type: str) -> None:
        """The message quotes the type and states the rule."""
        with pytest.raises(ValidationError, match="invalid event type"):
            NewEvent(event_id=EVENT, type=event_type)

    def test_the_payload_round_trips_through_json(self) -> None:
        """Events are stored as JSON, so only JSON values are accepted."""
        event = NewEvent(
            event_id=EVENT, type="EntityCreated", payload={"a": [1, 2.5, None, {"b": True}]}
        )
        assert NewEvent.model_validate_json(event.model_dump_json()) == event
        with pytest.raises(ValidationError):
            NewEvent(event_id=EVENT, type="EntityCreated", payload={"a": {1, 2}})

    def test_unknown_fields_and_bad_assignments_are_rejected(self) -> None:
        """A misspelt field fails, and so does assigning an invalid type later."""
        with pytest.raises(ValidationError):
            NewEvent.model_validate({"event_id": EVENT, "type": "A", "tenant": "acme"})
        event = NewEvent(event_id=EVENT, type="A")
        with pytest.raises(ValidationError, match="invalid event type"):
            event.type = "not valid"


class TestStoredEvent:
    """An appended event: plus its stream, its version in the stream and its log position."""

    def test_a_stored_event_keeps_the_new_event_fields(self) -> None:
        """Everything appended is read back, plus where it landed."""
        event = _stored(stream_version=3, position=42)
        assert (event.event_id, event.type, event.payload) == (
            EVENT,
            "EntityCreated",
            {"name": "Ada"},
        )
        assert (event.stream, event.stream_version, event.position) == ("entity-1", 3, 42)
        assert isinstance(event, NewEvent)

    @pytest.mark.parametrize("field", ["stream_version", "position"])
    @pytest.mark.parametrize("value", [0, -1])
    def test_versions_and_positions_start_at_one(self, field: str, value: int) -> None:
        """Numbering is from 1, so 0 can mean "nothing yet" to a reader."""
        with pytest.raises(ValidationError, match=field):
            _stored(**{field: value})

    @pytest.mark.parametrize("stream", ["tenant/entity:1", "source memo.md", "s", "x" * 256])
    def test_reasonable_stream_names_are_accepted(self, stream: str) -> None:
        """Any 1-256 characters not starting with whitespace."""
        assert _stored(stream=stream).stream == stream

    @pytest.mark.parametrize("stream", ["", " leading", "\tx", "a\x00b", "x" * 257])
    def test_other_stream_names_are_rejected(self, stream: str) -> None:
        """Blank, whitespace-led, NUL-carrying or over-long names fail with the name quoted."""
        with pytest.raises(ValidationError, match="invalid stream name"):
            _stored(stream=stream)
