"""GraphStore: a tenant's entities, aliases, blocking keys, relationships and traversal.

Rules for every method (enforced by ``redstring.testing.graph_store.GraphStoreCompliance``):

* **Tenancy.** Every method takes ``tenant_id``; storage is keyed on ``(tenant_id, id)`` with
  both parts compared. No read returns another tenant's rows and no write touches them.
* **Text arguments.** A ``str`` argument holding NUL or a lone surrogate (a tenant id, key,
  type or id) raises :class:`~redstring.domain.errors.InvalidArgumentError`, read or write,
  on every adapter (``redstring.ports.text_arguments``, ADR 0023).
* **Read-your-writes.** Once a write returns, the next read on the same store sees it.
* **Copies.** Reads return objects the caller may mutate without changing stored state, and
  a write keeps no reference to the caller's object.
* **Idempotent, last-write-wins.** Upserting the same id twice leaves one row with the later
  value. Deletes return ``False`` or ``0`` for what is already gone and never raise.
* **No dangling edges.** A relationship or alias whose entity is absent raises
  :class:`~redstring.ports.errors.MissingEntityError`; batch writes validate every element of
  the batch first (an element later replaced by a duplicate id included) and write nothing
  on failure. The error lists every absent endpoint of the batch once, ascending by id text.
* **Deleting an entity takes what hangs on it.** ``delete_entities`` removes the listed live
  entities together with their blocking-key entries, every relationship touching them (either
  end) and every alias whose canonical id is one of them, atomically; alias ids and absent ids
  are ignored. ``remove_alias``, ``delete_relationship`` and ``delete_by_tenant`` are the
  other removals. A merge that keeps the loser's id deletes the loser before aliasing it.
* **Order.** Lists of entities are ordered by id as canonical lowercase hyphenated text.
* **Arguments.** A ``limit`` outside ``0..MAX_LIMIT``, a ``limit_per_key`` outside
  ``1..MAX_LIMIT`` (``None`` means no limit), a ``depth`` outside
  ``0..MAX_DEPTH`` and a ``direction`` outside ``{"out", "in", "both"}`` raise
  :class:`~redstring.domain.errors.InvalidArgumentError` (a ``ValueError``); unknown ids
  yield empty results.
* **Checks in a fixed order.** ``upsert_alias`` refuses a self-alias first, then an absent
  canonical (``MissingEntityError``), then an alias id that is a live entity, so a call
  breaking two rules raises the same error on every adapter (ADR 0023).
* **Repeats** (ADR 0028). Blocking keys are held sorted and each once, and provenance names
  each chunk once (first position kept), as the models build them; a store holds and indexes
  them so also when a list skipped validation (``model_copy(update=...)``), so a key is never
  listed, found or removed twice. An id, key or relationship type given twice to a read or
  delete means what it means once, and an alias written twice is one alias.
* **Attributes keep their key order.** A read returns ``attributes`` with the keys in the
  order they were written, so an exported graph does not depend on the backend.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal, Protocol, runtime_checkable

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.models import Alias, Entity, Neighbour, Relationship
from redstring.ports.lifecycle import AsyncClosable

Direction = Literal["out", "in", "both"]
DIRECTIONS: frozenset[str] = frozenset({"out", "in", "both"})

MAX_DEPTH = 100
"""The deepest ``neighbours`` walk a caller may ask for: far past any useful neighbourhood,
and small enough that a walk's cost is bounded on every backend (ADR 0023)."""

MAX_LIMIT = 2**31 - 1
"""The largest page ``find_entities`` takes; every backend's integer types hold it."""


