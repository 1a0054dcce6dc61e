"""InMemoryGraphStore: the compliance suite unchanged, plus what the suite cannot see."""

from __future__ import annotations

import pytest

from redstring.domain.ids import TenantId
from redstring.domain.models import Alias, Entity, Relationship
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ports.graph_store import GraphStore
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.strategies import random_entity_id
from tests.index_checks import IndexDisagreementError, checking_indexes
from tests.unit.graph.test_suite_catches_mutants import (
    EdgeIndexIgnoresDeletes,
    UnindexesEachListedKey,
)

TENANT = TenantId("tenant-a")


class TestMemoryStore(GraphStoreCompliance):
    """The suite unchanged, on a store that checks its indexes and rows against the port's
    rules after every call (``tests.index_checks``), property cases included."""

    async def new_store(self) -> GraphStore:
        return checking_indexes(InMemoryGraphStore)()


def _entity(name: str) -> Entity:
    return Entity(
        id=random_entity_id(),
        type="Person",
        name=name,
        attributes={"tags": ["a"]},
        blocking_keys=("k:shared",),
    )


class TestMemoryStoreSpecifics:
    """Behaviour of this adapter that the port leaves to each adapter."""

    async def test_two_stores_share_nothing(self) -> None:
        """Writes to one store are invisible in another: ``new_store()`` relies on it."""
        first, second = InMemoryGraphStore(), InMemoryGraphStore()
        ada, grace = _entity("Ada"), _entity("Grace")
        await first.upsert_entities(TENANT, [ada, grace])
        alias_id = random_entity_id()
        await first.upsert_alias(TENANT, Alias(alias_id=alias_id, canonical_id=ada.id))
        edge = Relationship(
            id=random_entity_id(), type="KNOWS", subject_id=ada.id, object_id=grace.id
        )
        await first.upsert_relationship(TENANT, edge)
        assert await second.find_entities(TENANT) == []
        assert await second.find_by_blocking_key(TENANT, "k:shared") == []
        assert await second.resolve_entity_ids(TENANT, [ada.id, alias_id]) == {}
        assert await second.get_relationship(TENANT, edge.id) is None
        assert await second.delete_by_tenant(TENANT) == 0
        assert await first.find_entities(TENANT) != []

    async def test_reads_and_writes_copy_in_both_directions(self) -> None:
        """Neither the caller's object nor the stored one is ever handed over."""
        store = InMemoryGraphStore()
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        first = await store.get_entity(TENANT, ada.id)
        second = await store.get_entity(TENANT, ada.id)
        assert first == second == ada
        assert first is not ada
        assert first is not second
        assert first is not None
        assert second is not None
        assert first.attributes is not second.attributes
        assert first.attributes is not ada.attributes
        [listed] = await store.find_by_blocking_key(TENANT, "k:shared")
        assert listed is not first
        assert listed.attributes is not first.attributes

    async def test_the_store_still_works_after_its_own_block(self) -> None:
        """Closing releases nothing, so the store and its rows outlive ``async with``."""
        async with InMemoryGraphStore() as store:
            ada = _entity("Ada")
            await store.upsert_entity(TENANT, ada)
        assert await store.get_entity(TENANT, ada.id) == ada
        await store.close()
        grace = _entity("Grace")
        await store.upsert_entity(TENANT, grace)
        assert await store.find_entities(TENANT) == sorted([ada, grace], key=lambda e: str(e.id))


class _RecordingSuite(GraphStoreCompliance):
    """The suite with a dispose that records, to watch the harness call it."""

    def __init__(self) -> None:
        self.disposed: list[GraphStore] = []

    async def new_store(self) -> GraphStore:
        return InMemoryGraphStore()

    async def dispose(self, store: GraphStore) -> None:
        self.disposed.append(store)


