"""The graph's models: entities, relationships, aliases and traversal results.

Models are mutable pydantic models on purpose: stores must hand out copies, and a mutable
model is what makes a leaked reference observable (see ``redstring.testing``). Tenancy is
never a field: every store method takes ``tenant_id`` explicitly and keys on
``(tenant_id, id)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId, distinct
from redstring.domain.portable import MAX_BLOCKING_KEY_LENGTH, JsonObject, check_unicode

_TYPE_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")


def _check_type_name(value: str) -> str:
    if not _TYPE_PATTERN.fullmatch(value):
        raise ValueError(
            f"invalid type name {value!r}: use a letter followed by up to 63 letters, digits "
            "or underscores (e.g. 'Person', 'WORKS_FOR')"
        )
    return value


def _check_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must hold at least one non-whitespace character")
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return check_unicode(value)


def _check_keys(value: tuple[str, ...]) -> tuple[str, ...]:
    for key in value:
        _check_text(key)
        if len(key) > MAX_BLOCKING_KEY_LENGTH:
            raise ValueError(
                f"blocking key of {len(key)} characters starting {key[:40]!r} is longer than "
                f"{MAX_BLOCKING_KEY_LENGTH}: derive keys with redstring.domain.blocking, "
                "which shortens them"
            )
    return key_set(value)


def key_set(keys: Iterable[str]) -> tuple[str, ...]:
    """Blocking keys as an entity holds them: sorted, each once (ADR 0003, ADR 0028)."""
    return tuple(sorted(set(keys)))


TypeName = Annotated[str, AfterValidator(_check_type_name)]
"""An entity or relationship type: an identifier, so that no backend ever has to quote it."""

Text = Annotated[str, AfterValidator(_check_text)]
"""Non-blank UTF-8 text without NUL characters (PostgreSQL cannot store NUL in text)."""

BlockingKeys = Annotated[tuple[str, ...], AfterValidator(_check_keys)]
"""Blocking keys of at most ``MAX_BLOCKING_KEY_LENGTH`` characters, stored sorted and
de-duplicated so equal sets compare equal."""

ChunkIds = Annotated[tuple[ChunkId, ...], AfterValidator(distinct)]
"""Chunk ids as a set in list form: repeats dropped, first position kept (ADR 0028)."""

Attributes = JsonObject


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Provenance(_Model):
    """Where a fact came from: the source, the chunks and the provider-qualified model.

    ``chunk_ids`` (an entity's or a relationship's evidence) names each chunk once, at its
    first position (ADR 0028).
    """

    source_id: SourceId | None = None
    chunk_ids: ChunkIds = ()
    model: str | None = None


class Entity(_Model):
    """A typed, named node of a tenant's graph.

    ``blocking_keys`` are the candidate-lookup keys the resolver derived for it
    (``redstring.domain.blocking``); a store indexes the entity under each of them.
    """

    id: EntityId
    type: TypeName
    name: Text
    attributes: Attributes = Field(default_factory=dict)
    blocking_keys: BlockingKeys = ()
    provenance: Provenance = Field(default_factory=Provenance)


class Relationship(_Model):
    """A typed, directed edge from ``subject_id`` to ``object_id`` within one tenant."""

    id: RelationshipId
    type: TypeName
    subject_id: EntityId
    object_id: EntityId
    attributes: Attributes = Field(default_factory=dict)
    provenance: Provenance = Field(default_factory=Provenance)


class Alias(_Model):
    """An id that resolves to another entity: what remains of an entity merged into another.

    ``name`` is the surface form it was known by, kept so the merge stays explainable.
    """

    alias_id: EntityId
    canonical_id: EntityId
    name: Text | None = None


class Neighbour(_Model):
    """An entity reached by traversal, at the smallest number of hops that reaches it."""

    entity: Entity
    depth: int = Field(ge=1)