@runtime_checkable
class EntityStore(AsyncClosable, Protocol):
    """Entities by id, in batches, and paged in the total order of their ids."""

    async def upsert_entity(self, tenant_id: TenantId, entity: Entity) -> None:
        """Insert or replace ``entity`` (and its blocking-key index entries) for the tenant.

        Raises ``ValueError`` when ``entity.id`` is currently an alias of the tenant.
        """
        ...

    async def upsert_entities(self, tenant_id: TenantId, entities: Sequence[Entity]) -> None:
        """Insert or replace every entity in one atomic write; the last duplicate id wins."""
        ...

    async def get_entity(self, tenant_id: TenantId, entity_id: EntityId) -> Entity | None:
        """The tenant's entity ``entity_id`` as a copy, or ``None``."""
        ...

    async def get_entities(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, Entity]:
        """The tenant's entities among ``entity_ids`` (absent ids omitted), in one round trip."""
        ...

    async def find_entities(
        self,
        tenant_id: TenantId,
        *,
        entity_type: str | None = None,
        limit: int = 100,
        after: EntityId | None = None,
    ) -> list[Entity]:
        """Up to ``limit`` entities ascending by id text, strictly after ``after`` if given.

        ``after`` need not exist any more, which makes a page resumable across writes.
        ``entity_type`` filters by exact type. Raises ``ValueError`` for a negative limit.
        """
        ...

    async def delete_entities(self, tenant_id: TenantId, entity_ids: Collection[EntityId]) -> int:
        """Remove the listed live entities of the tenant and everything that hangs on them.

        With each entity go its blocking-key index entries, every relationship touching it
        (as subject or object) and every alias whose ``canonical_id`` it is. Ids that are
        absent or are alias ids are ignored (an alias is removed with ``remove_alias``).
        Returns how many entities were removed: duplicates and ignored ids do not count, so
        a second call returns ``0`` and ``[]`` returns ``0``. All or nothing, one round trip
        where the backend allows, and never touches another tenant, even one holding the same
        ids. A deleted id may be upserted again as a fresh entity.
        """
        ...


@runtime_checkable
class AliasStore(AsyncClosable, Protocol):
    """Ids that resolve to another entity: what remains of merges."""

    async def upsert_alias(self, tenant_id: TenantId, alias: Alias) -> None:
        """Record that ``alias.alias_id`` resolves to ``alias.canonical_id``; last write wins.

        Checks run in this order on every adapter: an alias id equal to the canonical id
        raises ``InvalidArgumentError``; then an absent canonical raises
        :class:`MissingEntityError`; then an alias id that is a live entity raises
        ``InvalidArgumentError``.
        """
        ...

    async def remove_alias(self, tenant_id: TenantId, alias_id: EntityId) -> bool:
        """Forget an alias; ``False`` when there was none."""
        ...

    async def find_aliases(self, tenant_id: TenantId, canonical_id: EntityId) -> list[Alias]:
        """Aliases pointing at ``canonical_id``, ascending by alias id text (copies)."""
        ...

    async def resolve_entity_ids(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, EntityId]:
        """Map each given id to the live entity it denotes; ids denoting nothing are omitted.

        An entity id maps to itself, an alias id to its canonical entity. One round trip.
        """
        ...


@runtime_checkable
class BlockingKeyIndex(AsyncClosable, Protocol):
    """Candidate lookup for resolution: entities by the blocking keys they were stored with."""

    async def find_by_blocking_key(self, tenant_id: TenantId, key: str) -> list[Entity]:
        """Entities indexed under ``key``, ascending by id text (copies)."""
        ...

    async def find_by_blocking_keys(
        self,
        tenant_id: TenantId,
        keys: Collection[str],
        *,
        limit_per_key: int | None = None,
    ) -> dict[str, list[Entity]]:
        """For each key with at least one entity, those entities ascending by id, in one query.

        With ``limit_per_key`` each key keeps only its first ``limit_per_key`` entities by id
        text, independently of the other keys, so the read is bounded however large a key's
        bucket grows (ADR 0025); ``None`` returns them all. A ``limit_per_key`` outside
        ``1..MAX_LIMIT`` raises :class:`~redstring.domain.errors.InvalidArgumentError`.
        """
        ...


