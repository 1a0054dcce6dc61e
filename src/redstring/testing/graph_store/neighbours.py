"""The ``GraphTraversal`` cases: breadth-first neighbours by direction, type and depth.

Composed into :class:`redstring.testing.graph_store.GraphStoreCompliance`; the rules are
the ones ``redstring.ports.graph_store.GraphTraversal`` states.
"""

from __future__ import annotations

from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, id_text
from redstring.domain.models import Neighbour, Relationship
from redstring.ports.graph_store import MAX_DEPTH, Direction, GraphStore
from redstring.testing.graph_store._support import (
    _TYPE_FILTERS,
    DIRECTIONS,
    OTHER,
    STRANGER,
    TENANT,
    GraphCases,
    _breadth_first,
    _deface_entity,
    _depth_then_text,
    _depths,
    _edge,
    _entity,
    _entity_id,
    _expect,
    _graphs,
    _ids_in_text_order,
    _raises,
    _snapshot,
)
from redstring.testing.settings import compliance_settings


class GraphTraversalCases(GraphCases):
    """What every ``GraphTraversal`` does, checked through a whole GraphStore."""

    # -- neighbours ----------------------------------------------------------------------------

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

    async def test_neighbours_limit_keeps_the_first_in_order(self, store: GraphStore) -> None:
        """``limit`` keeps the first neighbours by (depth, id text), across depths; 0 keeps
        none, a limit past the count keeps all, a negative one raises (ADR 0039)."""
        ids = _ids_in_text_order(4)
        deep, low, high, start = (_entity(f"E{n}", entity_id=ids[n]) for n in range(4))
        edges = [_edge(start.id, high.id), _edge(start.id, low.id), _edge(high.id, deep.id)]
        await self._store_graph(store, [start, high, low, deep], edges)
        every = [(1, low.id), (1, high.id), (2, deep.id)]
        for limit, expected in ((0, []), (1, every[:1]), (2, every[:2]), (3, every), (9, every)):
            _expect(
                _depths(await store.neighbours(TENANT, start.id, depth=2, limit=limit)),
                expected,
                f"neighbours(depth=2, limit={limit})",
            )
        try:
            await store.neighbours(TENANT, start.id, limit=-1)
        except InvalidArgumentError:
            pass
        else:
            raise AssertionError("neighbours(limit=-1) returned instead of raising")

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

    # -- tenancy: every read -------------------------------------------------------------------

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

    # -- properties ----------------------------------------------------------------------------

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

    async def test_neighbours_deeper_than_the_maximum_raise(self, store: GraphStore) -> None:
        """``MAX_DEPTH`` walks a cycle both ways to its end; one more is an argument error."""
        ada, grace, alan = _entity("Ada"), _entity("Grace"), _entity("Alan")
        await self._store_graph(
            store,
            [ada, grace, alan],
            [_edge(ada.id, grace.id), _edge(grace.id, alan.id), _edge(alan.id, ada.id)],
        )
        _expect(
            _depths(await store.neighbours(TENANT, ada.id, depth=MAX_DEPTH)),
            sorted([(1, grace.id), (1, alan.id)], key=lambda item: id_text(item[1])),
            "neighbours(depth=MAX_DEPTH) around a three-entity cycle",
        )
        for depth in (MAX_DEPTH + 1, 2**31):
            with _raises(InvalidArgumentError, f"neighbours(depth={depth})"):
                await store.neighbours(TENANT, ada.id, depth=depth)
