"""Event envelopes: what the event log stores, the source of truth every store projects.

An event belongs to one stream of one tenant. ``stream_version`` numbers a stream's events
from 1 without gaps; ``position`` orders the whole log and only increases.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EventId
from redstring.domain.portable import JsonObject

_STREAM_PATTERN = re.compile(r"^[^\x00\s][^\x00]{0,255}$")
_EVENT_TYPE_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,127}$")


def _check_stream(value: str) -> str:
    return _stream_rule(value, what="stream name")


def checkpoint_name(value: str) -> str:
    """``value`` if it is a valid checkpoint name, which follows the stream-name rule.

    Raises :class:`InvalidArgumentError` naming the value and the rule otherwise.
    """
    return _stream_rule(value, what="checkpoint name")


def stream_name(value: str) -> str:
    """``value`` if it is a valid stream name: 1-256 characters, no NUL, no leading whitespace.

    Raises :class:`InvalidArgumentError` naming the value and the rule otherwise.
    """
    return _stream_rule(value, what="stream name")


LARGEST_LOG_INTEGER = 2**63 - 1
"""Positions, versions, limits and checkpoints are 64-bit on every backend (ADR 0023)."""


def log_integer(value: int, *, what: str) -> int:
    """``value`` if it is an integer in ``0..LARGEST_LOG_INTEGER``.

    Every event-log argument that counts (``after``, ``after_version``, ``limit``,
    ``expected_version``, a checkpoint position) follows this rule, so no backend sees a
    number its column cannot hold. Raises :class:`InvalidArgumentError` naming it otherwise.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not 0 <= value <= LARGEST_LOG_INTEGER
    ):
        raise InvalidArgumentError(
            f"{what}={value!r} is out of range: pass an integer from 0 to {LARGEST_LOG_INTEGER}"
        )
    return value


def _stream_rule(value: str, *, what: str) -> str:
    if not _STREAM_PATTERN.fullmatch(value) or not _encodes(value):
        raise InvalidArgumentError(
            f"invalid {what} {value!r}: use 1-256 characters, no NUL or lone surrogate, not "
            "starting with whitespace"
        )
    return value


def _encodes(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_event_type(value: str) -> str:
    if not _EVENT_TYPE_PATTERN.fullmatch(value):
        raise ValueError(
            f"invalid event type {value!r}: use a letter followed by letters, digits, '_' or '.'"
        )
    return value


StreamName = Annotated[str, AfterValidator(_check_stream)]
EventType = Annotated[str, AfterValidator(_check_event_type)]


class NewEvent(BaseModel):
    """An event to append. ``event_id`` makes appending it again a no-op."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    event_id: EventId
    type: EventType
    payload: JsonObject = Field(default_factory=dict)


class StoredEvent(NewEvent):
    """An event as the log holds it: plus its stream, stream version and global position."""

    stream: StreamName
    stream_version: int = Field(ge=1)
    position: int = Field(ge=1)