@runtime_checkable
class RelationshipStore(AsyncClosable, Protocol):
    """Typed, directed edges between a tenant's entities."""

    async def upsert_relationship(self, tenant_id: TenantId, relationship: Relationship) -> None:
        """Insert or replace an edge; :class:`MissingEntityError` if an endpoint is absent."""
        ...

    async def upsert_relationships(
        self, tenant_id: TenantId, relationships: Sequence[Relationship]
    ) -> None:
        """Insert or replace every edge, all or nothing: one absent endpoint writes nothing.

        Every element is checked, also one whose id a later element of the batch replaces;
        :class:`MissingEntityError` lists every absent endpoint once, by id text.
        """
        ...

    async def get_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> Relationship | None:
        """The edge ``relationship_id`` as a copy, or ``None``."""
        ...

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        """Every edge touching any of ``entity_ids``, each once, ascending by id text.

        ``among=True`` keeps only the edges with *both* ends in ``entity_ids``, chosen in
        the store (ADR 0039): the edges among a handful of entities cost what they are, not
        the degree of the busiest of them."""
        ...

    async def delete_relationship(
        self, tenant_id: TenantId, relationship_id: RelationshipId
    ) -> bool:
        """Remove an edge; ``False`` when it was not there."""
        ...


@runtime_checkable
class GraphTraversal(AsyncClosable, Protocol):
    """Breadth-first neighbourhoods."""

    async def neighbours(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        depth: int = 1,
        direction: Direction = "both",
        relationship_types: Collection[str] | None = None,
        limit: int | None = None,
    ) -> list[Neighbour]:
        """Entities within ``depth`` hops of ``entity_id``, each once at its smallest depth.

        ``limit`` returns only the first ``limit`` of them in that order, cut in the store
        before any entity is read (ADR 0039); ``None`` is all of them, and a limit outside
        ``0..MAX_LIMIT`` raises ``InvalidArgumentError``.

        Ordered by (depth, id text); the start entity is excluded. ``direction`` follows edges
        out of, into, or either way through each entity. ``relationship_types=None`` means
        every type and ``[]`` means none (so ``[]`` is returned). ``depth=0`` and unknown ids
        yield ``[]``; a depth outside ``0..MAX_DEPTH`` or an unknown direction raises
        ``InvalidArgumentError``. The walk stops at the first level that reaches nothing new,
        so its cost is bounded by the reachable part of the graph, not by ``depth``.
        """
        ...


@runtime_checkable
class GraphStore(
    EntityStore, AliasStore, BlockingKeyIndex, RelationshipStore, GraphTraversal, Protocol
):
    """The whole graph port: the five capabilities plus tenant deletion."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Delete every entity, alias, key and edge of the tenant; returns entities removed."""
        ...


def validate_traversal(depth: int, direction: str) -> None:
    """Raise ``InvalidArgumentError`` for a depth outside ``0..MAX_DEPTH`` or a bad direction."""
    if not 0 <= depth <= MAX_DEPTH:
        raise InvalidArgumentError(f"depth must be between 0 and {MAX_DEPTH}, got {depth}")
    if direction not in DIRECTIONS:
        raise InvalidArgumentError(
            f"direction must be one of 'out', 'in', 'both', got {direction!r}"
        )


def validate_limit_per_key(limit_per_key: int | None) -> None:
    """Raise ``InvalidArgumentError`` for a ``limit_per_key`` outside ``1..MAX_LIMIT``.

    ``None`` (no limit) passes. Zero is refused: a key read that may return nothing for a
    key holding entities would break "each key with at least one entity".
    """
    if limit_per_key is not None and not 1 <= limit_per_key <= MAX_LIMIT:
        raise InvalidArgumentError(
            f"limit_per_key must be None or between 1 and {MAX_LIMIT}, got {limit_per_key}"
        )


def validate_limit(limit: int) -> None:
    """Raise ``InvalidArgumentError`` (a ``ValueError``) for a limit outside ``0..MAX_LIMIT``."""
    if not 0 <= limit <= MAX_LIMIT:
        raise InvalidArgumentError(f"limit must be between 0 and {MAX_LIMIT}, got {limit}")
