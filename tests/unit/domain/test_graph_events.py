"""Graph events: ids derived from slot and content, decoding, upcasting, unknown types."""

from __future__ import annotations

from redstring.domain.events import StoredEvent
from redstring.domain.graph_events import (
    UPCASTERS,
    SourceDeleted,
    TenantDeleted,
    decode,
    encode,
    encode_batch,
)
from redstring.domain.ids import SourceId, TenantId, new_event_id

T = TenantId("acme")


def stored(new_type: str, payload: dict[str, object]) -> StoredEvent:
    return StoredEvent.model_validate(
        {
            "event_id": new_event_id(),
            "type": new_type,
            "payload": payload,
            "stream": "graph",
            "stream_version": 1,
            "position": 1,
        }
    )


def test_the_same_content_at_the_same_slot_gets_the_same_id() -> None:
    """Re-appending a plan after a crash is a no-op for the log."""
    first = encode(T, "graph#1", SourceDeleted(source_id=SourceId("a.md")))
    again = encode(T, "graph#1", SourceDeleted(source_id=SourceId("a.md")))
    assert first.event_id == again.event_id


def test_different_content_or_slot_or_tenant_gets_a_different_id() -> None:
    """Two writers racing for one slot conflict instead of sharing an id."""
    base = encode(T, "graph#1", SourceDeleted(source_id=SourceId("a.md")))
    assert base.event_id != encode(T, "graph#1", SourceDeleted(source_id=SourceId("b.md"))).event_id
    assert base.event_id != encode(T, "graph#2", SourceDeleted(source_id=SourceId("a.md"))).event_id
    assert (
        base.event_id
        != encode(TenantId("other"), "graph#1", SourceDeleted(source_id=SourceId("a.md"))).event_id
    )


def test_a_batch_numbers_its_slots() -> None:
    """Identical events in one batch still get distinct ids (distinct slots)."""
    batch = encode_batch(T, "graph", 5, [TenantDeleted(), TenantDeleted()])
    assert batch[0].event_id != batch[1].event_id


def test_decoding_round_trips_and_unknown_types_are_skipped() -> None:
    """A type from a newer writer is ``None``, not an error."""
    new = encode(T, "graph#1", SourceDeleted(source_id=SourceId("a.md")))
    assert decode(stored(new.type, new.payload)) == SourceDeleted(source_id=SourceId("a.md"))
    assert decode(stored("SomethingNew", {})) is None


def test_upcasters_turn_old_payloads_into_the_current_version() -> None:
    """An old stored shape is upgraded on read, never rewritten in the log."""
    UPCASTERS[("SourceDeleted", 0)] = lambda payload: {"source_id": payload["source"]}
    try:
        event = decode(stored("SourceDeleted", {"v": 0, "source": "old.md"}))
    finally:
        del UPCASTERS[("SourceDeleted", 0)]
    assert event == SourceDeleted(source_id=SourceId("old.md"))
