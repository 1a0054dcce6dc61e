"""Distinct id types, so that a tenant id can never be passed where an entity id belongs.

Entity, relationship and event ids are UUIDs; their canonical text form (lowercase,
hyphenated) is the total order that paging and tie-breaks use. Tenant, source and chunk ids
are strings chosen by callers or derived from content.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Hashable, Iterable
from typing import NewType, TypeVar

from redstring.domain.errors import InvalidArgumentError

TenantId = NewType("TenantId", str)
SourceId = NewType("SourceId", str)
ChunkId = NewType("ChunkId", str)
EntityId = NewType("EntityId", uuid.UUID)
RelationshipId = NewType("RelationshipId", uuid.UUID)
EventId = NewType("EventId", uuid.UUID)

_TENANT_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
"""Control characters (C0, DEL, C1) and lone surrogates: never part of an identifier."""


def new_entity_id() -> EntityId:
    """A fresh random entity id."""
    return EntityId(uuid.uuid4())


def new_relationship_id() -> RelationshipId:
    """A fresh random relationship id."""
    return RelationshipId(uuid.uuid4())


def new_event_id() -> EventId:
    """A fresh random event id."""
    return EventId(uuid.uuid4())


def tenant_id(value: str) -> TenantId:
    """Validate ``value`` as a tenant id: 1-128 characters of letters, digits and ``._:-``.

    Raises :class:`InvalidArgumentError` naming the value otherwise. Tenant ids end up in keys,
    file names and log lines, so the alphabet is deliberately narrow.
    """
    if not _TENANT_PATTERN.fullmatch(value):
        raise InvalidArgumentError(
            f"invalid tenant id {value!r}: use 1-128 characters of letters, digits and '._:-', "
            "starting with a letter or digit"
        )
    return TenantId(value)


def source_id(value: str) -> SourceId:
    """Validate ``value`` as a source id: 1-1024 characters, not all whitespace, and no
    control character (C0, DEL, C1: no NUL, no line break, no terminal escape) or lone
    surrogate, so that every listing shows an id as it will be typed back.

    Raises :class:`InvalidArgumentError` naming the value, and the first offending character
    and its position when there is one.
    """
    if not isinstance(value, str) or not value.strip() or len(value) > 1024:
        raise InvalidArgumentError(
            f"invalid source id {value!r}: use 1-1024 characters, not all whitespace"
        )
    found = _UNPRINTABLE.search(value)
    if found is not None:
        raise InvalidArgumentError(
            f"invalid source id {value!r}: character {found.start()} is {found.group()!r}, a "
            "control character or lone surrogate; a source id is shown in listings and typed "
            "back, so use printable characters only (a relative path such as notes/1.md)"
        )
    return SourceId(value)


def existing_source_id(value: str) -> SourceId:
    """``value`` as the id of a source that may already be stored: the rule of earlier
    versions (1-1024 characters, not all whitespace, no NUL), so that a source stored before
    :func:`source_id` refused control characters can still be named and deleted."""
    if not isinstance(value, str) or not value.strip() or len(value) > 1024 or "\x00" in value:
        raise InvalidArgumentError(
            f"invalid source id {value!r}: use 1-1024 characters, not all whitespace, no NUL"
        )
    return SourceId(value)


_Item = TypeVar("_Item", bound=Hashable)


def distinct(values: Iterable[_Item]) -> tuple[_Item, ...]:
    """``values`` with every repeat dropped, each kept where it first appears (ADR 0028).

    How the models hold a list of ids: a chunk naming an entity twice names it once, so no
    store ever indexes, counts or un-indexes one id twice.
    """
    return tuple(dict.fromkeys(values))


def id_text(value: uuid.UUID) -> str:
    """The canonical text of a UUID id: lowercase and hyphenated, the order paging relies on."""
    return str(value)
