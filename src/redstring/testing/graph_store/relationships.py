"""The ``RelationshipStore`` cases: typed edges between two entities of one tenant.

Composed into :class:`redstring.testing.graph_store.GraphStoreCompliance`; the rules are
the ones ``redstring.ports.graph_store.RelationshipStore`` states.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId
from redstring.domain.models import Provenance
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import GraphStore
from redstring.testing import strategies as gen
from redstring.testing.graph_store._support import (
    OTHER,
    STRANGER,
    TENANT,
    GraphCases,
    _deface_relationship,
    _depths,
    _edge,
    _edges_by_id,
    _entity,
    _entity_id,
    _expect,
    _expect_missing,
    _pool,
    _raises,
    _relationship_id,
    _relationship_ids_in_text_order,
)
from redstring.testing.settings import compliance_settings


class RelationshipStoreCases(GraphCases):
    """What every ``RelationshipStore`` does, checked through a whole GraphStore."""

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

    async def test_evidence_naming_a_chunk_twice_reads_back_naming_it_once(
        self, store: GraphStore
    ) -> None:
        """A relationship's evidence names each chunk once, first position kept (ADR 0028),
        from every read, also when the repeat skipped validation (``model_copy(update=...)``);
        a re-upsert replaces it and deleting either end removes the edge. On failure check
        that provenance is stored (or read back) as validation would hold it.
        """
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        first, second = ChunkId("c-2"), ChunkId("c-1")
        evidence = Provenance(source_id=SourceId("memo.md"), chunk_ids=(first, second))
        held = _edge(ada.id, grace.id).model_copy(update={"provenance": evidence})
        repeated = evidence.model_copy(update={"chunk_ids": (first, second, first, second)})
        smuggled = held.model_copy(update={"provenance": repeated})
        for _ in range(2):
            await store.upsert_relationship(TENANT, smuggled)
            await store.upsert_relationships(TENANT, [smuggled, smuggled])
            _expect(await store.get_relationship(TENANT, held.id), held, "get_relationship")
            _expect(
                await store.get_relationships_for(TENANT, [ada.id, grace.id, ada.id]),
                [held],
                "get_relationships_for, an endpoint asked twice",
            )
        again = held.model_copy(update={"provenance": Provenance(chunk_ids=(second, second))})
        await store.upsert_relationship(TENANT, again)
        _expect(
            await store.get_relationship(TENANT, held.id),
            held.model_copy(update={"provenance": Provenance(chunk_ids=(second,))}),
            "get_relationship after a re-upsert with other evidence",
        )
        _expect(await store.delete_entities(TENANT, [grace.id]), 1, "deleting the object")
        _expect(await store.get_relationship(TENANT, held.id), None, "the edge after it")
        _expect(await store.get_relationships_for(TENANT, [ada.id]), [], "ada's edges after it")

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

    async def test_get_relationships_among_keeps_edges_with_both_ends_given(
        self, store: GraphStore
    ) -> None:
        """``among=True``: only the edges whose two ends are both among the ids, each once, by
        id text; a self-loop of a given id counts, an edge leaving the set does not (ADR 0039)."""
        a, b, c, d = (_entity(name) for name in ("A", "B", "C", "D"))
        await store.upsert_entities(TENANT, [a, b, c, d])
        rids = _relationship_ids_in_text_order(6)
        a_b = _edge(a.id, b.id, relationship_id=rids[3])
        b_a = _edge(b.id, a.id, relationship_id=rids[0])
        b_c = _edge(b.id, c.id, relationship_id=rids[1])
        d_d = _edge(d.id, d.id, relationship_id=rids[5])
        c_a = _edge(c.id, a.id, relationship_id=rids[2])
        a_a = _edge(a.id, a.id, relationship_id=rids[4])
        await store.upsert_relationships(TENANT, [d_d, a_b, b_a, c_a, b_c, a_a])
        _expect(
            await store.get_relationships_for(TENANT, [a.id, b.id], among=True),
            [b_a, a_b, a_a],
            "get_relationships_for([a, b], among=True): b->c and c->a leave the set",
        )
        _expect(
            await store.get_relationships_for(TENANT, [c.id], among=True),
            [],
            "get_relationships_for([c], among=True): no edge has both ends at c",
        )
        _expect(
            await store.get_relationships_for(TENANT, [a.id, b.id, c.id, d.id], among=True),
            [b_a, b_c, c_a, a_b, a_a, d_d],
            "get_relationships_for(every id, among=True) is every edge",
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

    # -- tenancy: every read -------------------------------------------------------------------

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

    # -- copies: every read hands out objects the caller may change ----------------------------

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

    # -- copies: every write keeps nothing of the caller's -------------------------------------

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

    # -- properties ----------------------------------------------------------------------------

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

    async def test_upsert_relationships_checks_every_element_of_the_batch(
        self, store: GraphStore
    ) -> None:
        """A dangling edge fails its batch even when a later element replaces its id."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        absent = _entity_id()
        dangling = _edge(ada.id, absent)
        replacement = _edge(ada.id, ada.id, relationship_id=dangling.id)
        when = "upsert_relationships([R: ada->absent, R: ada->ada])"
        with _raises(MissingEntityError, when) as caught:
            await store.upsert_relationships(TENANT, [dangling, replacement])
        assert caught.error is not None
        _expect(caught.error.entity_ids, [absent], f"{when}: the absent endpoints listed")
        _expect(await store.get_relationship(TENANT, dangling.id), None, f"{when}: the edge id")
