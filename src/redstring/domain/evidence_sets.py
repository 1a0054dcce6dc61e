"""An entity's evidence (a relationship's support) with its resulting state kept up to date.

An entity's state is a function of its evidence in log order (:func:`EntitySummary.of` is
that function, and ``redstring.domain.history.entity_state`` calls it). Folding a mention
into a summary costs what the mention holds, never what the entity already holds: the
summary keeps the few things the state is made of (the distinct surface names, the first
value of each attribute, the first passages) and nothing per mention. So adding evidence
to an entity mentioned ten thousand times costs the same as adding it to a new one.

:class:`EvidenceSet` and :class:`SupportSet` hold the items themselves, keyed by
:attr:`Evidence.key` in log order (a mention recorded again keeps its place), with the
summary beside them. Appending keeps the summary current; replacing an item in place or
removing items (a deleted source, a re-extracted passage) marks it stale, and the next
reader recomputes it from the items once. Removal therefore costs the entity's evidence, and
only deletions and edits remove.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from typing import Any, Generic, Self, TypeVar, cast

from pydantic import JsonValue

from redstring.domain.blocking import attribute_keys, blocking_keys, place_keys
from redstring.domain.errors import EmptyTextError
from redstring.domain.graph_events import Evidence, Support
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId
from redstring.domain.models import Entity, Provenance, Relationship

MAX_PROVENANCE_CHUNKS = 32
"""An entity's provenance names at most this many passages; the history holds them all."""

DESCRIPTION_ATTRIBUTE = "description"

ItemT = TypeVar("ItemT", Evidence, Support)


class Summary(Generic[ItemT]):
    """What entity and relationship states share: first source, attributes, passages, model."""

    __slots__ = ("attributes", "chunk_set", "chunks", "description", "model", "size", "source_id")

    def __init__(self) -> None:
        self.source_id: SourceId | None = None
        self.attributes: dict[str, JsonValue] = {}
        self.description: str | None = None
        self.chunks: list[ChunkId] = []
        self.chunk_set: set[ChunkId] = set()
        self.model: str | None = None
        self.size = 0

    def add(self, item: ItemT) -> None:
        """Fold one more item, recorded after every one folded so far."""
        raise NotImplementedError

    def copy(self) -> Self:
        """An independent copy (its size is the distinct names and attributes, not the items)."""
        other = type(self)()
        self._copy_into(other)
        return other

    def _copy_into(self, other: Self) -> None:
        other.source_id = self.source_id
        other.attributes = dict(self.attributes)
        other.description = self.description
        other.chunks = list(self.chunks)
        other.chunk_set = set(self.chunk_set)
        other.model = self.model
        other.size = self.size

    def _add_common(self, item: Evidence | Support) -> None:
        if self.size == 0:
            self.source_id = item.source_id
        self.size += 1
        for key, value in item.attributes.items():
            self.attributes.setdefault(key, value)
        if self.description is None and item.description:
            self.description = item.description
        chunk = item.chunk_id
        if (
            chunk is not None
            and len(self.chunks) < MAX_PROVENANCE_CHUNKS
            and chunk not in self.chunk_set
        ):
            self.chunks.append(chunk)
            self.chunk_set.add(chunk)
        if self.model is None and item.model:
            self.model = item.model

    def _attributes(self) -> dict[str, JsonValue]:
        attributes = dict(self.attributes)
        if self.description:
            attributes.setdefault(DESCRIPTION_ATTRIBUTE, self.description)
        return attributes

    def _provenance(self) -> Provenance:
        return Provenance(source_id=self.source_id, chunk_ids=tuple(self.chunks), model=self.model)


class EntitySummary(Summary[Evidence]):
    """The state-making part of an entity's evidence, folded one mention at a time.

    The name is the longest surface name (the earliest among equals); the type is the first
    evidence's; each attribute takes its first value; blocking keys cover every surface name
    and every decisive attribute (and each name with its place); provenance names the first
    source, the first :data:`MAX_PROVENANCE_CHUNKS` distinct passages and the first model.
    """

    __slots__ = ("keys", "name", "names", "type")

    def __init__(self) -> None:
        super().__init__()
        self.type = ""
        self.names: dict[str, None] = {}
        self.name = ""
        self.keys: set[str] = set()

    @classmethod
    def of(cls, evidence: Iterable[Evidence]) -> Self:
        """The summary of ``evidence`` in order."""
        summary = cls()
        for item in evidence:
            summary.add(item)
        return summary

    def _copy_into(self, other: Self) -> None:
        super()._copy_into(other)
        other.type = self.type
        other.names = dict(self.names)
        other.name = self.name
        other.keys = set(self.keys)

    def add(self, item: Evidence) -> None:
        """Fold one more piece of evidence, recorded after every one folded so far."""
        if self.size == 0:
            self.type = item.type
        self._add_common(item)
        if item.name not in self.names:
            self.names[item.name] = None
            if len(item.name) > len(self.name):
                self.name = item.name
            with contextlib.suppress(EmptyTextError):  # a name of no letters has no keys
                self.keys.update(blocking_keys(self.type, item.name))
        if item.attributes:
            self.keys.update(attribute_keys(self.type, item.attributes))
            self.keys.update(place_keys(self.type, item.name, item.attributes))

    def state(self, entity_id: EntityId) -> tuple[Entity, list[str]]:
        """The entity this evidence describes, and its surface names in order of first use."""
        if self.size == 0:
            raise ValueError(f"entity {entity_id} has no evidence: retract it instead")
        entity = Entity(
            id=entity_id,
            type=self.type,
            name=self.name,
            attributes=self._attributes(),
            blocking_keys=tuple(sorted(self.keys)),
            provenance=self._provenance(),
        )
        return entity, list(self.names)