class TestComplianceHarness:
    """``fresh_store`` disposes of every store it built; that is the suite's, not an adapter's."""

    async def test_dispose_runs_when_the_body_completes(self) -> None:
        """A body that returns normally is followed by exactly one dispose of its store."""
        suite = _RecordingSuite()
        async with suite.fresh_store() as store:
            assert suite.disposed == []
        assert suite.disposed == [store]

    async def test_dispose_runs_when_the_body_raises(self) -> None:
        """A body that raises still disposes its store, and the exception reaches the caller."""
        suite = _RecordingSuite()
        built: list[GraphStore] = []

        async def failing_body() -> None:
            async with suite.fresh_store() as store:
                built.append(store)
                raise RuntimeError("body failed")

        with pytest.raises(RuntimeError, match="body failed"):
            await failing_body()
        assert len(built) == 1
        assert suite.disposed == built

    async def test_every_fresh_store_is_a_new_one(self) -> None:
        """Two ``fresh_store`` blocks get two distinct stores, each disposed once."""
        suite = _RecordingSuite()
        async with suite.fresh_store() as first:
            pass
        async with suite.fresh_store() as second:
            pass
        assert first is not second
        assert suite.disposed == [first, second]

    async def test_the_default_dispose_is_a_no_op(self) -> None:
        """The base class's dispose leaves the store open and its rows in place."""
        suite = TestMemoryStore()
        store = await suite.new_store()
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        assert await GraphStoreCompliance.dispose(suite, store) is None
        assert await store.get_entity(TENANT, ada.id) == ada

    def test_an_overridden_suite_test_is_reported(self) -> None:
        """Relaxing one test in a subclass fails the guard, which names the test."""

        class Relaxed(TestMemoryStore):
            async def test_upsert_relationships_is_all_or_nothing(self, store: GraphStore) -> None:
                pass

        with pytest.raises(AssertionError, match="test_upsert_relationships_is_all_or_nothing"):
            Relaxed().test_the_suite_is_run_unchanged()
        TestMemoryStore().test_the_suite_is_run_unchanged()

    async def test_a_suite_without_new_store_says_what_to_implement(self) -> None:
        """Forgetting ``new_store`` fails loudly, naming the method, rather than testing nothing."""

        class Forgetful(GraphStoreCompliance):
            pass

        async def enter() -> None:
            async with Forgetful().fresh_store():
                pass

        with pytest.raises(NotImplementedError, match="new_store"):
            await enter()


class TestTheIndexCheck:
    """``index_problems`` (run after every call of the suite above) sees what it is for."""

    async def test_it_fails_a_key_listed_twice_at_the_write(self) -> None:
        """The store before ADR 0028 kept a repeated key and raised ``KeyError`` at the next
        write; the check fails the write that stored it."""
        store = checking_indexes(UnindexesEachListedKey)()
        ada = _entity("Ada").model_copy(update={"blocking_keys": ("k:a", "k:a")})
        with pytest.raises(IndexDisagreementError, match="holds keys"):
            await store.upsert_entity(TENANT, ada)

    async def test_it_names_an_index_a_read_filter_hides(self) -> None:
        """An edge deleted from the rows but not from the endpoint indexes reads correctly
        (the mutant filters its reads), so only the check sees it, at the delete."""
        store = checking_indexes(EdgeIndexIgnoresDeletes)()
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        edge = Relationship(
            id=random_entity_id(), type="KNOWS", subject_id=ada.id, object_id=grace.id
        )
        await store.upsert_relationship(TENANT, edge)
        with pytest.raises(IndexDisagreementError, match=r"after delete_relationship.*outgoing"):
            await store.delete_relationship(TENANT, edge.id)

    async def test_the_intact_store_passes_the_same_calls(self) -> None:
        """The control: the same calls on the unbroken store raise nothing."""
        store = checking_indexes(InMemoryGraphStore)()
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entity(TENANT, ada.model_copy(update={"blocking_keys": ("k:a",) * 2}))
        await store.upsert_entities(TENANT, [ada, grace])
        edge = Relationship(
            id=random_entity_id(), type="KNOWS", subject_id=ada.id, object_id=grace.id
        )
        await store.upsert_relationship(TENANT, edge)
        assert await store.delete_relationship(TENANT, edge.id)
        assert store.index_problems() == []
