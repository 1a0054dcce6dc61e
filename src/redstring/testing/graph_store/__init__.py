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

from collections.abc import Awaitable, Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId, TenantId, id_text
from redstring.domain.models import Entity
from redstring.ports.graph_store import GraphStore
from redstring.testing import strategies as gen
from redstring.testing.graph_store._support import (
    OTHER,
    STRANGER,
    TENANT,
    _alias,
    _by_id,
    _edge,
    _edges_by_id,
    _entity,
    _entity_id,
    _entity_writes,
    _expect,
    _pool,
    _raises,
)
from redstring.testing.graph_store.aliases import AliasStoreCases
from redstring.testing.graph_store.blocking_keys import BlockingKeyIndexCases
from redstring.testing.graph_store.entities import EntityStoreCases
from redstring.testing.graph_store.neighbours import GraphTraversalCases
from redstring.testing.graph_store.relationships import RelationshipStoreCases
from redstring.testing.lifecycle import LifecycleCases
from redstring.testing.settings import compliance_settings


class GraphStoreCompliance(
    EntityStoreCases,
    AliasStoreCases,
    BlockingKeyIndexCases,
    RelationshipStoreCases,
    GraphTraversalCases,
    LifecycleCases[GraphStore],
):
    """The GraphStore compliance suite: every capability's cases plus the whole-store ones.

    **Every GraphStore adapter must pass this suite unchanged; it is the executable definition
    of the port.** Subclass it under a ``Test*`` name and implement ``new_store()`` returning
    an empty store that shares nothing with any store it returned before. Do not override a
    test: ``test_the_suite_is_run_unchanged`` fails when one is. Each capability Protocol of
    ``redstring.ports.graph_store`` has its cases in a module of this package (``entities``,
    ``aliases``, ``blocking_keys``, ``relationships``, ``neighbours``), the lifecycle cases
    every store suite shares are in ``redstring.testing.lifecycle``, and the cases here span
    the whole store.
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

    async def test_batch_calls_with_nothing_in_them(self, store: GraphStore) -> None:
        """Empty batches are legal: writes change nothing and reads return empty results."""
        await store.upsert_entities(TENANT, [])
        await store.upsert_relationships(TENANT, [])
        _expect(await store.find_entities(TENANT), [], "find_entities after empty batch writes")
        _expect(await store.get_entities(TENANT, []), {}, "get_entities of no ids")
        _expect(await store.find_by_blocking_keys(TENANT, []), {}, "find_by_blocking_keys([])")
        _expect(await store.resolve_entity_ids(TENANT, []), {}, "resolve_entity_ids of no ids")
        _expect(await store.get_relationships_for(TENANT, []), [], "get_relationships_for([])")

    async def test_an_id_key_or_type_given_twice_means_it_once(self, store: GraphStore) -> None:
        """A list argument is a collection (ADR 0028): an id, key or relationship type given
        twice to a read or delete answers exactly as given once, with no entity, edge or
        count doubled. On failure check reads that join or loop over the given list without
        making it distinct first.
        """
        ada = _entity("Ada", keys=("k:a", "k:b"))
        grace = _entity("Grace", keys=("k:b",))
        await store.upsert_entities(TENANT, [ada, grace])
        edge = _edge(ada.id, grace.id)
        await store.upsert_relationship(TENANT, edge)
        twice = [ada.id, grace.id, ada.id, ada.id]
        _expect(
            await store.get_entities(TENANT, twice),
            await store.get_entities(TENANT, [ada.id, grace.id]),
            "get_entities with an id given three times",
        )
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:b", "k:a", "k:b"]),
            await store.find_by_blocking_keys(TENANT, ["k:a", "k:b"]),
            "find_by_blocking_keys with a key given twice",
        )
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:b", "k:b"], limit_per_key=1),
            {"k:b": _by_id([ada, grace])[:1]},
            "find_by_blocking_keys with a key given twice and a limit",
        )
        _expect(
            await store.resolve_entity_ids(TENANT, twice),
            {ada.id: ada.id, grace.id: grace.id},
            "resolve_entity_ids with an id given three times",
        )
        _expect(await store.get_relationships_for(TENANT, twice), [edge], "get_relationships_for")
        for direction in ("out", "in", "both"):
            _expect(
                await store.neighbours(
                    TENANT, ada.id, direction=direction, relationship_types=["KNOWS", "KNOWS"]
                ),
                await store.neighbours(
                    TENANT, ada.id, direction=direction, relationship_types=["KNOWS"]
                ),
                f"neighbours({direction!r}) with a relationship type given twice",
            )
        _expect(await store.delete_entities(TENANT, twice), 2, "delete_entities counts each once")

    async def test_text_arguments_no_store_can_hold_are_refused(self, store: GraphStore) -> None:
        """A NUL or lone surrogate in a tenant, key or type raises ``InvalidArgumentError``
        from every method, read or write, rather than a driver error or an empty match."""
        entity = _entity("Ada", keys=["k:ada"])
        await store.upsert_entity(TENANT, entity)
        for bad in ("te\x00nant", "k:\ud800"):
            for call, run in _calls_with_text(store, entity, bad).items():
                with _raises(InvalidArgumentError, f"{call} with {bad!r}"):
                    await run()
        _expect(await store.find_entities(TENANT), [entity], "the tenant after refused calls")

    # -- delete_by_tenant ----------------------------------------------------------------------

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

    # -- tenancy: writes -----------------------------------------------------------------------

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


GraphStoreCompliance.SUITE = GraphStoreCompliance

__all__ = ["OTHER", "STRANGER", "TENANT", "GraphStoreCompliance"]


def _calls_with_text(
    store: GraphStore, entity: Entity, bad: str
) -> dict[str, Callable[[], Awaitable[object]]]:
    """One call per kind of text argument, each passing ``bad`` there."""
    return {
        "upsert_entity(tenant)": lambda: store.upsert_entity(TenantId(bad), entity),
        "get_entity(tenant)": lambda: store.get_entity(TenantId(bad), entity.id),
        "find_entities(entity_type)": lambda: store.find_entities(TENANT, entity_type=bad),
        "find_by_blocking_key(key)": lambda: store.find_by_blocking_key(TENANT, bad),
        "find_by_blocking_keys(keys)": lambda: store.find_by_blocking_keys(TENANT, ["k", bad]),
        "neighbours(relationship_types)": lambda: store.neighbours(
            TENANT, entity.id, relationship_types=[bad]
        ),
        "delete_by_tenant(tenant)": lambda: store.delete_by_tenant(TenantId(bad)),
    }
