"""GraphStoreCompliance: what every GraphStore adapter must do, as tests.

**Every GraphStore adapter must pass this suite unchanged; it is the executable definition of
the port.** The prose in :mod:`redstring.ports.graph_store` describes what these tests
enforce; where the two disagree, the suite wins and the prose is a bug. Opt in with one
subclass that supplies ``new_store()`` (and ``dispose()`` if ``new_store`` acquired
something)::

    class TestMyGraphStore(GraphStoreCompliance):
        async def new_store(self) -> GraphStore:
            return MyGraphStore()

How to read a failure: each test's docstring names the behaviour it pins, and each assertion
message says what was expected and what came back. The tests assume nothing about a backend
beyond the port: no dictionary or insertion order is relied on (only orders the port states),
nothing is timed, and every oracle is written from the port's prose, never taken from another
adapter. Property tests build one store per hypothesis example through ``fresh_store()``.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId, TenantId, id_text
from redstring.domain.models import Alias, Entity, Neighbour, Provenance, Relationship
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import Direction, GraphStore
from redstring.testing import strategies as gen
from redstring.testing.harness import StoreSuite
from redstring.testing.settings import compliance_settings

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


class GraphStoreCompliance(StoreSuite[GraphStore]):
    """The GraphStore compliance suite.

    **Every GraphStore adapter must pass this suite unchanged; it is the executable definition
    of the port.** Subclass it under a ``Test*`` name and implement ``new_store()`` returning
    an empty store that shares nothing with any store it returned before. Do not override a
    test: ``test_the_suite_is_run_unchanged`` fails when one is.
    """

    # -- the port ------------------------------------------------------------------------------

    async def test_the_store_is_a_graph_store(self, store: GraphStore) -> None:
        """The adapter structurally satisfies the GraphStore Protocol (a cheap smoke check)."""
        assert isinstance(store, GraphStore), (
            f"{type(store).__name__} does not satisfy redstring.ports.graph_store.GraphStore: "
            "expected every method of the five capabilities plus delete_by_tenant and close"
        )

    async def test_a_new_store_is_empty(self, store: GraphStore) -> None:
        """``new_store()`` hands back an empty store: rows left over would pass tests wrongly."""
        for tenant in (TENANT, OTHER, STRANGER):
            _expect(
                await store.find_entities(tenant, limit=10),
                [],
                f"find_entities({tenant!r}) on a store fresh from new_store()",
            )

    # -- entities ------------------------------------------------------------------------------

    async def test_get_entity_reads_back_what_was_upserted(self, store: GraphStore) -> None:
        """Read-your-writes: once upsert_entity returns, get_entity sees an equal entity."""
        ada = _entity(keys=("Person|n:ada lovelace",))
        await store.upsert_entity(TENANT, ada)
        _expect(await store.get_entity(TENANT, ada.id), ada, "get_entity after upsert_entity")

    async def test_get_entity_of_an_unknown_id_is_none(self, store: GraphStore) -> None:
        """An id the tenant does not hold reads as ``None`` rather than raising."""
        await store.upsert_entity(TENANT, _entity())
        _expect(await store.get_entity(TENANT, _entity_id()), None, "get_entity of unknown id")

    async def test_upsert_entity_is_last_write_wins(self, store: GraphStore) -> None:
        """Upserting an id again replaces the entity: one row, holding the later value."""
        first = _entity("Ada Lovelace", type="Person")
        later = _entity("Augusta Ada King", entity_id=first.id, type="Concept")
        await store.upsert_entity(TENANT, first)
        await store.upsert_entity(TENANT, later)
        _expect(await store.get_entity(TENANT, first.id), later, "get_entity after two upserts")
        _expect(
            await store.find_entities(TENANT),
            [later],
            "find_entities after upserting one id twice (one row, the later value)",
        )
        _expect(
            await store.find_entities(TENANT, entity_type="Person"),
            [],
            "find_entities by the entity's old type after its type changed",
        )

    async def test_upsert_entity_twice_is_the_same_as_once(self, store: GraphStore) -> None:
        """Idempotence: replaying an upsert (as a projection does) leaves exactly one row."""
        ada = _entity(keys=("Person|n:ada lovelace",))
        await store.upsert_entity(TENANT, ada)
        await store.upsert_entity(TENANT, ada)
        _expect(await store.find_entities(TENANT), [ada], "find_entities after a replayed upsert")
        _expect(
            await store.find_by_blocking_key(TENANT, "Person|n:ada lovelace"),
            [ada],
            "find_by_blocking_key after a replayed upsert (the entity once)",
        )

    async def test_upsert_entities_writes_every_entity(self, store: GraphStore) -> None:
        """A batch upsert stores each entity; a duplicate id in the batch keeps the last."""
        ada, grace = _entity("Ada"), _entity("Grace")
        ada_later = _entity("Ada King", entity_id=ada.id)
        await store.upsert_entities(TENANT, [ada, grace, ada_later])
        _expect(
            await store.get_entities(TENANT, [ada.id, grace.id]),
            {ada.id: ada_later, grace.id: grace},
            "get_entities after upsert_entities([ada, grace, ada again]): the last ada wins",
        )

    async def test_upsert_entities_with_an_alias_id_writes_nothing(self, store: GraphStore) -> None:
        """A batch holding an alias id raises ``ValueError`` and writes none of the batch."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        fresh = _entity("Grace")
        canonical_changed = _entity("Changed", entity_id=canonical.id)
        with _raises(ValueError, "upsert_entities with an alias id as the last element"):
            await store.upsert_entities(
                TENANT, [fresh, canonical_changed, _entity("Alias", entity_id=alias_id)]
            )
        _expect(
            await store.get_entity(TENANT, fresh.id),
            None,
            "an entity before the offending one in a failed batch (nothing is written)",
        )
        _expect(
            await store.get_entity(TENANT, canonical.id),
            canonical,
            "an existing entity the failed batch would have replaced (unchanged)",
        )

    async def test_get_entities_returns_present_ids_and_omits_absent_ones(
        self, store: GraphStore
    ) -> None:
        """Batch read: present ids map to their entity, absent ids are left out, duplicates ok."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        unknown = _entity_id()
        _expect(
            await store.get_entities(TENANT, [ada.id, unknown, ada.id]),
            {ada.id: ada},
            "get_entities([ada, unknown, ada])",
        )

    async def test_batch_calls_with_nothing_in_them(self, store: GraphStore) -> None:
        """Empty batches are legal: writes change nothing and reads return empty results."""
        await store.upsert_entities(TENANT, [])
        await store.upsert_relationships(TENANT, [])
        _expect(await store.find_entities(TENANT), [], "find_entities after empty batch writes")
        _expect(await store.get_entities(TENANT, []), {}, "get_entities of no ids")
        _expect(await store.find_by_blocking_keys(TENANT, []), {}, "find_by_blocking_keys([])")
        _expect(await store.resolve_entity_ids(TENANT, []), {}, "resolve_entity_ids of no ids")
        _expect(await store.get_relationships_for(TENANT, []), [], "get_relationships_for([])")

    async def test_find_entities_orders_by_id_text(self, store: GraphStore) -> None:
        """Ascending by canonical id text: not insertion order, not name order."""
        ids = _ids_in_text_order(5)
        # Names run against the id order and writes go in reverse, so neither can pass.
        written = [_entity(f"Name {9 - rank}", entity_id=ids[rank]) for rank in range(5)]
        for entity in reversed(written):
            await store.upsert_entity(TENANT, entity)
        _expect(
            [entity.id for entity in await store.find_entities(TENANT)],
            ids,
            "find_entities order (ascending by id text)",
        )

    async def test_find_entities_filters_by_exact_type(self, store: GraphStore) -> None:
        """``entity_type`` matches the type exactly, case included; ``None`` means no filter."""
        person = _entity("Ada", type="Person")
        lower = _entity("Grace", type="person")
        place = _entity("Zürich", type="Place")
        await store.upsert_entities(TENANT, [person, lower, place])
        _expect(
            await store.find_entities(TENANT, entity_type="Person"),
            [person],
            "find_entities(entity_type='Person') with a 'person' and a 'Place' also stored",
        )
        _expect(
            await store.find_entities(TENANT, entity_type="Organisation"),
            [],
            "find_entities of a type nobody has",
        )
        _expect(
            await store.find_entities(TENANT, entity_type=None),
            _by_id([person, lower, place]),
            "find_entities(entity_type=None)",
        )

    async def test_find_entities_stops_at_limit(self, store: GraphStore) -> None:
        """``limit`` caps the page, taking the lowest ids; ``limit=0`` returns nothing."""
        written = [_entity(f"Entity {n}") for n in range(4)]
        await store.upsert_entities(TENANT, written)
        expected = _by_id(written)
        _expect(await store.find_entities(TENANT, limit=2), expected[:2], "find_entities(limit=2)")
        _expect(await store.find_entities(TENANT, limit=0), [], "find_entities(limit=0)")

    async def test_find_entities_with_a_negative_limit_raises(self, store: GraphStore) -> None:
        """A negative limit is a caller's mistake: ``ValueError``, not an empty page."""
        await store.upsert_entity(TENANT, _entity())
        with _raises(ValueError, "find_entities(limit=-1)"):
            await store.find_entities(TENANT, limit=-1)

    async def test_find_entities_resumes_strictly_after_the_cursor(self, store: GraphStore) -> None:
        """``after`` excludes the cursor itself and everything before it in id order."""
        ids = _ids_in_text_order(4)
        written = [_entity(f"Entity {rank}", entity_id=ids[rank]) for rank in range(4)]
        await store.upsert_entities(TENANT, list(reversed(written)))
        _expect(
            await store.find_entities(TENANT, after=ids[1]),
            written[2:],
            "find_entities(after=<second id>)",
        )
        _expect(
            await store.find_entities(TENANT, after=ids[3]), [], "find_entities(after=<last id>)"
        )

    async def test_find_entities_resumes_after_a_cursor_that_does_not_exist(
        self, store: GraphStore
    ) -> None:
        """The cursor need not be stored: paging resumes by id text, which survives deletes."""
        ids = _ids_in_text_order(6)
        written = [_entity(f"Entity {rank}", entity_id=ids[rank]) for rank in range(6)]
        await store.upsert_entities(TENANT, written)
        # Between the third and fourth ids: id text order is the order of the 128-bit value.
        cursor = EntityId(uuid.UUID(int=(ids[2].int + ids[3].int) // 2))
        assert cursor not in ids
        _expect(
            await store.find_entities(TENANT, after=cursor),
            written[3:],
            f"find_entities(after={cursor}), an id never stored that sorts after the third",
        )
        _expect(
            await store.find_entities(TENANT, after=EntityId(uuid.UUID(int=0))),
            written,
            "find_entities(after=00000000-0000-0000-0000-000000000000), below every id",
        )

    async def test_find_entities_pages_combine_the_type_filter_and_the_cursor(
        self, store: GraphStore
    ) -> None:
        """A filtered page is cut after filtering, and resumes within the same filter."""
        ids = _ids_in_text_order(6)
        types = ("Person", "Place", "Person", "Place", "Person", "Person")
        written = [
            _entity(f"Entity {rank}", entity_id=ids[rank], type=types[rank]) for rank in range(6)
        ]
        await store.upsert_entities(TENANT, written)
        people = [entity for entity in written if entity.type == "Person"]
        first = await store.find_entities(TENANT, entity_type="Person", limit=2)
        _expect(first, people[:2], "first page of find_entities(entity_type='Person', limit=2)")
        second = await store.find_entities(TENANT, entity_type="Person", limit=2, after=ids[2])
        _expect(second, people[2:], "the page resumed after the first page's last id")

    # -- blocking keys -------------------------------------------------------------------------

    async def test_find_by_blocking_key_returns_the_entities_indexed_under_it(
        self, store: GraphStore
    ) -> None:
        """Entities stored with a key come back for that key, ascending by id, and no others."""
        ids = _ids_in_text_order(3)
        shared = "Person|p:L142"
        first = _entity("Ada", entity_id=ids[2], keys=(shared, "Person|n:ada"))
        second = _entity("Adah", entity_id=ids[0], keys=(shared,))
        other = _entity("Grace", entity_id=ids[1], keys=("Person|n:grace",))
        await store.upsert_entities(TENANT, [first, other, second])
        _expect(
            await store.find_by_blocking_key(TENANT, shared),
            [second, first],
            f"find_by_blocking_key({shared!r})",
        )
        _expect(
            await store.find_by_blocking_key(TENANT, "Person|n:nobody"),
            [],
            "find_by_blocking_key of a key no entity carries",
        )

    async def test_re_upserting_an_entity_replaces_its_blocking_keys(
        self, store: GraphStore
    ) -> None:
        """Keys belong to the entity's latest version: dropped keys stop finding it."""
        before = _entity("Ada", keys=("k:old", "k:kept"))
        after = _entity("Ada", entity_id=before.id, keys=("k:kept", "k:new"))
        await store.upsert_entity(TENANT, before)
        await store.upsert_entity(TENANT, after)
        _expect(
            await store.find_by_blocking_key(TENANT, "k:old"),
            [],
            "a key the entity no longer carries after its re-upsert",
        )
        _expect(await store.find_by_blocking_key(TENANT, "k:kept"), [after], "a kept key")
        _expect(await store.find_by_blocking_key(TENANT, "k:new"), [after], "a newly added key")

    async def test_upsert_entities_replaces_blocking_keys_too(self, store: GraphStore) -> None:
        """The batch write re-indexes keys exactly as the single write does."""
        before = _entity("Ada", keys=("k:old",))
        await store.upsert_entities(TENANT, [before])
        after = _entity("Ada", entity_id=before.id, keys=("k:new",))
        await store.upsert_entities(TENANT, [after])
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:old", "k:new"]),
            {"k:new": [after]},
            "find_by_blocking_keys after upsert_entities moved the entity to a new key",
        )

    async def test_find_by_blocking_keys_groups_by_key_and_omits_empty_keys(
        self, store: GraphStore
    ) -> None:
        """One entry per key holding an entity, each ascending by id; empty keys are absent."""
        ids = _ids_in_text_order(3)
        both = _entity("Ada", entity_id=ids[2], keys=("k:a", "k:b"))
        only_a = _entity("Adah", entity_id=ids[0], keys=("k:a",))
        only_b = _entity("Ava", entity_id=ids[1], keys=("k:b",))
        await store.upsert_entities(TENANT, [both, only_a, only_b])
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:a", "k:b", "k:none"]),
            {"k:a": [only_a, both], "k:b": [only_b, both]},
            "find_by_blocking_keys(['k:a', 'k:b', 'k:none'])",
        )

    # -- aliases -------------------------------------------------------------------------------

    async def test_resolve_entity_ids_maps_entities_aliases_and_omits_unknown_ids(
        self, store: GraphStore
    ) -> None:
        """An entity id maps to itself, an alias to its canonical id, an unknown id nowhere."""
        canonical, other = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [canonical, other])
        alias_id, unknown = _entity_id(), _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        _expect(
            await store.resolve_entity_ids(TENANT, [canonical.id, other.id, alias_id, unknown]),
            {canonical.id: canonical.id, other.id: other.id, alias_id: canonical.id},
            "resolve_entity_ids([entity, entity, alias, unknown])",
        )

    async def test_an_alias_id_is_not_an_entity(self, store: GraphStore) -> None:
        """An alias resolves, but is not readable as an entity and cannot carry an edge."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        _expect(await store.get_entity(TENANT, alias_id), None, "get_entity of an alias id")
        when = "upsert_relationship to an alias id (an alias is not a live entity)"
        with _raises(MissingEntityError, when) as caught:
            await store.upsert_relationship(TENANT, _edge(canonical.id, alias_id))
        _expect_missing(caught, alias_id, when)

    async def test_upsert_alias_of_an_absent_canonical_raises(self, store: GraphStore) -> None:
        """No dangling aliases: an absent canonical entity raises MissingEntityError."""
        absent, alias_id = _entity_id(), _entity_id()
        when = "upsert_alias to a canonical id the tenant does not hold"
        with _raises(MissingEntityError, when) as caught:
            await store.upsert_alias(TENANT, _alias(alias_id, absent))
        _expect_missing(caught, absent, when)
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id]),
            {},
            "resolve_entity_ids of the alias whose upsert failed (nothing written)",
        )

    async def test_upsert_alias_to_an_alias_raises(self, store: GraphStore) -> None:
        """The canonical id must be a live entity; another alias is not one."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        first_alias, second_alias = _entity_id(), _entity_id()
        await store.upsert_alias(TENANT, _alias(first_alias, canonical.id))
        with _raises(MissingEntityError, "upsert_alias whose canonical id is itself an alias"):
            await store.upsert_alias(TENANT, _alias(second_alias, first_alias))

    async def test_upsert_alias_to_itself_raises(self, store: GraphStore) -> None:
        """An alias naming itself as canonical is a ``ValueError``."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        with _raises(ValueError, "upsert_alias(alias_id == canonical_id)"):
            await store.upsert_alias(TENANT, _alias(ada.id, ada.id))

    async def test_upsert_alias_whose_id_is_a_live_entity_raises(self, store: GraphStore) -> None:
        """A live entity cannot become an alias: ``ValueError``, and the entity is untouched."""
        canonical, live = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [canonical, live])
        with _raises(ValueError, "upsert_alias whose alias id is a live entity"):
            await store.upsert_alias(TENANT, _alias(live.id, canonical.id))
        _expect(
            await store.resolve_entity_ids(TENANT, [live.id]),
            {live.id: live.id},
            "resolve_entity_ids of the live entity the failed alias named",
        )

    async def test_upsert_entity_whose_id_is_an_alias_raises(self, store: GraphStore) -> None:
        """An alias id cannot become an entity: ``ValueError``, and the alias still resolves."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        with _raises(ValueError, "upsert_entity under an id that is an alias"):
            await store.upsert_entity(TENANT, _entity("Impostor", entity_id=alias_id))
        _expect(await store.get_entity(TENANT, alias_id), None, "get_entity of the alias id")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id]),
            {alias_id: canonical.id},
            "resolve_entity_ids of the alias after the refused upsert_entity",
        )

    async def test_upsert_alias_is_last_write_wins(self, store: GraphStore) -> None:
        """Re-upserting an alias re-points it: it leaves its old canonical's alias list."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, ada.id, "first"))
        moved = _alias(alias_id, grace.id, "second")
        await store.upsert_alias(TENANT, moved)
        _expect(await store.find_aliases(TENANT, ada.id), [], "aliases of the old canonical")
        _expect(await store.find_aliases(TENANT, grace.id), [moved], "aliases of the new one")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id]),
            {alias_id: grace.id},
            "resolve_entity_ids of the re-pointed alias",
        )

    async def test_find_aliases_lists_the_aliases_of_one_canonical_by_alias_id(
        self, store: GraphStore
    ) -> None:
        """Aliases pointing at the canonical id, ascending by alias id text, and no others."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        alias_ids = _ids_in_text_order(3)
        aliases = [_alias(alias_id, ada.id, f"name {n}") for n, alias_id in enumerate(alias_ids)]
        for alias in reversed(aliases):
            await store.upsert_alias(TENANT, alias)
        await store.upsert_alias(TENANT, _alias(_entity_id(), grace.id))
        _expect(await store.find_aliases(TENANT, ada.id), aliases, "find_aliases(ada)")
        _expect(await store.find_aliases(TENANT, _entity_id()), [], "find_aliases of an unknown id")

    async def test_remove_alias_reports_whether_there_was_one(self, store: GraphStore) -> None:
        """``True`` then ``False``; the id stops resolving and may then become an entity."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        _expect(await store.remove_alias(TENANT, alias_id), True, "remove_alias of an alias")
        _expect(await store.remove_alias(TENANT, alias_id), False, "remove_alias, again")
        _expect(await store.resolve_entity_ids(TENANT, [alias_id]), {}, "the removed alias")
        _expect(await store.find_aliases(TENANT, canonical.id), [], "aliases after removal")
        reborn = _entity("Reborn", entity_id=alias_id)
        await store.upsert_entity(TENANT, reborn)
        _expect(await store.get_entity(TENANT, alias_id), reborn, "the former alias id as entity")

    async def test_remove_alias_of_an_entity_id_removes_nothing(self, store: GraphStore) -> None:
        """Removing an "alias" that is really an entity id returns ``False`` and keeps it."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        _expect(await store.remove_alias(TENANT, ada.id), False, "remove_alias of an entity id")
        _expect(await store.get_entity(TENANT, ada.id), ada, "the entity after remove_alias")

    # -- relationships -------------------------------------------------------------------------

    async def test_get_relationship_reads_back_what_was_upserted(self, store: GraphStore) -> None:
        """Read-your-writes for edges; an unknown relationship id reads as ``None``."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        edge = _edge(ada.id, grace.id)
        await store.upsert_relationship(TENANT, edge)
        _expect(await store.get_relationship(TENANT, edge.id), edge, "get_relationship")
        _expect(
            await store.get_relationship(TENANT, _relationship_id()),
            None,
            "get_relationship of an unknown id",
        )

    async def test_upsert_relationship_with_an_absent_endpoint_raises(
        self, store: GraphStore
    ) -> None:
        """No dangling edges: either endpoint absent raises MissingEntityError, writes nothing."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        absent = _entity_id()
        for edge, side in ((_edge(ada.id, absent), "object"), (_edge(absent, ada.id), "subject")):
            when = f"upsert_relationship whose {side} is absent"
            with _raises(MissingEntityError, when) as caught:
                await store.upsert_relationship(TENANT, edge)
            _expect_missing(caught, absent, when)
            _expect(
                await store.get_relationship(TENANT, edge.id),
                None,
                f"get_relationship of the refused edge whose {side} is absent",
            )

    async def test_upsert_relationship_is_last_write_wins(self, store: GraphStore) -> None:
        """Re-upserting an edge id replaces it, endpoints included: the old edge is gone."""
        ada, grace, alan = _entity("Ada"), _entity("Grace"), _entity("Alan")
        await store.upsert_entities(TENANT, [ada, grace, alan])
        first = _edge(ada.id, grace.id, type="KNOWS")
        later = _edge(ada.id, alan.id, type="WORKS_FOR", relationship_id=first.id, since=1900)
        await store.upsert_relationship(TENANT, first)
        await store.upsert_relationship(TENANT, later)
        _expect(await store.get_relationship(TENANT, first.id), later, "the re-upserted edge")
        _expect(
            await store.get_relationships_for(TENANT, [grace.id]),
            [],
            "edges of the old object after the edge moved away from it",
        )
        _expect(
            _depths(await store.neighbours(TENANT, ada.id)),
            [(1, alan.id)],
            "neighbours of the subject after its edge moved from grace to alan",
        )

    async def test_upsert_relationships_writes_every_edge(self, store: GraphStore) -> None:
        """A batch writes each edge; a duplicate id in the batch keeps the last."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        forward, back = _edge(ada.id, grace.id), _edge(grace.id, ada.id)
        forward_later = _edge(ada.id, grace.id, relationship_id=forward.id, since=1900)
        await store.upsert_relationships(TENANT, [forward, back, forward_later])
        _expect(
            await store.get_relationships_for(TENANT, [ada.id]),
            _edges_by_id([forward_later, back]),
            "get_relationships_for after upsert_relationships([forward, back, forward again])",
        )

    async def test_upsert_relationships_is_all_or_nothing(self, store: GraphStore) -> None:
        """One absent endpoint fails the batch and writes none of it, before or after."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        existing = _edge(ada.id, grace.id)
        await store.upsert_relationship(TENANT, existing)
        absent = _entity_id()
        changed = _edge(grace.id, ada.id, relationship_id=existing.id, since=1900)
        before, after = _edge(grace.id, ada.id), _edge(ada.id, ada.id)
        when = "upsert_relationships with one dangling edge in the middle"
        with _raises(MissingEntityError, when) as caught:
            await store.upsert_relationships(
                TENANT, [changed, before, _edge(ada.id, absent), after]
            )
        _expect_missing(caught, absent, when)
        _expect(
            await store.get_relationship(TENANT, existing.id),
            existing,
            "an existing edge the failed batch would have replaced (unchanged)",
        )
        for written, where in ((before, "before"), (after, "after")):
            _expect(
                await store.get_relationship(TENANT, written.id),
                None,
                f"a valid edge {where} the dangling one in the failed batch (not written)",
            )

    async def test_get_relationships_for_lists_each_touching_edge_once(
        self, store: GraphStore
    ) -> None:
        """Every edge touching any given id, once, by id text: a set of edges, not a union."""
        a, b, c, d = (_entity(name) for name in ("A", "B", "C", "D"))
        await store.upsert_entities(TENANT, [a, b, c, d])
        rids = _relationship_ids_in_text_order(5)
        a_b = _edge(a.id, b.id, relationship_id=rids[3])
        b_c = _edge(b.id, c.id, relationship_id=rids[0])
        c_d = _edge(c.id, d.id, relationship_id=rids[4])
        d_d = _edge(d.id, d.id, relationship_id=rids[1])
        c_a = _edge(c.id, a.id, relationship_id=rids[2])
        await store.upsert_relationships(TENANT, [c_d, a_b, d_d, c_a, b_c])
        _expect(
            await store.get_relationships_for(TENANT, [a.id, b.id]),
            [b_c, c_a, a_b],
            "get_relationships_for([a, b]): a->b touches both and must appear once",
        )
        _expect(
            await store.get_relationships_for(TENANT, [d.id]),
            [d_d, c_d],
            "get_relationships_for([d]): the self-loop d->d appears once",
        )
        _expect(
            await store.get_relationships_for(TENANT, [_entity_id()]),
            [],
            "get_relationships_for of an unknown id",
        )

    async def test_delete_relationship_reports_whether_there_was_one(
        self, store: GraphStore
    ) -> None:
        """``True`` then ``False``; the edge is gone from every read, its endpoints remain."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        edge = _edge(ada.id, grace.id)
        await store.upsert_relationship(TENANT, edge)
        _expect(await store.delete_relationship(TENANT, edge.id), True, "delete_relationship")
        _expect(await store.delete_relationship(TENANT, edge.id), False, "delete, again")
        _expect(await store.get_relationship(TENANT, edge.id), None, "the deleted edge")
        _expect(await store.get_relationships_for(TENANT, [ada.id]), [], "edges after delete")
        _expect(await store.neighbours(TENANT, ada.id), [], "neighbours after the delete")
        _expect(
            await store.get_entities(TENANT, [ada.id, grace.id]),
            {ada.id: ada, grace.id: grace},
            "the endpoints of the deleted edge (still there)",
        )

    # -- neighbours ----------------------------------------------------------------------------

    async def _store_graph(
        self, store: GraphStore, entities: Sequence[Entity], edges: Sequence[Relationship]
    ) -> None:
        await store.upsert_entities(TENANT, entities)
        await store.upsert_relationships(TENANT, edges)

    async def test_neighbours_follow_the_requested_direction(self, store: GraphStore) -> None:
        """``out`` follows subject->object, ``in`` object->subject, ``both`` either way."""
        start, target, source = _entity("Start"), _entity("Target"), _entity("Source")
        await self._store_graph(
            store, [start, target, source], [_edge(start.id, target.id), _edge(source.id, start.id)]
        )
        _expect(
            _depths(await store.neighbours(TENANT, start.id, direction="out")),
            [(1, target.id)],
            "neighbours(direction='out') of start, with start->target and source->start",
        )
        _expect(
            _depths(await store.neighbours(TENANT, start.id, direction="in")),
            [(1, source.id)],
            "neighbours(direction='in')",
        )
        _expect(
            _depths(await store.neighbours(TENANT, start.id, direction="both")),
            sorted([(1, target.id), (1, source.id)], key=_depth_then_text),
            "neighbours(direction='both')",
        )
        _expect(
            _depths(await store.neighbours(TENANT, start.id)),
            sorted([(1, target.id), (1, source.id)], key=_depth_then_text),
            "neighbours with the default direction (both)",
        )

    async def test_neighbours_keep_the_direction_at_every_hop(self, store: GraphStore) -> None:
        """The direction applies to each hop, not only the first one."""
        start, middle, side = _entity("Start"), _entity("Middle"), _entity("Side")
        await self._store_graph(
            store, [start, middle, side], [_edge(start.id, middle.id), _edge(side.id, middle.id)]
        )
        _expect(
            _depths(await store.neighbours(TENANT, start.id, depth=2, direction="out")),
            [(1, middle.id)],
            "neighbours(depth=2, 'out') with start->middle<-side: side is not reachable outward",
        )
        _expect(
            _depths(await store.neighbours(TENANT, start.id, depth=2, direction="both")),
            [(1, middle.id), (2, side.id)],
            "neighbours(depth=2, 'both') over the same edges",
        )

    async def test_neighbours_stop_at_depth(self, store: GraphStore) -> None:
        """Only entities within ``depth`` hops come back; a larger depth than the graph is fine."""
        chain = [_entity(f"Hop {n}") for n in range(4)]
        edges = [_edge(chain[n].id, chain[n + 1].id) for n in range(3)]
        await self._store_graph(store, chain, edges)
        for depth in (1, 2, 3, 7):
            _expect(
                _depths(await store.neighbours(TENANT, chain[0].id, depth=depth, direction="out")),
                [(hop, chain[hop].id) for hop in range(1, min(depth, 3) + 1)],
                f"neighbours(depth={depth}, 'out') along the chain hop0->hop1->hop2->hop3",
            )

    async def test_neighbours_report_each_entity_once_at_its_smallest_depth(
        self, store: GraphStore
    ) -> None:
        """Reachable by several paths, an entity appears once, at the shortest path's length."""
        start, left, right, meet, near = (_entity(n) for n in ("S", "L", "R", "M", "N"))
        edges = [
            _edge(start.id, left.id),
            _edge(start.id, right.id),
            _edge(left.id, meet.id),
            _edge(right.id, meet.id),
            _edge(start.id, near.id),
            _edge(left.id, near.id),
        ]
        await self._store_graph(store, [start, left, right, meet, near], edges)
        _expect(
            _depths(await store.neighbours(TENANT, start.id, depth=3, direction="out")),
            sorted([(1, left.id), (1, right.id), (1, near.id), (2, meet.id)], key=_depth_then_text),
            "neighbours(depth=3, 'out') of a diamond plus a shortcut",
        )

    async def test_neighbours_order_by_depth_then_id_text(self, store: GraphStore) -> None:
        """Sorted by (depth, id text): the lowest id at depth 2 still follows depth 1."""
        ids = _ids_in_text_order(4)
        deep, low, high, start = (_entity(f"E{n}", entity_id=ids[n]) for n in range(4))
        # Edges are written high-before-low so that insertion order cannot pass.
        edges = [_edge(start.id, high.id), _edge(start.id, low.id), _edge(high.id, deep.id)]
        await self._store_graph(store, [start, high, low, deep], edges)
        neighbours = await store.neighbours(TENANT, start.id, depth=2)
        _expect(
            _depths(neighbours),
            [(1, low.id), (1, high.id), (2, deep.id)],
            "neighbours(depth=2) order: depth first, then id text",
        )
        _expect(
            [neighbour.entity for neighbour in neighbours],
            [low, high, deep],
            "the entities carried by the neighbours (equal to the stored entities)",
        )

    async def test_neighbours_exclude_the_start_on_a_cycle(self, store: GraphStore) -> None:
        """A cycle or a self-loop back to the start never lists the start as a neighbour."""
        start, first, second = _entity("Start"), _entity("First"), _entity("Second")
        edges = [
            _edge(start.id, first.id),
            _edge(first.id, second.id),
            _edge(second.id, start.id),
            _edge(start.id, start.id),
        ]
        await self._store_graph(store, [start, first, second], edges)
        _expect(
            _depths(await store.neighbours(TENANT, start.id, depth=4, direction="out")),
            [(1, first.id), (2, second.id)],
            "neighbours(depth=4, 'out') around start->first->second->start plus start->start",
        )
        _expect(
            _depths(await store.neighbours(TENANT, start.id, depth=4, direction="both")),
            sorted([(1, first.id), (1, second.id)], key=_depth_then_text),
            "neighbours(depth=4, 'both') around the same cycle",
        )

    async def test_neighbours_filter_by_relationship_type_at_every_hop(
        self, store: GraphStore
    ) -> None:
        """Only edges of the listed types are followed, on every hop."""
        start, friend, employer, friends_employer = (_entity(n) for n in ("S", "F", "E", "FE"))
        edges = [
            _edge(start.id, friend.id, type="KNOWS"),
            _edge(start.id, employer.id, type="WORKS_FOR"),
            _edge(friend.id, friends_employer.id, type="WORKS_FOR"),
        ]
        await self._store_graph(store, [start, friend, employer, friends_employer], edges)
        _expect(
            _depths(
                await store.neighbours(TENANT, start.id, depth=2, relationship_types=["KNOWS"])
            ),
            [(1, friend.id)],
            "neighbours(depth=2, relationship_types=['KNOWS'])",
        )
        _expect(
            _depths(
                await store.neighbours(TENANT, start.id, depth=2, relationship_types={"WORKS_FOR"})
            ),
            [(1, employer.id)],
            "neighbours(depth=2, relationship_types={'WORKS_FOR'})",
        )
        every = sorted([(1, friend.id), (1, employer.id)], key=_depth_then_text)
        every.append((2, friends_employer.id))
        _expect(
            _depths(
                await store.neighbours(
                    TENANT, start.id, depth=2, relationship_types=("KNOWS", "WORKS_FOR")
                )
            ),
            every,
            "neighbours(depth=2, relationship_types=('KNOWS', 'WORKS_FOR'))",
        )
        _expect(
            _depths(await store.neighbours(TENANT, start.id, depth=2, relationship_types=None)),
            every,
            "neighbours(depth=2, relationship_types=None): None means every type",
        )
        _expect(
            await store.neighbours(TENANT, start.id, depth=2, relationship_types=["LIKES"]),
            [],
            "neighbours(relationship_types=['LIKES']), a type no edge has",
        )

    async def test_neighbours_with_no_relationship_types_match_nothing(
        self, store: GraphStore
    ) -> None:
        """``relationship_types=[]`` is an empty filter: nothing matches, unlike ``None``."""
        start, friend = _entity("Start"), _entity("Friend")
        await self._store_graph(store, [start, friend], [_edge(start.id, friend.id)])
        _expect(
            await store.neighbours(TENANT, start.id, relationship_types=[]),
            [],
            "neighbours(relationship_types=[])",
        )

    async def test_neighbours_at_depth_zero_are_empty(self, store: GraphStore) -> None:
        """``depth=0`` reaches nothing (the start itself is never a neighbour)."""
        start, friend = _entity("Start"), _entity("Friend")
        await self._store_graph(store, [start, friend], [_edge(start.id, friend.id)])
        _expect(await store.neighbours(TENANT, start.id, depth=0), [], "neighbours(depth=0)")

    async def test_neighbours_of_an_unknown_id_are_empty(self, store: GraphStore) -> None:
        """An id the tenant does not hold has no neighbours; it is not an error."""
        start, friend = _entity("Start"), _entity("Friend")
        await self._store_graph(store, [start, friend], [_edge(start.id, friend.id)])
        _expect(
            await store.neighbours(TENANT, _entity_id(), depth=2), [], "neighbours of unknown id"
        )

    async def test_neighbours_with_a_negative_depth_raise(self, store: GraphStore) -> None:
        """A negative depth is a ``ValueError``, not an empty result."""
        start = _entity("Start")
        await store.upsert_entity(TENANT, start)
        with _raises(ValueError, "neighbours(depth=-1)"):
            await store.neighbours(TENANT, start.id, depth=-1)

    async def test_neighbours_with_an_unknown_direction_raise(self, store: GraphStore) -> None:
        """A direction outside {'out', 'in', 'both'} is a ``ValueError``, case included."""
        start = _entity("Start")
        await store.upsert_entity(TENANT, start)
        for direction in ("sideways", "OUT", ""):
            with _raises(ValueError, f"neighbours(direction={direction!r})"):
                await store.neighbours(TENANT, start.id, direction=cast(Direction, direction))

    # -- delete_by_tenant ----------------------------------------------------------------------

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

    async def test_delete_by_tenant_removes_everything_and_counts_entities(
        self, store: GraphStore
    ) -> None:
        """Entities, aliases, keys and edges all go; the count is of entities alone."""
        ids = [_entity_id() for _ in range(4)]
        await self._populate(store, TENANT, ids)
        _expect(await store.delete_by_tenant(TENANT), 2, "delete_by_tenant count (2 entities)")
        _expect(
            await self._everything(store, TENANT, ids),
            {
                "get_entities": {},
                "find_entities": [],
                "find_by_blocking_key": [],
                "find_aliases": [],
                "resolve_entity_ids": {},
                "get_relationship": None,
                "get_relationships_for": [],
                "neighbours": [],
            },
            "every read of the tenant after delete_by_tenant",
        )

    async def test_delete_by_tenant_leaves_other_tenants_intact(self, store: GraphStore) -> None:
        """Another tenant holding the very same ids keeps every row."""
        ids = [_entity_id() for _ in range(4)]
        await self._populate(store, TENANT, ids)
        await self._populate(store, OTHER, ids)
        before = await self._everything(store, OTHER, ids)
        await store.delete_by_tenant(TENANT)
        _expect(
            await self._everything(store, OTHER, ids),
            before,
            "every read of another tenant with the same ids, after delete_by_tenant(TENANT)",
        )

    async def test_delete_by_tenant_of_an_empty_tenant_is_zero(self, store: GraphStore) -> None:
        """Nothing to delete is not an error; a second deletion removes nothing more."""
        await store.upsert_entity(TENANT, _entity())
        _expect(await store.delete_by_tenant(STRANGER), 0, "delete_by_tenant of an empty tenant")
        _expect(await store.delete_by_tenant(TENANT), 1, "delete_by_tenant with one entity")
        _expect(await store.delete_by_tenant(TENANT), 0, "delete_by_tenant, again")

    # -- delete_entities -----------------------------------------------------------------------

    async def test_delete_entities_removes_the_entity_from_every_entity_read(
        self, store: GraphStore
    ) -> None:
        """A deleted entity reads as absent everywhere; the entity beside it is untouched."""
        doomed = _entity("Ada", type="Person")
        kept = _entity("Grace", type="Person")
        await store.upsert_entities(TENANT, [doomed, kept])
        _expect(await store.delete_entities(TENANT, [doomed.id]), 1, "delete_entities count")
        _expect(await store.get_entity(TENANT, doomed.id), None, "get_entity of the deleted id")
        _expect(
            await store.get_entities(TENANT, [doomed.id, kept.id]),
            {kept.id: kept},
            "get_entities([deleted, kept])",
        )
        _expect(await store.find_entities(TENANT), [kept], "find_entities after the delete")
        _expect(
            await store.find_entities(TENANT, entity_type="Person"),
            [kept],
            "find_entities(entity_type='Person') after the delete",
        )
        _expect(
            await store.resolve_entity_ids(TENANT, [doomed.id, kept.id]),
            {kept.id: kept.id},
            "resolve_entity_ids([deleted, kept]): the deleted id denotes nothing",
        )

    async def test_delete_entities_removes_every_relationship_touching_it(
        self, store: GraphStore
    ) -> None:
        """Edges out of, into and looping on a deleted entity go; edges between others stay."""
        doomed, left, right = _entity("Doomed"), _entity("Left"), _entity("Right")
        out_edge, in_edge = _edge(doomed.id, left.id), _edge(right.id, doomed.id)
        loop, kept_edge = _edge(doomed.id, doomed.id), _edge(left.id, right.id)
        await self._store_graph(store, [doomed, left, right], [out_edge, in_edge, loop, kept_edge])
        await store.delete_entities(TENANT, [doomed.id])
        for edge, role in ((out_edge, "subject"), (in_edge, "object"), (loop, "both ends")):
            _expect(
                await store.get_relationship(TENANT, edge.id),
                None,
                f"get_relationship of an edge whose {role} was deleted",
            )
        _expect(
            await store.get_relationship(TENANT, kept_edge.id),
            kept_edge,
            "get_relationship of an edge between two surviving entities",
        )
        _expect(
            await store.get_relationships_for(TENANT, [doomed.id, left.id, right.id]),
            [kept_edge],
            "get_relationships_for(every id) after deleting one endpoint",
        )
        _expect(
            _depths(await store.neighbours(TENANT, left.id, depth=3)),
            [(1, right.id)],
            "neighbours(left, depth=3): the path through the deleted entity is gone",
        )
        _expect(
            await store.neighbours(TENANT, doomed.id, depth=3),
            [],
            "neighbours of the deleted entity (an unknown id now)",
        )
        reused = _edge(left.id, right.id, relationship_id=loop.id)
        await store.upsert_relationship(TENANT, reused)
        _expect(
            await store.get_relationships_for(TENANT, [left.id]),
            _edges_by_id([kept_edge, reused]),
            "a deleted edge's id written again as a new edge (nothing of the old one is left)",
        )

    async def test_delete_entities_removes_its_blocking_keys(self, store: GraphStore) -> None:
        """Keys stop finding a deleted entity; a key it shared still finds the others."""
        doomed = _entity("Ada", keys=("k:shared", "k:own"))
        kept = _entity("Adah", keys=("k:shared",))
        await store.upsert_entities(TENANT, [doomed, kept])
        await store.delete_entities(TENANT, [doomed.id])
        _expect(
            await store.find_by_blocking_key(TENANT, "k:shared"),
            [kept],
            "find_by_blocking_key of a key the deleted entity shared",
        )
        _expect(
            await store.find_by_blocking_key(TENANT, "k:own"),
            [],
            "find_by_blocking_key of a key only the deleted entity carried",
        )
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:shared", "k:own"]),
            {"k:shared": [kept]},
            "find_by_blocking_keys after the delete (the emptied key is absent)",
        )

    async def test_delete_entities_removes_the_aliases_pointing_at_it(
        self, store: GraphStore
    ) -> None:
        """Aliases whose canonical is deleted go with it; aliases of other entities stay."""
        doomed, kept = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [doomed, kept])
        first, second, other = _entity_id(), _entity_id(), _entity_id()
        await store.upsert_alias(TENANT, _alias(first, doomed.id))
        await store.upsert_alias(TENANT, _alias(second, doomed.id))
        kept_alias = _alias(other, kept.id)
        await store.upsert_alias(TENANT, kept_alias)
        await store.delete_entities(TENANT, [doomed.id])
        _expect(
            await store.resolve_entity_ids(TENANT, [first, second, other]),
            {other: kept.id},
            "resolve_entity_ids of the deleted entity's aliases and another entity's alias",
        )
        _expect(await store.find_aliases(TENANT, doomed.id), [], "find_aliases(deleted)")
        _expect(await store.find_aliases(TENANT, kept.id), [kept_alias], "find_aliases(kept)")
        _expect(
            await store.remove_alias(TENANT, first),
            False,
            "remove_alias of an alias that went with its canonical entity",
        )
        reborn = _entity("Former alias", entity_id=second)
        await store.upsert_entity(TENANT, reborn)
        _expect(
            await store.get_entity(TENANT, second),
            reborn,
            "a former alias id upserted as an entity (the alias is really gone)",
        )

    async def test_delete_entities_ignores_alias_ids(self, store: GraphStore) -> None:
        """An alias id is not an entity: it is neither deleted nor counted, nor its canonical."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias = _alias(_entity_id(), canonical.id)
        await store.upsert_alias(TENANT, alias)
        _expect(
            await store.delete_entities(TENANT, [alias.alias_id]),
            0,
            "delete_entities([an alias id])",
        )
        _expect(
            await store.resolve_entity_ids(TENANT, [alias.alias_id]),
            {alias.alias_id: canonical.id},
            "resolve_entity_ids of the alias id passed to delete_entities",
        )
        _expect(await store.find_aliases(TENANT, canonical.id), [alias], "find_aliases")
        _expect(await store.get_entity(TENANT, canonical.id), canonical, "the alias's canonical")

    async def test_delete_entities_counts_each_removed_entity_once(self, store: GraphStore) -> None:
        """The count is of entities removed: duplicates, absent ids and alias ids add nothing."""
        first, second, kept = _entity("Ada"), _entity("Grace"), _entity("Alan")
        await store.upsert_entities(TENANT, [first, second, kept])
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, kept.id))
        _expect(
            await store.delete_entities(
                TENANT, [first.id, first.id, _entity_id(), alias_id, second.id]
            ),
            2,
            "delete_entities([a, a, absent, alias, b])",
        )
        _expect(await store.find_entities(TENANT), [kept], "find_entities after the delete")

    async def test_delete_entities_is_idempotent(self, store: GraphStore) -> None:
        """Deleting again removes nothing more, returns ``0`` and never raises."""
        doomed, kept = _entity("Ada", keys=("k:a",)), _entity("Grace", keys=("k:a",))
        await store.upsert_entities(TENANT, [doomed, kept])
        await store.upsert_relationship(TENANT, _edge(kept.id, kept.id))
        _expect(await store.delete_entities(TENANT, [doomed.id]), 1, "the first delete")
        ids = [doomed.id, kept.id]
        after_first = await self._reads_of(store, ids)
        _expect(await store.delete_entities(TENANT, [doomed.id]), 0, "the same delete again")
        _expect(await self._reads_of(store, ids), after_first, "every read after the replay")

    async def test_delete_entities_of_no_ids_is_zero(self, store: GraphStore) -> None:
        """``[]`` and ids the tenant never held delete nothing and return ``0``."""
        ada = _entity("Ada", keys=("k:a",))
        await store.upsert_entity(TENANT, ada)
        before = await self._reads_of(store, [ada.id])
        _expect(await store.delete_entities(TENANT, []), 0, "delete_entities([])")
        _expect(await store.delete_entities(TENANT, [_entity_id()]), 0, "an unknown id")
        _expect(await self._reads_of(store, [ada.id]), before, "every read afterwards")

    async def test_a_deleted_entity_id_can_be_upserted_again(self, store: GraphStore) -> None:
        """The id comes back as a fresh entity: no old keys, edges or aliases attached."""
        old = _entity("Ada", keys=("k:old",))
        friend = _entity("Grace")
        await store.upsert_entities(TENANT, [old, friend])
        await store.upsert_relationship(TENANT, _edge(old.id, friend.id))
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, old.id))
        await store.delete_entities(TENANT, [old.id])
        fresh = _entity("Augusta", entity_id=old.id, type="Concept", keys=("k:new",))
        await store.upsert_entity(TENANT, fresh)
        _expect(await store.get_entity(TENANT, old.id), fresh, "get_entity of the re-created id")
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:old", "k:new"]),
            {"k:new": [fresh]},
            "find_by_blocking_keys: only the fresh entity's key finds it",
        )
        _expect(
            await store.get_relationships_for(TENANT, [old.id]), [], "edges of the re-created id"
        )
        _expect(await store.find_aliases(TENANT, old.id), [], "aliases of the re-created id")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id, old.id]),
            {old.id: old.id},
            "resolve_entity_ids([old alias, re-created id])",
        )

    async def test_delete_entities_never_crosses_tenants(self, store: GraphStore) -> None:
        """Another tenant holding the very same ids keeps its entities, keys, aliases and edges."""
        ids = [_entity_id() for _ in range(4)]
        await self._populate(store, TENANT, ids)
        await self._populate(store, OTHER, ids)
        before = await self._everything(store, OTHER, ids)
        _expect(
            await store.delete_entities(STRANGER, ids),
            0,
            "delete_entities under a tenant that holds none of the ids",
        )
        _expect(await store.delete_entities(TENANT, ids), 2, "delete_entities under TENANT")
        _expect(
            await self._everything(store, OTHER, ids),
            before,
            "every read of another tenant with the same ids, after TENANT deleted them",
        )
        _expect(
            await self._everything(store, TENANT, ids),
            {
                "get_entities": {},
                "find_entities": [],
                "find_by_blocking_key": [],
                "find_aliases": [],
                "resolve_entity_ids": {},
                "get_relationship": None,
                "get_relationships_for": [],
                "neighbours": [],
            },
            "every read of TENANT after deleting all its entities",
        )

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

    # -- tenancy: writes -----------------------------------------------------------------------

    async def test_upsert_relationship_checks_endpoints_in_its_own_tenant(
        self, store: GraphStore
    ) -> None:
        """Endpoints held by another tenant do not count: the edge is dangling here."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(OTHER, [ada, grace])
        edge = _edge(ada.id, grace.id)
        with _raises(MissingEntityError, "upsert_relationship whose endpoints are OTHER's"):
            await store.upsert_relationship(TENANT, edge)
        _expect(await store.get_relationship(OTHER, edge.id), None, "the edge under OTHER")

    async def test_upsert_alias_checks_the_canonical_in_its_own_tenant(
        self, store: GraphStore
    ) -> None:
        """A canonical entity held by another tenant does not count."""
        ada = _entity("Ada")
        await store.upsert_entity(OTHER, ada)
        with _raises(MissingEntityError, "upsert_alias whose canonical is OTHER's entity"):
            await store.upsert_alias(TENANT, _alias(_entity_id(), ada.id))

    async def test_ids_taken_in_one_tenant_are_free_in_another(self, store: GraphStore) -> None:
        """An alias id of one tenant can be an entity of another, and the reverse."""
        ada = _entity("Ada")
        await store.upsert_entity(OTHER, ada)
        taken = _entity_id()
        await store.upsert_alias(OTHER, _alias(taken, ada.id))
        as_entity = _entity("Entity here", entity_id=taken)
        await store.upsert_entity(TENANT, as_entity)
        _expect(
            await store.get_entity(TENANT, taken), as_entity, "TENANT's entity on OTHER's alias id"
        )
        canonical = _entity("Canonical")
        await store.upsert_entity(TENANT, canonical)
        await store.upsert_alias(TENANT, _alias(ada.id, canonical.id))
        _expect(
            await store.resolve_entity_ids(TENANT, [ada.id]),
            {ada.id: canonical.id},
            "TENANT's alias on the id of OTHER's entity",
        )

    async def test_deletes_never_cross_tenants(self, store: GraphStore) -> None:
        """Deleting another tenant's edge or alias id returns ``False`` and removes nothing."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        edge = _edge(ada.id, grace.id)
        await store.upsert_relationship(TENANT, edge)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, ada.id))
        _expect(await store.delete_relationship(OTHER, edge.id), False, "OTHER deleting the edge")
        _expect(await store.remove_alias(OTHER, alias_id), False, "OTHER removing the alias")
        _expect(await store.get_relationship(TENANT, edge.id), edge, "TENANT's edge afterwards")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id]),
            {alias_id: ada.id},
            "TENANT's alias afterwards",
        )

    # -- tenancy: every read -------------------------------------------------------------------

    async def _twins(self, store: GraphStore) -> tuple[Entity, Entity]:
        """The same id under TENANT and OTHER, with different values."""
        mine = _entity("Mine", keys=("k:twin",))
        theirs = _entity("Theirs", entity_id=mine.id, type="Place", keys=("k:twin",))
        await store.upsert_entity(TENANT, mine)
        await store.upsert_entity(OTHER, theirs)
        return mine, theirs

    async def test_get_entity_never_crosses_tenants(self, store: GraphStore) -> None:
        """Each tenant reads its own entity under a shared id; a third reads ``None``."""
        mine, theirs = await self._twins(store)
        _expect(await store.get_entity(TENANT, mine.id), mine, "get_entity under TENANT")
        _expect(await store.get_entity(OTHER, mine.id), theirs, "get_entity under OTHER")
        _expect(await store.get_entity(STRANGER, mine.id), None, "get_entity under STRANGER")

    async def test_get_entities_never_crosses_tenants(self, store: GraphStore) -> None:
        """The batch read is scoped exactly like the single one."""
        mine, theirs = await self._twins(store)
        only_theirs = _entity("Only theirs")
        await store.upsert_entity(OTHER, only_theirs)
        ids = [mine.id, only_theirs.id]
        _expect(await store.get_entities(TENANT, ids), {mine.id: mine}, "get_entities, TENANT")
        _expect(
            await store.get_entities(OTHER, ids),
            {mine.id: theirs, only_theirs.id: only_theirs},
            "get_entities under OTHER",
        )
        _expect(await store.get_entities(STRANGER, ids), {}, "get_entities under STRANGER")

    async def test_find_entities_never_crosses_tenants(self, store: GraphStore) -> None:
        """Listing, filtering and paging see only the tenant's own entities."""
        mine, theirs = await self._twins(store)
        only_theirs = _entity("Only theirs", type="Place")
        await store.upsert_entity(OTHER, only_theirs)
        _expect(await store.find_entities(TENANT), [mine], "find_entities under TENANT")
        _expect(
            await store.find_entities(OTHER),
            _by_id([theirs, only_theirs]),
            "find_entities under OTHER",
        )
        _expect(
            await store.find_entities(TENANT, entity_type="Place"),
            [],
            "find_entities(entity_type='Place') under TENANT (only OTHER has places)",
        )
        _expect(await store.find_entities(STRANGER), [], "find_entities under STRANGER")

    async def test_find_by_blocking_key_never_crosses_tenants(self, store: GraphStore) -> None:
        """A key shared by two tenants finds each tenant's own entities only."""
        mine, theirs = await self._twins(store)
        _expect(await store.find_by_blocking_key(TENANT, "k:twin"), [mine], "under TENANT")
        _expect(await store.find_by_blocking_key(OTHER, "k:twin"), [theirs], "under OTHER")
        _expect(await store.find_by_blocking_key(STRANGER, "k:twin"), [], "under STRANGER")

    async def test_find_by_blocking_keys_never_crosses_tenants(self, store: GraphStore) -> None:
        """The batched key read is scoped like the single one, key by key."""
        mine, theirs = await self._twins(store)
        only_theirs = _entity("Only theirs", keys=("k:theirs",))
        await store.upsert_entity(OTHER, only_theirs)
        keys = ["k:twin", "k:theirs"]
        _expect(
            await store.find_by_blocking_keys(TENANT, keys),
            {"k:twin": [mine]},
            "find_by_blocking_keys under TENANT",
        )
        _expect(
            await store.find_by_blocking_keys(OTHER, keys),
            {"k:twin": [theirs], "k:theirs": [only_theirs]},
            "find_by_blocking_keys under OTHER",
        )
        _expect(await store.find_by_blocking_keys(STRANGER, keys), {}, "under STRANGER")

    async def test_find_aliases_never_crosses_tenants(self, store: GraphStore) -> None:
        """Aliases of a shared canonical id are listed per tenant."""
        mine, _ = await self._twins(store)
        my_alias, their_alias = _alias(_entity_id(), mine.id), _alias(_entity_id(), mine.id)
        await store.upsert_alias(TENANT, my_alias)
        await store.upsert_alias(OTHER, their_alias)
        _expect(await store.find_aliases(TENANT, mine.id), [my_alias], "find_aliases, TENANT")
        _expect(await store.find_aliases(OTHER, mine.id), [their_alias], "find_aliases, OTHER")
        _expect(await store.find_aliases(STRANGER, mine.id), [], "find_aliases under STRANGER")

    async def test_resolve_entity_ids_never_crosses_tenants(self, store: GraphStore) -> None:
        """One id can be an entity in one tenant, an alias in another and nothing in a third."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        canonical = _entity("Canonical")
        await store.upsert_entity(OTHER, canonical)
        await store.upsert_alias(OTHER, _alias(ada.id, canonical.id))
        _expect(
            await store.resolve_entity_ids(TENANT, [ada.id]),
            {ada.id: ada.id},
            "resolve_entity_ids under TENANT (an entity there)",
        )
        _expect(
            await store.resolve_entity_ids(OTHER, [ada.id]),
            {ada.id: canonical.id},
            "resolve_entity_ids under OTHER (an alias there)",
        )
        _expect(await store.resolve_entity_ids(STRANGER, [ada.id]), {}, "under STRANGER")

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

    async def test_get_relationship_never_crosses_tenants(self, store: GraphStore) -> None:
        """Each tenant reads its own edge under a shared relationship id."""
        mine, theirs = await self._twin_edges(store)
        _expect(await store.get_relationship(TENANT, mine.id), mine, "under TENANT")
        _expect(await store.get_relationship(OTHER, mine.id), theirs, "under OTHER")
        _expect(await store.get_relationship(STRANGER, mine.id), None, "under STRANGER")

    async def test_get_relationships_for_never_crosses_tenants(self, store: GraphStore) -> None:
        """Edges touching shared entity ids are listed per tenant."""
        mine, theirs = await self._twin_edges(store)
        ids = [mine.subject_id, mine.object_id]
        _expect(await store.get_relationships_for(TENANT, ids), [mine], "under TENANT")
        _expect(await store.get_relationships_for(OTHER, ids), [theirs], "under OTHER")
        _expect(await store.get_relationships_for(STRANGER, ids), [], "under STRANGER")

    async def test_neighbours_never_crosses_tenants(self, store: GraphStore) -> None:
        """Traversal follows only the tenant's own edges, over entity ids both tenants hold."""
        start, mine, theirs = _entity_id(), _entity_id(), _entity_id()
        for tenant in (TENANT, OTHER):
            await store.upsert_entities(
                tenant, [_entity(f"E{n}", entity_id=i) for n, i in enumerate((start, mine, theirs))]
            )
        await store.upsert_relationship(TENANT, _edge(start, mine))
        await store.upsert_relationship(OTHER, _edge(start, theirs))
        _expect(_depths(await store.neighbours(TENANT, start, depth=3)), [(1, mine)], "TENANT")
        _expect(_depths(await store.neighbours(OTHER, start, depth=3)), [(1, theirs)], "OTHER")
        _expect(await store.neighbours(STRANGER, start, depth=3), [], "under STRANGER")

    # -- copies: every read hands out objects the caller may change ----------------------------

    async def test_get_entity_returns_copies(self, store: GraphStore) -> None:
        """Defacing a returned entity (nested attributes included) changes nothing stored."""
        ada = _entity(keys=("k:ada",))
        await store.upsert_entity(TENANT, ada)
        expected = _snapshot(ada)
        got = await store.get_entity(TENANT, ada.id)
        assert got is not None, "get_entity after upsert_entity returned None"
        _deface_entity(got)
        _expect(await store.get_entity(TENANT, ada.id), expected, "get_entity after defacing")

    async def test_get_entities_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned mapping or its entities changes nothing stored."""
        ada = _entity(keys=("k:ada",))
        await store.upsert_entity(TENANT, ada)
        expected = {ada.id: _snapshot(ada)}
        _deface_entity_map(await store.get_entities(TENANT, [ada.id]))
        _expect(await store.get_entities(TENANT, [ada.id]), expected, "get_entities, defaced")

    async def test_find_entities_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned list or its entities changes nothing stored."""
        written = [_entity("Ada", keys=("k:ada",)), _entity("Grace")]
        await store.upsert_entities(TENANT, written)
        expected = _by_id(_snapshot(entity) for entity in written)
        _deface_entities(await store.find_entities(TENANT))
        _expect(await store.find_entities(TENANT), expected, "find_entities after defacing")

    async def test_find_by_blocking_key_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned list or its entities changes neither them nor the index."""
        written = [_entity("Ada", keys=("k:shared",)), _entity("Adah", keys=("k:shared",))]
        await store.upsert_entities(TENANT, written)
        expected = _by_id(_snapshot(entity) for entity in written)
        _deface_entities(await store.find_by_blocking_key(TENANT, "k:shared"))
        _expect(
            await store.find_by_blocking_key(TENANT, "k:shared"),
            expected,
            "find_by_blocking_key after defacing",
        )
        _expect(
            await store.find_by_blocking_key(TENANT, "defaced"), [], "the key a defacer assigned"
        )

    async def test_find_by_blocking_keys_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned mapping, its lists or its entities changes nothing stored."""
        ada = _entity("Ada", keys=("k:a", "k:b"))
        await store.upsert_entity(TENANT, ada)
        expected = {"k:a": [_snapshot(ada)], "k:b": [_snapshot(ada)]}
        found = await store.find_by_blocking_keys(TENANT, ["k:a", "k:b"])
        for entities in found.values():
            _deface_entities(entities)
        found["k:intruder"] = [_entity("Intruder")]
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:a", "k:b", "k:intruder"]),
            expected,
            "find_by_blocking_keys after defacing",
        )

    async def test_find_aliases_returns_copies(self, store: GraphStore) -> None:
        """Defacing a returned alias (re-pointing it) changes nothing stored."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        alias = _alias(_entity_id(), ada.id)
        await store.upsert_alias(TENANT, alias)
        expected = [alias.model_copy(deep=True)]
        found = await store.find_aliases(TENANT, ada.id)
        for each in found:
            _deface_alias(each)
        found.append(_alias(_entity_id(), ada.id))
        _expect(await store.find_aliases(TENANT, ada.id), expected, "find_aliases, defaced")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias.alias_id]),
            {alias.alias_id: ada.id},
            "resolve_entity_ids of the alias a caller re-pointed on its copy",
        )

    async def test_resolve_entity_ids_returns_copies(self, store: GraphStore) -> None:
        """Changing the returned mapping changes nothing a later resolution sees."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        resolved = await store.resolve_entity_ids(TENANT, [ada.id])
        resolved[ada.id] = _entity_id()
        resolved[_entity_id()] = ada.id
        _expect(
            await store.resolve_entity_ids(TENANT, [ada.id]),
            {ada.id: ada.id},
            "resolve_entity_ids after a caller changed the previous result",
        )

    async def test_get_relationship_returns_copies(self, store: GraphStore) -> None:
        """Defacing a returned edge (endpoints, nested attributes) changes nothing stored."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        edge = _edge(ada.id, grace.id)
        await store.upsert_relationship(TENANT, edge)
        expected = edge.model_copy(deep=True)
        got = await store.get_relationship(TENANT, edge.id)
        assert got is not None, "get_relationship after upsert_relationship returned None"
        _deface_relationship(got)
        _expect(await store.get_relationship(TENANT, edge.id), expected, "get_relationship")

    async def test_get_relationships_for_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned list or its edges changes nothing stored."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        edges = [_edge(ada.id, grace.id), _edge(grace.id, ada.id)]
        await store.upsert_relationships(TENANT, edges)
        expected = _edges_by_id(edge.model_copy(deep=True) for edge in edges)
        found = await store.get_relationships_for(TENANT, [ada.id])
        for edge in found:
            _deface_relationship(edge)
        found.clear()
        _expect(
            await store.get_relationships_for(TENANT, [ada.id]),
            expected,
            "get_relationships_for after defacing",
        )

    async def test_neighbours_returns_copies(self, store: GraphStore) -> None:
        """Defacing a returned neighbour or its entity changes nothing stored."""
        ada, grace = _entity("Ada"), _entity("Grace", keys=("k:grace",))
        await store.upsert_entities(TENANT, [ada, grace])
        await store.upsert_relationship(TENANT, _edge(ada.id, grace.id))
        expected = [Neighbour(entity=_snapshot(grace), depth=1)]
        found = await store.neighbours(TENANT, ada.id)
        for neighbour in found:
            _deface_entity(neighbour.entity)
            neighbour.depth = 9
        _expect(await store.neighbours(TENANT, ada.id), expected, "neighbours after defacing")
        _expect(await store.get_entity(TENANT, grace.id), _snapshot(grace), "the neighbour")

    # -- copies: every write keeps nothing of the caller's -------------------------------------

    async def test_upsert_entity_keeps_no_reference_to_the_callers_object(
        self, store: GraphStore
    ) -> None:
        """Changing the entity after upserting it changes nothing stored."""
        ada = _entity(keys=("k:ada",))
        expected = _snapshot(ada)
        await store.upsert_entity(TENANT, ada)
        _deface_entity(ada)
        _expect(await store.get_entity(TENANT, ada.id), expected, "get_entity, caller defaced")
        _expect(await store.find_by_blocking_key(TENANT, "k:ada"), [expected], "its key")

    async def test_upsert_entities_keeps_no_reference_to_the_callers_objects(
        self, store: GraphStore
    ) -> None:
        """Changing the batch's entities after the write changes nothing stored."""
        written = [_entity("Ada"), _entity("Grace")]
        expected = {entity.id: _snapshot(entity) for entity in written}
        await store.upsert_entities(TENANT, written)
        for entity in written:
            _deface_entity(entity)
        _expect(
            await store.get_entities(TENANT, list(expected)),
            expected,
            "get_entities after the caller defaced what it upserted",
        )

    async def test_upsert_alias_keeps_no_reference_to_the_callers_object(
        self, store: GraphStore
    ) -> None:
        """Re-pointing the caller's alias object after the write changes nothing stored."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        alias = _alias(_entity_id(), ada.id)
        expected = alias.model_copy(deep=True)
        await store.upsert_alias(TENANT, alias)
        _deface_alias(alias)
        _expect(await store.find_aliases(TENANT, ada.id), [expected], "find_aliases, defaced")

    async def test_upsert_relationship_keeps_no_reference_to_the_callers_object(
        self, store: GraphStore
    ) -> None:
        """Changing the edge after upserting it changes nothing stored."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        edge = _edge(ada.id, grace.id)
        expected = edge.model_copy(deep=True)
        await store.upsert_relationship(TENANT, edge)
        _deface_relationship(edge)
        _expect(await store.get_relationship(TENANT, edge.id), expected, "get_relationship")
        _expect(
            _depths(await store.neighbours(TENANT, ada.id, direction="out")),
            [(1, grace.id)],
            "neighbours after the caller re-pointed its edge object",
        )

    async def test_upsert_relationships_keeps_no_reference_to_the_callers_objects(
        self, store: GraphStore
    ) -> None:
        """Changing the batch's edges after the write changes nothing stored."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        edges = [_edge(ada.id, grace.id), _edge(grace.id, ada.id)]
        expected = _edges_by_id(edge.model_copy(deep=True) for edge in edges)
        await store.upsert_relationships(TENANT, edges)
        for edge in edges:
            _deface_relationship(edge)
        _expect(
            await store.get_relationships_for(TENANT, [ada.id, grace.id]),
            expected,
            "get_relationships_for after the caller defaced what it upserted",
        )

    # -- lifetime ------------------------------------------------------------------------------

    async def test_close_is_safe_to_call_twice(self, store: GraphStore) -> None:
        """``close()`` twice does not raise (dispose may close a store a test already closed)."""
        await store.close()
        await store.close()

    async def test_the_block_form_binds_the_store(self, store: GraphStore) -> None:
        """``async with store as bound`` binds the store itself, not ``None`` or a wrapper."""
        async with store as bound:
            assert bound is store, f"__aenter__ returned {bound!r}; expected the store itself"

    async def test_the_block_form_never_suppresses_an_exception(self, store: GraphStore) -> None:
        """An exception raised in the block reaches the caller: ``__aexit__`` returns ``None``."""
        with _raises(RuntimeError, "a RuntimeError raised inside `async with store`"):
            async with store:
                raise RuntimeError("raised inside the block")

    # -- properties ----------------------------------------------------------------------------

    @settings(compliance_settings())
    @given(entity=gen.entities(), data=st.data())
    async def test_an_upserted_entity_and_edge_read_back_equal_from_every_read(
        self, entity: Entity, data: st.DataObject
    ) -> None:
        """Round trip: any valid entity, and any edge on it, come back equal from each read."""
        edge = data.draw(
            gen.relationships(st.just(entity.id), st.just(entity.id)), label="self-loop"
        )
        async with self.fresh_store() as store:
            await store.upsert_entity(TENANT, entity)
            await store.upsert_relationship(TENANT, edge)
            _expect(await store.get_entity(TENANT, entity.id), entity, "get_entity")
            _expect(
                await store.get_entities(TENANT, [entity.id]), {entity.id: entity}, "get_entities"
            )
            _expect(
                await store.find_entities(TENANT, entity_type=entity.type),
                [entity],
                "find_entities(entity_type=entity.type)",
            )
            _expect(
                await store.find_by_blocking_keys(TENANT, entity.blocking_keys),
                {key: [entity] for key in entity.blocking_keys},
                "find_by_blocking_keys(entity.blocking_keys)",
            )
            _expect(
                await store.resolve_entity_ids(TENANT, [entity.id]),
                {entity.id: entity.id},
                "resolve_entity_ids of the entity",
            )
            _expect(await store.get_relationship(TENANT, edge.id), edge, "get_relationship")
            _expect(
                await store.get_relationships_for(TENANT, [entity.id]),
                [edge],
                "get_relationships_for([entity]) holding one self-loop",
            )

    @settings(compliance_settings())
    @given(
        writes=_pool(4).flatmap(_entity_writes),
        batched=st.booleans(),
    )
    async def test_entity_writes_are_idempotent_and_last_write_wins(
        self, writes: list[Entity], batched: bool
    ) -> None:
        """Replaying any sequence of entity writes leaves the last value of each id, once."""
        latest = {entity.id: entity for entity in writes}
        async with self.fresh_store() as store:
            for _replay in range(2):
                if batched:
                    await store.upsert_entities(TENANT, writes)
                else:
                    for entity in writes:
                        await store.upsert_entity(TENANT, entity)
            _expect(
                await store.find_entities(TENANT),
                _by_id(latest.values()),
                "find_entities after replaying the writes (last value of each id, by id text)",
            )
            _expect(
                await store.get_entities(TENANT, list(latest)),
                latest,
                "get_entities after replaying the writes",
            )

    @settings(compliance_settings())
    @given(writes=_pool(4).flatmap(_entity_writes))
    async def test_blocking_key_reads_follow_the_latest_keys(self, writes: list[Entity]) -> None:
        """Each key finds exactly the entities whose latest version carries it, by id."""
        latest = {entity.id: entity for entity in writes}
        expected = {
            key: _by_id(entity for entity in latest.values() if key in entity.blocking_keys)
            for key in gen.BLOCKING_KEY_VOCABULARY
        }
        async with self.fresh_store() as store:
            for entity in writes:
                await store.upsert_entity(TENANT, entity)
            for key, entities in expected.items():
                _expect(
                    await store.find_by_blocking_key(TENANT, key),
                    entities,
                    f"find_by_blocking_key({key!r}) after the writes",
                )
            _expect(
                await store.find_by_blocking_keys(TENANT, gen.BLOCKING_KEY_VOCABULARY),
                {key: entities for key, entities in expected.items() if entities},
                "find_by_blocking_keys(every key) after the writes",
            )

    @settings(compliance_settings())
    @given(
        entities=st.lists(
            gen.entities(attributes=gen.small_attributes()),
            max_size=10,
            unique_by=lambda entity: entity.id,
        ),
        page_size=st.integers(min_value=1, max_value=4),
        entity_type=st.none() | gen.type_names(),
        start=st.none() | gen.entity_ids(),
    )
    async def test_find_entities_pages_through_everything_in_id_order(
        self,
        entities: list[Entity],
        page_size: int,
        entity_type: str | None,
        start: EntityId | None,
    ) -> None:
        """Pages chained by ``after`` visit each matching entity once, in id-text order."""
        expected = [
            entity
            for entity in _by_id(entities)
            if (entity_type is None or entity.type == entity_type)
            and (start is None or id_text(entity.id) > id_text(start))
        ]
        async with self.fresh_store() as store:
            await store.upsert_entities(TENANT, entities)
            seen: list[Entity] = []
            cursor = start
            for _page in range(len(entities) + 2):
                page = await store.find_entities(
                    TENANT, entity_type=entity_type, limit=page_size, after=cursor
                )
                assert len(page) <= page_size, (
                    f"find_entities(limit={page_size}) returned {len(page)} entities"
                )
                seen.extend(page)
                if len(page) < page_size:
                    break
                cursor = page[-1].id
            _expect(seen, expected, f"the pages of find_entities(limit={page_size}) chained")

    @settings(compliance_settings())
    @given(
        pool=_pool(4),
        alias_ids=st.lists(gen.entity_ids(), max_size=4, unique=True),
        unknown=st.lists(gen.entity_ids(), max_size=2),
        targets=st.lists(st.integers(min_value=0, max_value=3), min_size=8, max_size=8),
    )
    async def test_aliases_resolve_to_their_latest_canonical(
        self,
        pool: list[EntityId],
        alias_ids: list[EntityId],
        unknown: list[EntityId],
        targets: list[int],
    ) -> None:
        """Entities resolve to themselves, aliases to their last canonical, others nowhere."""
        aliases = [entity_id for entity_id in alias_ids if entity_id not in pool]
        # Each alias is written twice, so the second (possibly re-pointed) write must win.
        writes = [
            _alias(alias_id, pool[targets[2 * n + replay] % len(pool)], f"name {replay}")
            for replay in range(2)
            for n, alias_id in enumerate(aliases)
        ]
        latest = {alias.alias_id: alias for alias in writes}
        ghosts = [entity_id for entity_id in unknown if entity_id not in pool + aliases]
        async with self.fresh_store() as store:
            await store.upsert_entities(TENANT, [_entity(entity_id=i) for i in pool])
            for alias in writes:
                await store.upsert_alias(TENANT, alias)
            _expect(
                await store.resolve_entity_ids(TENANT, [*pool, *aliases, *ghosts]),
                {
                    **{entity_id: entity_id for entity_id in pool},
                    **{alias.alias_id: alias.canonical_id for alias in latest.values()},
                },
                "resolve_entity_ids(entities + aliases + unknown ids)",
            )
            for canonical in pool:
                _expect(
                    await store.find_aliases(TENANT, canonical),
                    sorted(
                        (alias for alias in latest.values() if alias.canonical_id == canonical),
                        key=lambda alias: id_text(alias.alias_id),
                    ),
                    f"find_aliases({canonical})",
                )

    @settings(compliance_settings())
    @given(
        pool=_pool(4),
        relationship_pool=st.lists(gen.relationship_ids(), min_size=1, max_size=3, unique=True),
        data=st.data(),
        batched=st.booleans(),
    )
    async def test_relationship_writes_are_idempotent_and_last_write_wins(
        self,
        pool: list[EntityId],
        relationship_pool: list[RelationshipId],
        data: st.DataObject,
        batched: bool,
    ) -> None:
        """Replaying edge writes leaves each id's last edge, once, in every edge read."""
        writes = data.draw(
            st.lists(
                gen.relationships(
                    st.sampled_from(pool),
                    st.sampled_from(pool),
                    ids=st.sampled_from(relationship_pool),
                    attributes=gen.small_attributes(),
                ),
                min_size=1,
                max_size=6,
            ),
            label="writes",
        )
        latest = {edge.id: edge for edge in writes}
        async with self.fresh_store() as store:
            await store.upsert_entities(TENANT, [_entity(entity_id=i) for i in pool])
            for _replay in range(2):
                if batched:
                    await store.upsert_relationships(TENANT, writes)
                else:
                    for edge in writes:
                        await store.upsert_relationship(TENANT, edge)
            for relationship_id in relationship_pool:
                _expect(
                    await store.get_relationship(TENANT, relationship_id),
                    latest.get(relationship_id),
                    f"get_relationship({relationship_id}) after replaying the writes",
                )
            for entity_id in pool:
                _expect(
                    await store.get_relationships_for(TENANT, [entity_id]),
                    _edges_by_id(
                        edge
                        for edge in latest.values()
                        if entity_id in (edge.subject_id, edge.object_id)
                    ),
                    f"get_relationships_for([{entity_id}]) after replaying the writes",
                )
            _expect(
                await store.get_relationships_for(TENANT, pool),
                _edges_by_id(latest.values()),
                "get_relationships_for(every entity): each edge once",
            )

    @settings(compliance_settings())
    @given(
        graph=_graphs(),
        depth=st.integers(min_value=0, max_value=3),
        direction=st.sampled_from(DIRECTIONS),
        relationship_types=_TYPE_FILTERS,
    )
    async def test_neighbours_match_a_breadth_first_search(
        self,
        graph: tuple[list[EntityId], list[Relationship], EntityId],
        depth: int,
        direction: Direction,
        relationship_types: tuple[str, ...] | None,
    ) -> None:
        """On any small graph, neighbours equal the BFS the port describes (the oracle)."""
        ids, edges, start = graph
        entities = {
            entity_id: _entity(f"E{n}", entity_id=entity_id) for n, entity_id in enumerate(ids)
        }
        expected = _breadth_first(
            edges,
            ids,
            start,
            depth=depth,
            direction=direction,
            relationship_types=relationship_types,
        )
        async with self.fresh_store() as store:
            await store.upsert_entities(TENANT, list(entities.values()))
            await store.upsert_relationships(TENANT, edges)
            found = await store.neighbours(
                TENANT,
                start,
                depth=depth,
                direction=direction,
                relationship_types=relationship_types,
            )
        _expect(
            _depths(found),
            expected,
            f"neighbours(depth={depth}, direction={direction!r}, "
            f"relationship_types={relationship_types!r}) against breadth-first search",
        )
        _expect(
            [neighbour.entity for neighbour in found],
            [entities[entity_id] for _, entity_id in expected],
            "the entities the neighbours carry",
        )

    @settings(compliance_settings())
    @given(
        tenants=gen.tenant_pairs(),
        pool=_pool(4),
        data=st.data(),
    )
    async def test_tenants_never_see_each_others_rows(
        self,
        tenants: tuple[TenantId, TenantId],
        pool: list[EntityId],
        data: st.DataObject,
    ) -> None:
        """Two tenants writing over the same ids each read back only their own rows."""
        writes = {
            tenant: data.draw(_entity_writes(pool), label=f"entities of {tenant}")
            for tenant in tenants
        }
        latest = {tenant: {e.id: e for e in writes[tenant]} for tenant in tenants}
        edges = {
            tenant: data.draw(
                st.lists(
                    gen.relationships(
                        st.sampled_from(sorted(latest[tenant], key=id_text)),
                        st.sampled_from(sorted(latest[tenant], key=id_text)),
                        attributes=st.just({}),
                    ),
                    max_size=3,
                ),
                label=f"edges of {tenant}",
            )
            for tenant in tenants
        }
        async with self.fresh_store() as store:
            for tenant in tenants:
                await store.upsert_entities(tenant, writes[tenant])
                await store.upsert_relationships(tenant, edges[tenant])
            for tenant in tenants:
                own = latest[tenant]
                _expect(
                    await store.find_entities(tenant),
                    _by_id(own.values()),
                    f"find_entities({tenant!r}) with another tenant writing the same ids",
                )
                _expect(
                    await store.find_by_blocking_keys(tenant, gen.BLOCKING_KEY_VOCABULARY),
                    {
                        key: found
                        for key in gen.BLOCKING_KEY_VOCABULARY
                        if (found := _by_id(e for e in own.values() if key in e.blocking_keys))
                    },
                    f"find_by_blocking_keys({tenant!r}, every key)",
                )
                _expect(
                    await store.get_relationships_for(tenant, pool),
                    _edges_by_id({edge.id: edge for edge in edges[tenant]}.values()),
                    f"get_relationships_for({tenant!r}, every id)",
                )
            first, second = tenants
            _expect(
                await store.delete_by_tenant(first),
                len(latest[first]),
                f"delete_by_tenant({first!r}) count",
            )
            _expect(
                await store.find_entities(second),
                _by_id(latest[second].values()),
                f"find_entities({second!r}) after deleting {first!r}",
            )

    @settings(compliance_settings())
    @given(pool=_pool(6), data=st.data())
    async def test_delete_entities_leaves_exactly_what_did_not_hang_on_them(
        self, pool: list[EntityId], data: st.DataObject
    ) -> None:
        """On any small graph, deleting any ids leaves what the port's prose says, per read.

        The graph has entities, keys, edges (self-loops included) and aliases; the deleted
        ids mix entities, alias ids, an unknown id and duplicates. OTHER holds the same graph
        and must not change.
        """
        entities = data.draw(
            st.lists(
                gen.entities(ids=st.sampled_from(pool), attributes=gen.small_attributes()),
                min_size=1,
                max_size=len(pool),
                unique_by=lambda entity: entity.id,
            ),
            label="entities",
        )
        live = sorted((entity.id for entity in entities), key=id_text)
        edges = data.draw(
            st.lists(
                gen.relationships(
                    st.sampled_from(live), st.sampled_from(live), attributes=st.just({})
                ),
                max_size=8,
                unique_by=lambda edge: edge.id,
            ),
            label="edges",
        )
        aliases = [
            _alias(alias_id, canonical)
            for alias_id in pool
            if alias_id not in live
            and (canonical := data.draw(st.none() | st.sampled_from(live), label="canonical"))
        ]
        unknown = data.draw(gen.entity_ids().filter(lambda i: i not in pool), label="unknown")
        deleted = data.draw(st.lists(st.sampled_from([*pool, unknown]), max_size=8), label="ids")
        # The oracle, from the prose: live entities among the ids go, with what hangs on them.
        gone = set(deleted) & set(live)
        kept = {entity.id: entity for entity in entities if entity.id not in gone}
        everyone = [*pool, unknown]
        async with self.fresh_store() as store:
            for tenant in (TENANT, OTHER):
                await store.upsert_entities(tenant, entities)
                await store.upsert_relationships(tenant, edges)
                for alias in aliases:
                    await store.upsert_alias(tenant, alias)
            other_before = await self._graph_reads(store, OTHER, everyone)
            _expect(
                await store.delete_entities(TENANT, deleted),
                len(gone),
                f"delete_entities count for {len(deleted)} ids of which {len(gone)} are live",
            )
            _expect(
                await self._graph_reads(store, TENANT, everyone),
                {
                    "find_entities": _by_id(kept.values()),
                    "find_by_blocking_keys": {
                        key: found
                        for key in gen.BLOCKING_KEY_VOCABULARY
                        if (found := _by_id(e for e in kept.values() if key in e.blocking_keys))
                    },
                    "get_relationships_for": _edges_by_id(
                        edge for edge in edges if edge.subject_id in kept and edge.object_id in kept
                    ),
                    "resolve_entity_ids": {
                        **{entity_id: entity_id for entity_id in kept},
                        **{a.alias_id: a.canonical_id for a in aliases if a.canonical_id in kept},
                    },
                },
                "every read of TENANT after delete_entities, against the oracle",
            )
            _expect(
                await self._graph_reads(store, OTHER, everyone),
                other_before,
                "every read of OTHER, which holds the same graph, after TENANT's delete",
            )
            _expect(await store.delete_entities(TENANT, deleted), 0, "the same delete again")

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


GraphStoreCompliance.SUITE = GraphStoreCompliance
