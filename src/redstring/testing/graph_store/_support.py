"""What every GraphStore capability's cases share: tenants, builders, oracles, strategies.

Nothing here is a test. :class:`GraphCases` is the base of every capability's cases and
holds the helpers that write a small graph and read everything back.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from hypothesis import strategies as st

from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId, TenantId, id_text
from redstring.domain.models import Alias, Entity, Neighbour, Provenance, Relationship
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import Direction, GraphStore
from redstring.testing import strategies as gen
from redstring.testing.harness import StoreSuite

TENANT = TenantId("tenant-a")
OTHER = TenantId("tenant-b")
STRANGER = TenantId("tenant-c")
"""A tenant the suite never writes to: every read under it must come back empty."""

DIRECTIONS: tuple[Direction, ...] = ("out", "in", "both")
EDGE_TYPES = ("KNOWS", "WORKS_FOR")

ErrorT = TypeVar("ErrorT", bound=BaseException)


# -- building blocks ------------------------------------------------------------------------


def _entity_id() -> EntityId:
    return EntityId(uuid.uuid4())


def _relationship_id() -> RelationshipId:
    return RelationshipId(uuid.uuid4())


def _ids_in_text_order(count: int) -> list[EntityId]:
    """Fresh entity ids sorted by their canonical text, so a test can assign ranks to roles."""
    return sorted((_entity_id() for _ in range(count)), key=id_text)


def _relationship_ids_in_text_order(count: int) -> list[RelationshipId]:
    return sorted((_relationship_id() for _ in range(count)), key=id_text)


def _entity(
    name: str = "Ada Lovelace",
    *,
    entity_id: EntityId | None = None,
    type: str = "Person",
    keys: Sequence[str] = (),
) -> Entity:
    """An entity with nested, mutable attributes, so a shallow copy is observable."""
    return Entity(
        id=_entity_id() if entity_id is None else entity_id,
        type=type,
        name=name,
        attributes={"tags": ["first"], "address": {"city": "Zürich"}, "rank": 1},
        blocking_keys=tuple(keys),
        provenance=Provenance(
            source_id=SourceId("memo.md"), chunk_ids=(ChunkId("c-1"),), model="fake/extractor-1"
        ),
    )


def _edge(
    subject_id: EntityId,
    object_id: EntityId,
    *,
    type: str = "KNOWS",
    relationship_id: RelationshipId | None = None,
    since: int = 1843,
) -> Relationship:
    return Relationship(
        id=_relationship_id() if relationship_id is None else relationship_id,
        type=type,
        subject_id=subject_id,
        object_id=object_id,
        attributes={"since": since, "notes": ["wrote"], "detail": {"page": 1}},
        provenance=Provenance(source_id=SourceId("memo.md"), model="fake/extractor-1"),
    )


def _alias(alias_id: EntityId, canonical_id: EntityId, name: str | None = "A. Lovelace") -> Alias:
    return Alias(alias_id=alias_id, canonical_id=canonical_id, name=name)


def _snapshot(entity: Entity) -> Entity:
    """A copy taken by the suite itself, independent of anything the store hands back."""
    return entity.model_copy(deep=True)


def _by_id(entities: Iterable[Entity]) -> list[Entity]:
    return sorted(entities, key=lambda entity: id_text(entity.id))


def _edges_by_id(relationships: Iterable[Relationship]) -> list[Relationship]:
    return sorted(relationships, key=lambda relationship: id_text(relationship.id))


def _depths(neighbours: Sequence[Neighbour]) -> list[tuple[int, EntityId]]:
    return [(neighbour.depth, neighbour.entity.id) for neighbour in neighbours]


# -- assertions that say what was expected ---------------------------------------------------


def _expect(actual: object, expected: object, what: str) -> None:
    """Assert equality with a message naming the behaviour, the expectation and the result."""
    assert actual == expected, f"{what}\n  expected: {expected!r}\n  actual:   {actual!r}"


@dataclass
class _Caught(Generic[ErrorT]):
    error: ErrorT | None = None


@contextmanager
def _raises(kind: type[ErrorT], when: str) -> Iterator[_Caught[ErrorT]]:
    """Like ``pytest.raises``, but the failure says which call should have raised and why."""
    caught: _Caught[ErrorT] = _Caught()
    try:
        yield caught
    except kind as error:
        caught.error = error
        return
    raise AssertionError(f"{when}: expected {kind.__name__} to be raised, but nothing was")


def _expect_missing(caught: _Caught[MissingEntityError], absent: EntityId, when: str) -> None:
    error = caught.error
    assert error is not None
    assert absent in error.entity_ids, (
        f"{when}: MissingEntityError.entity_ids should name the absent id {absent}, "
        f"got {error.entity_ids!r}"
    )


# -- defacing what a store hands back, as a careless caller would -------------------------------


def _deface_entity(entity: Entity) -> None:
    for value in entity.attributes.values():
        if isinstance(value, list):
            value.append("defaced")
        elif isinstance(value, dict):
            value["defaced"] = True
    entity.attributes["defaced"] = True
    entity.provenance.model = "defaced/model"
    entity.name = "Defaced"
    entity.type = "Defaced"
    entity.blocking_keys = ("defaced",)


def _deface_entities(entities: list[Entity]) -> None:
    for entity in entities:
        _deface_entity(entity)
    entities.reverse()
    entities.append(_entity("Intruder"))


def _deface_entity_map(found: dict[EntityId, Entity]) -> None:
    for entity in found.values():
        _deface_entity(entity)
    intruder = _entity("Intruder")
    found[intruder.id] = intruder


def _deface_relationship(relationship: Relationship) -> None:
    for value in relationship.attributes.values():
        if isinstance(value, list):
            value.append("defaced")
        elif isinstance(value, dict):
            value["defaced"] = True
    relationship.attributes["defaced"] = True
    relationship.provenance.model = "defaced/model"
    relationship.type = "DEFACED"
    relationship.subject_id = _entity_id()


def _deface_alias(alias: Alias) -> None:
    alias.name = "Defaced"
    alias.canonical_id = _entity_id()


# -- the oracle for traversal, written from the port's prose ----------------------------------


def _breadth_first(
    edges: Iterable[Relationship],
    live: Collection[EntityId],
    start: EntityId,
    *,
    depth: int,
    direction: Direction,
    relationship_types: Collection[str] | None,
) -> list[tuple[int, EntityId]]:
    """(depth, id) of every entity within ``depth`` hops, once, smallest depth, by (depth, id)."""
    if depth == 0 or start not in live:
        return []
    usable = [
        edge for edge in edges if relationship_types is None or edge.type in relationship_types
    ]
    seen: dict[EntityId, int] = {start: 0}
    frontier = {start}
    for level in range(1, depth + 1):
        reached: set[EntityId] = set()
        for edge in usable:
            if direction in ("out", "both") and edge.subject_id in frontier:
                reached.add(edge.object_id)
            if direction in ("in", "both") and edge.object_id in frontier:
                reached.add(edge.subject_id)
        frontier = reached - seen.keys()
        seen.update(dict.fromkeys(frontier, level))
    del seen[start]
    return sorted(((level, found) for found, level in seen.items()), key=_depth_then_text)


def _depth_then_text(item: tuple[int, EntityId]) -> tuple[int, str]:
    return item[0], id_text(item[1])


# -- strategies the property tests draw from -------------------------------------------------


def _pool(size: int) -> st.SearchStrategy[list[EntityId]]:
    return st.lists(gen.entity_ids(), min_size=1, max_size=size, unique=True)


def _entity_writes(pool: list[EntityId]) -> st.SearchStrategy[list[Entity]]:
    """Entity writes over a small id pool, so the same id is often written more than once."""
    return st.lists(
        gen.entities(ids=st.sampled_from(pool), attributes=gen.small_attributes()),
        min_size=1,
        max_size=8,
    )


@st.composite
def _graphs(
    draw: st.DrawFn,
) -> tuple[list[EntityId], list[Relationship], EntityId]:
    """Two to six entities, one to ten edges (cycles, self-loops) and a start to walk from.

    The start is one of the entities, or (as one option among them) an id nobody holds.
    """
    ids = draw(st.lists(gen.entity_ids(), min_size=2, max_size=6, unique=True))
    edges = draw(
        st.lists(
            gen.relationships(st.sampled_from(ids), st.sampled_from(ids), attributes=st.just({})),
            min_size=1,
            max_size=10,
            unique_by=lambda edge: edge.id,
        )
    )
    start = draw(st.sampled_from([*ids, None]))
    if start is None:
        start = draw(gen.entity_ids().filter(lambda entity_id: entity_id not in ids))
    return ids, edges, start


# Uniform over the cases the port distinguishes, so ``[]`` (matches nothing) is drawn often.
_TYPE_FILTERS: st.SearchStrategy[tuple[str, ...] | None] = st.sampled_from(
    (None, (), ("KNOWS",), ("WORKS_FOR",), (*EDGE_TYPES,), ("LIKES",))
)


class GraphCases(StoreSuite[GraphStore]):
    """The base of every capability's cases: a store per test and the shared helpers."""

    async def _store_graph(
        self, store: GraphStore, entities: Sequence[Entity], edges: Sequence[Relationship]
    ) -> None:
        await store.upsert_entities(TENANT, entities)
        await store.upsert_relationships(TENANT, edges)

    async def _populate(self, store: GraphStore, tenant: TenantId, ids: Sequence[EntityId]) -> None:
        """Two entities with keys, an alias and an edge under ``tenant``, on the given ids."""
        first = _entity("Ada", entity_id=ids[0], keys=("k:shared",))
        second = _entity("Grace", entity_id=ids[1], keys=("k:shared",))
        await store.upsert_entities(tenant, [first, second])
        await store.upsert_alias(tenant, _alias(ids[2], ids[0]))
        await store.upsert_relationship(
            tenant, _edge(ids[0], ids[1], relationship_id=RelationshipId(ids[3]))
        )

    async def _everything(
        self, store: GraphStore, tenant: TenantId, ids: Sequence[EntityId]
    ) -> dict[str, object]:
        """What every read returns for the tenant, to compare before and after a deletion."""
        return {
            "get_entities": await store.get_entities(tenant, ids),
            "find_entities": await store.find_entities(tenant),
            "find_by_blocking_key": await store.find_by_blocking_key(tenant, "k:shared"),
            "find_aliases": await store.find_aliases(tenant, ids[0]),
            "resolve_entity_ids": await store.resolve_entity_ids(tenant, ids),
            "get_relationship": await store.get_relationship(tenant, RelationshipId(ids[3])),
            "get_relationships_for": await store.get_relationships_for(tenant, ids),
            "neighbours": await store.neighbours(tenant, ids[0]),
        }

    async def _reads_of(self, store: GraphStore, ids: Sequence[EntityId]) -> dict[str, object]:
        """Every read of TENANT that could show a leftover of ``ids``."""
        return {
            "find_entities": await store.find_entities(TENANT),
            "find_by_blocking_keys": await store.find_by_blocking_keys(
                TENANT, ["k:a", "k:old", "k:new"]
            ),
            "resolve_entity_ids": await store.resolve_entity_ids(TENANT, ids),
            "get_relationships_for": await store.get_relationships_for(TENANT, ids),
        }

    async def _twins(self, store: GraphStore) -> tuple[Entity, Entity]:
        """The same id under TENANT and OTHER, with different values."""
        mine = _entity("Mine", keys=("k:twin",))
        theirs = _entity("Theirs", entity_id=mine.id, type="Place", keys=("k:twin",))
        await store.upsert_entity(TENANT, mine)
        await store.upsert_entity(OTHER, theirs)
        return mine, theirs

    async def _twin_edges(self, store: GraphStore) -> tuple[Relationship, Relationship]:
        """One relationship id under TENANT and OTHER with different endpoints and types."""
        a, b = _entity_id(), _entity_id()
        for tenant in (TENANT, OTHER):
            await store.upsert_entities(
                tenant, [_entity("A", entity_id=a), _entity("B", entity_id=b)]
            )
        mine = _edge(a, b, type="KNOWS")
        theirs = _edge(b, a, type="WORKS_FOR", relationship_id=mine.id, since=1900)
        await store.upsert_relationship(TENANT, mine)
        await store.upsert_relationship(OTHER, theirs)
        return mine, theirs

    async def _graph_reads(
        self, store: GraphStore, tenant: TenantId, ids: Sequence[EntityId]
    ) -> dict[str, object]:
        return {
            "find_entities": await store.find_entities(tenant),
            "find_by_blocking_keys": await store.find_by_blocking_keys(
                tenant, gen.BLOCKING_KEY_VOCABULARY
            ),
            "get_relationships_for": await store.get_relationships_for(tenant, ids),
            "resolve_entity_ids": await store.resolve_entity_ids(tenant, ids),
        }