class RelationshipSummary(Summary[Support]):
    """The state-making part of a relationship's support, folded one statement at a time."""

    __slots__ = ()

    @classmethod
    def of(cls, supports: Iterable[Support]) -> Self:
        """The summary of ``supports`` in order."""
        summary = cls()
        for item in supports:
            summary.add(item)
        return summary

    def add(self, item: Support) -> None:
        """Fold one more statement, recorded after every one folded so far."""
        self._add_common(item)

    def state(
        self,
        relationship_id: RelationshipId,
        relationship_type: str,
        subject_id: EntityId,
        object_id: EntityId,
    ) -> Relationship:
        """The relationship these statements describe."""
        if self.size == 0:
            raise ValueError(f"relationship {relationship_id} has no support: retract it instead")
        return Relationship(
            id=relationship_id,
            type=relationship_type,
            subject_id=subject_id,
            object_id=object_id,
            attributes=self._attributes(),
            provenance=self._provenance(),
        )


_Packed = tuple[object, ...]


class ItemSet(Generic[ItemT]):
    """Items keyed by their ``key`` in log order, with their summary.

    An item is held as a tuple of its field values (strings interned, empty attributes as
    ``None``), not as the model: a tuple of strings is one small object that the garbage
    collector stops visiting, where a model is four tracked containers. A tenant's history
    holds one item per mention it ever recorded, so this is most of a large history's
    objects. Items are rebuilt on the way out.
    """

    __slots__ = ("_items", "_summary")
    _model: type[ItemT]

    def __init__(self, items: Iterable[ItemT] = ()) -> None:
        self._items: dict[tuple[str, ...], _Packed] = {}
        self._summary: Summary[ItemT] | None = self._new_summary()
        self.add(items)

    def _new_summary(self) -> Summary[ItemT]:
        raise NotImplementedError

    @staticmethod
    def _pack(item: ItemT) -> _Packed:
        return tuple(
            sys.intern(value)
            if type(value) is str
            else (None if isinstance(value, dict) and not value else value)
            for value in item.__dict__.values()
        )

    def _unpack(self, packed: _Packed) -> ItemT:
        values: dict[str, Any] = dict(zip(self._model.model_fields, packed, strict=True))
        if values["attributes"] is None:
            values["attributes"] = {}
        return self._model.model_construct(**values)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __iter__(self) -> Iterator[ItemT]:
        return (self._unpack(packed) for packed in self._items.values())

    def get(self, key: tuple[str, ...]) -> ItemT | None:
        """The item recorded under ``key``, or ``None``."""
        packed = self._items.get(key)
        return None if packed is None else self._unpack(packed)

    def holds(self, item: ItemT) -> bool:
        """Whether ``item`` itself (same key, same content) is recorded."""
        return self._items.get(item.key) == self._pack(item)

    def has_key(self, key: tuple[str, ...]) -> bool:
        """Whether an item is recorded under ``key``."""
        return key in self._items

    def from_source(self, source_id: str) -> bool:
        """Whether any item came from ``source_id``."""
        return any(packed[0] == source_id for packed in self._items.values())

    def first(self) -> ItemT:
        """The earliest item (the set must not be empty)."""
        return self._unpack(next(iter(self._items.values())))

    def add(self, items: Iterable[ItemT]) -> None:
        """Record ``items`` after the others; an item with a recorded key replaces it in place."""
        for item in items:
            key = item.key
            packed = self._pack(item)
            known = self._items.get(key)
            if known is None:
                self._items[key] = packed
                if self._summary is not None:
                    self._summary.add(item)
            elif known != packed:
                self._items[key] = packed
                self._summary = None

    def remove(self, *, sources: Iterable[str] = (), chunks: Iterable[str] = ()) -> list[ItemT]:
        """Drop the items from any of ``sources`` or ``chunks``; returns them, in order."""
        gone_sources, gone_chunks = set(sources), set(chunks)
        # Both models start with source_id, chunk_id.
        removed = [
            key
            for key, packed in self._items.items()
            if packed[0] in gone_sources or (packed[1] is not None and packed[1] in gone_chunks)
        ]
        items = [self._unpack(self._items.pop(key)) for key in removed]
        if removed:
            self._summary = None
        return items

    def folded(self) -> Summary[ItemT]:
        """The summary of the items, recomputed once after a replacement or a removal."""
        if self._summary is None:
            summary = self._new_summary()
            for item in self:
                summary.add(item)
            self._summary = summary
        return self._summary

    def copy(self) -> Self:
        """An independent set of the same items (the items themselves are immutable)."""
        other = type(self)()
        other._items = dict(self._items)
        other._summary = None if self._summary is None else self._summary.copy()
        return other


class EvidenceSet(ItemSet[Evidence]):
    """An entity's evidence in log order, with its :class:`EntitySummary`."""

    __slots__ = ()
    _model = Evidence

    def _new_summary(self) -> EntitySummary:
        return EntitySummary()

    @property
    def summary(self) -> EntitySummary:
        """The entity's summary (recomputed once after a replacement or a removal)."""
        return cast(EntitySummary, self.folded())


class SupportSet(ItemSet[Support]):
    """A relationship's supporting statements in log order, with their summary."""

    __slots__ = ()
    _model = Support

    def _new_summary(self) -> RelationshipSummary:
        return RelationshipSummary()

    @property
    def summary(self) -> RelationshipSummary:
        """The relationship's summary (recomputed once after a replacement or a removal)."""
        return cast(RelationshipSummary, self.folded())
