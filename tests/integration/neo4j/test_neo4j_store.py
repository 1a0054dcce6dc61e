"""Neo4jGraphStore against a real Neo4j 5 that ``scripts/test`` starts.

``scripts/test`` runs ``infra/neo4j-launcher`` (Neo4j Community, embedded, Bolt on a free
loopback port, auth disabled) and exports ``REDSTRING_TEST_NEO4J_URI``. The driver is
function-scoped because the async driver belongs to the event loop that created it; the
schema is created once per session.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from neo4j import AsyncDriver, AsyncGraphDatabase
from neo4j.exceptions import DriverError, Neo4jError

from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.models import Alias, Entity, Relationship
from redstring.graph.adapters.neo4j import DEFAULT_DATABASE, Neo4jGraphStore
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import GraphStore
from redstring.testing import GraphStoreCompliance
from tests.backends import backend_unavailable

pytestmark = pytest.mark.integration

URI_VARIABLE = "REDSTRING_TEST_NEO4J_URI"
TENANT = TenantId("tenant-a")

_schema_ready = False
_problem: str | None = None  # what the first failed probe found, so later tests skip at once


async def _probe(driver: AsyncDriver) -> str | None:
    """``None`` when the server runs a query; a TCP connect would prove much less.

    An auto-commit query, because ``execute_query`` retries an unreachable server for
    half a minute before giving up.
    """
    try:
        async with driver.session(database=DEFAULT_DATABASE) as session:
            result = await session.run("RETURN 1 AS one")
            record = await result.single()
    except (OSError, DriverError, Neo4jError) as error:
        return f"cannot run RETURN 1 ({type(error).__name__}: {error})"
    if record is None or record["one"] != 1:
        return f"RETURN 1 answered {record!r}"
    return None


async def _wipe(driver: AsyncDriver) -> None:
    """Delete every node and edge: a test affordance, deliberately not an adapter method."""
    await driver.execute_query("MATCH (n) DETACH DELETE n", database_=DEFAULT_DATABASE)


async def _count(driver: AsyncDriver, query: str, **parameters: Any) -> int:
    result = await driver.execute_query(query, parameters, database_=DEFAULT_DATABASE)
    return int(result.records[0][0])


@pytest.fixture
async def neo4j_driver() -> AsyncIterator[AsyncDriver]:
    """A driver for this test only, proven to serve, over a database with the schema."""
    global _schema_ready, _problem
    uri = os.environ.get(URI_VARIABLE, "").strip()
    if not uri:
        backend_unavailable("Neo4j", f"{URI_VARIABLE} is not set")
    if _problem is not None:
        backend_unavailable("Neo4j", _problem)
    driver = AsyncGraphDatabase.driver(uri, auth=None)
    try:
        problem = await _probe(driver)
        if problem is not None:
            _problem = f"at {URI_VARIABLE}={uri}: {problem}"
            backend_unavailable("Neo4j", _problem)
        if not _schema_ready:
            await Neo4jGraphStore(driver).ensure_schema()
            _schema_ready = True
        yield driver
    finally:
        await driver.close()


@pytest.fixture
async def store(neo4j_driver: AsyncDriver) -> Neo4jGraphStore:
    """An empty store over the shared driver."""
    await _wipe(neo4j_driver)
    return Neo4jGraphStore(neo4j_driver)


def _entity(name: str = "Ada Lovelace", **fields: Any) -> Entity:
    return Entity(id=EntityId(uuid.uuid4()), type="Person", name=name, **fields)


def _edge(subject: Entity, obj: Entity, kind: str = "KNOWS") -> Relationship:
    return Relationship(
        id=RelationshipId(uuid.uuid4()), type=kind, subject_id=subject.id, object_id=obj.id
    )


class _RecordingDriver:
    """Forwards ``execute_query`` to a real driver and records each query text it was sent."""

    def __init__(self, driver: AsyncDriver) -> None:
        self.driver = driver
        self.queries: list[str] = []

    async def execute_query(self, query: str, *args: Any, **kwargs: Any) -> Any:
        self.queries.append(query)
        return await self.driver.execute_query(query, *args, **kwargs)


async def _realistic_statistics(driver: AsyncDriver) -> None:
    """Give the cost planner a populated graph to plan for, and forget cached plans.

    Plans are chosen from label counts: over an empty database (what the suite's wipes leave)
    a cartesian or sort-based plan is as cheap as the indexed one, and which one wins then
    depends on what ran before. The plan tests are about a tenant with data, so make one.
    """
    store = Neo4jGraphStore(driver)
    tenant = TenantId("plan-statistics")
    people = [_entity(f"person {n}") for n in range(400)]
    await store.upsert_entities(tenant, people)
    await store.upsert_relationships(tenant, [_edge(a, b) for a, b in itertools.pairwise(people)])
    # Resample the indexes and wait, so the planner sees these counts rather than stale ones
    # (one CI run planned a shortest path into every node); it also clears cached plans.
    await driver.execute_query("CALL db.prepareForReplanning()", database_=DEFAULT_DATABASE)
    await driver.execute_query("CALL db.clearQueryCaches()", database_=DEFAULT_DATABASE)


def _operators(plan: dict[str, Any]) -> list[str]:
    found = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        found += _operators(child)
    return found


class TestNeo4jStore(GraphStoreCompliance):
    """The compliance suite unchanged: one store per example over this test's driver."""

    @pytest.fixture(autouse=True)
    def _driver(self, neo4j_driver: AsyncDriver) -> None:
        self._shared_driver = neo4j_driver

    async def new_store(self) -> GraphStore:
        await _wipe(self._shared_driver)
        return Neo4jGraphStore(self._shared_driver)

    async def dispose(self, store: GraphStore) -> None:
        assert isinstance(store, Neo4jGraphStore)
        await store.close()


class TestNeo4jStoreSpecifics:
    """What the port cannot say: schema, ownership, encoding, atomicity, storage, query plans."""

    async def test_ensure_schema_creates_composite_uniqueness_constraints(
        self, neo4j_driver: AsyncDriver
    ) -> None:
        """(tenant_id, id) is unique for entities, aliases and edges, (tenant_id, key) for keys."""
        store = Neo4jGraphStore(neo4j_driver)
        await store.ensure_schema()  # a second run is a no-op, not an error
        result = await neo4j_driver.execute_query(
            "SHOW CONSTRAINTS YIELD type, entityType, labelsOrTypes, properties",
            database_=DEFAULT_DATABASE,
        )
        found = {
            (r["type"], r["entityType"], tuple(r["labelsOrTypes"]), tuple(r["properties"]))
            for r in result.records
        }
        assert {
            ("UNIQUENESS", "NODE", ("Entity",), ("tenant_id", "id")),
            ("UNIQUENESS", "NODE", ("Alias",), ("tenant_id", "id")),
            ("UNIQUENESS", "NODE", ("BlockingKey",), ("tenant_id", "key")),
            ("RELATIONSHIP_UNIQUENESS", "RELATIONSHIP", ("RELATES",), ("tenant_id", "id")),
        } <= found

    async def test_ensure_schema_creates_the_entity_type_index(
        self, neo4j_driver: AsyncDriver
    ) -> None:
        """find_entities(entity_type=...) has a (tenant_id, type, id) index to read in order."""
        result = await neo4j_driver.execute_query(
            "SHOW INDEXES YIELD name, labelsOrTypes, properties, state",
            database_=DEFAULT_DATABASE,
        )
        by_name = {r["name"]: r for r in result.records}
        index = by_name["redstring_entity_type"]
        assert (index["labelsOrTypes"], index["properties"]) == (
            ["Entity"],
            ["tenant_id", "type", "id"],
        )

    async def test_the_constraint_refuses_a_duplicate_entity_written_behind_the_store(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """The constraint, not only the adapter's MERGE, keeps one node per (tenant, id)."""
        entity = _entity()
        await store.upsert_entity(TENANT, entity)
        with pytest.raises(Neo4jError, match="already exists"):
            await neo4j_driver.execute_query(
                "CREATE (:Entity {tenant_id: $t, id: $id})",
                t=TENANT,
                id=str(entity.id),
                database_=DEFAULT_DATABASE,
            )

    async def test_close_does_not_close_a_driver_it_does_not_own(
        self, neo4j_driver: AsyncDriver
    ) -> None:
        """Closing (twice, or by leaving a block) leaves an injected driver usable."""
        store = Neo4jGraphStore(neo4j_driver)
        await store.close()
        await store.close()
        async with Neo4jGraphStore(neo4j_driver) as bound:
            await bound.get_entity(TENANT, EntityId(uuid.uuid4()))
        assert await _count(neo4j_driver, "RETURN 1") == 1

    async def test_connect_owns_its_driver_and_the_block_closes_it(
        self, neo4j_driver: AsyncDriver
    ) -> None:
        """connect() hands back a store that closes its driver on exit, and never suppresses."""
        uri = os.environ[URI_VARIABLE]
        store = await Neo4jGraphStore.connect(uri, None)
        bound: Neo4jGraphStore | None = None

        async def body() -> None:
            nonlocal bound
            async with store as bound:
                assert await bound.get_entity(TENANT, EntityId(uuid.uuid4())) is None
                raise RuntimeError("body failed")

        with pytest.raises(RuntimeError, match="body failed"):
            await body()
        assert bound is store
        await store.close()  # a second close is safe
        with pytest.raises((DriverError, RuntimeError)):
            await store.get_entity(TENANT, EntityId(uuid.uuid4()))

    async def test_connect_to_nothing_raises_the_driver_error(self) -> None:
        """An unreachable server fails at connect(), not at the first query."""
        with pytest.raises((DriverError, OSError)):
            await Neo4jGraphStore.connect("bolt://127.0.0.1:9", None)

    async def test_non_ascii_text_round_trips(self, store: Neo4jGraphStore) -> None:
        """Names, attribute keys and values, blocking keys and alias names keep every character."""
        name = "Zürich 東京 naïve café — Ωμέγα 🚀"
        entity = _entity(
            name,
            attributes={"città": "Milano", "名前": ["é", {"ключ": "значение"}], "n": 1.5},
            blocking_keys=("Place|n:zürich", "Place|n:東京"),
        )
        other = _entity("Ünal")
        await store.upsert_entities(TENANT, [entity, other])
        edge = _edge(entity, other).model_copy(update={"attributes": {"über": "ñ"}})
        await store.upsert_relationship(TENANT, edge)
        await store.upsert_alias(
            TENANT, Alias(alias_id=EntityId(uuid.uuid4()), canonical_id=entity.id, name="Zurich")
        )

        assert await store.get_entity(TENANT, entity.id) == entity
        assert await store.find_by_blocking_key(TENANT, "Place|n:東京") == [entity]
        assert await store.get_relationship(TENANT, edge.id) == edge
        assert [a.name for a in await store.find_aliases(TENANT, entity.id)] == ["Zurich"]

    async def test_a_failing_relationship_batch_leaves_nothing_behind(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """One dangling endpoint at the end of a batch: no edge at all in the database."""
        a, b, c = _entity("a"), _entity("b"), _entity("c")
        await store.upsert_entities(TENANT, [a, b, c])
        ghost = EntityId(uuid.uuid4())
        batch = [_edge(a, b), _edge(b, c), _edge(c, a)]
        dangling = batch[0].model_copy(update={"id": uuid.uuid4(), "object_id": ghost})
        with pytest.raises(MissingEntityError) as raised:
            await store.upsert_relationships(TENANT, [*batch, dangling])
        assert raised.value.entity_ids == [ghost]
        assert str(ghost) in str(raised.value)
        assert await _count(neo4j_driver, "MATCH ()-[r]->() RETURN count(r)") == 0

    async def test_an_endpoint_of_another_tenant_is_missing(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """An edge may not join one tenant's entity to another tenant's entity of the same id."""
        a, b = _entity("a"), _entity("b")
        await store.upsert_entity(TENANT, a)
        await store.upsert_entity(TenantId("tenant-b"), b)
        with pytest.raises(MissingEntityError):
            await store.upsert_relationship(TENANT, _edge(a, b))
        assert await _count(neo4j_driver, "MATCH ()-[r:RELATES]->() RETURN count(r)") == 0

    async def test_a_failing_entity_batch_leaves_nothing_behind(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """A batch holding one alias id writes no entity and no blocking key."""
        canonical = _entity("canonical")
        await store.upsert_entity(TENANT, canonical)
        alias_id = EntityId(uuid.uuid4())
        await store.upsert_alias(TENANT, Alias(alias_id=alias_id, canonical_id=canonical.id))
        fresh = _entity("fresh", blocking_keys=("Person|n:fresh",))
        clash = _entity("clash").model_copy(update={"id": alias_id})
        with pytest.raises(ValueError, match=str(alias_id)):
            await store.upsert_entities(TENANT, [fresh, clash])
        assert await _count(neo4j_driver, "MATCH (e:Entity) RETURN count(e)") == 1
        assert await _count(neo4j_driver, "MATCH (k:BlockingKey) RETURN count(k)") == 0

    async def test_blocking_keys_are_nodes_linked_to_their_entities(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """Each key is one node per tenant, and re-upserting an entity re-links it."""
        first = _entity("Jon Smith", blocking_keys=("k:smith", "k:jon"))
        second = _entity("John Smith", blocking_keys=("k:smith",))
        await store.upsert_entities(TENANT, [first, second])
        links = (
            "MATCH (k:BlockingKey {tenant_id: $t, key: $key})-[:INDEXES]->(e:Entity) "
            "RETURN count(e)"
        )
        assert await _count(neo4j_driver, links, t=TENANT, key="k:smith") == 2
        assert await _count(neo4j_driver, "MATCH (k:BlockingKey) RETURN count(k)") == 2

        await store.upsert_entity(TENANT, first.model_copy(update={"blocking_keys": ("k:j",)}))
        assert await _count(neo4j_driver, links, t=TENANT, key="k:smith") == 1
        assert await _count(neo4j_driver, links, t=TENANT, key="k:jon") == 0
        assert await _count(neo4j_driver, links, t=TENANT, key="k:j") == 1

    async def test_user_types_never_become_labels_or_relationship_types(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """Types are properties: the schema's labels and edge types are the store's own."""
        a = _entity("a")
        b = Entity(id=EntityId(uuid.uuid4()), type="Organisation", name="b")
        await store.upsert_entities(TENANT, [a, b])
        await store.upsert_relationship(TENANT, _edge(a, b, "WORKS_FOR"))
        await store.upsert_alias(TENANT, Alias(alias_id=EntityId(uuid.uuid4()), canonical_id=a.id))
        labels = await neo4j_driver.execute_query(
            "MATCH (n) UNWIND labels(n) AS label RETURN collect(DISTINCT label) AS labels",
            database_=DEFAULT_DATABASE,
        )
        kinds = await neo4j_driver.execute_query(
            "MATCH ()-[r]->() RETURN collect(DISTINCT type(r)) AS kinds",
            database_=DEFAULT_DATABASE,
        )
        assert sorted(labels.records[0]["labels"]) == ["Alias", "Entity"]
        assert sorted(kinds.records[0]["kinds"]) == ["ALIAS_OF", "RELATES"]

    async def test_a_relationship_type_filter_is_a_parameter_not_query_text(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """A Cypher fragment as a type filter matches nothing and changes nothing."""
        a, b = _entity("a"), _entity("b")
        await store.upsert_entities(TENANT, [a, b])
        await store.upsert_relationship(TENANT, _edge(a, b))
        hostile = ["KNOWS]-() DETACH DELETE s //", "KNOWS` | x"]
        assert await store.neighbours(TENANT, a.id, relationship_types=hostile) == []
        assert await _count(neo4j_driver, "MATCH (e:Entity) RETURN count(e)") == 2

    async def test_moving_an_edge_to_new_endpoints_keeps_one_edge(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """Neo4j cannot re-point an edge; the upsert replaces it rather than adding a second."""
        a, b, c = _entity("a"), _entity("b"), _entity("c")
        await store.upsert_entities(TENANT, [a, b, c])
        edge = _edge(a, b)
        await store.upsert_relationship(TENANT, edge)
        moved = edge.model_copy(update={"object_id": c.id})
        await store.upsert_relationship(TENANT, moved)
        assert await _count(neo4j_driver, "MATCH ()-[r:RELATES]->() RETURN count(r)") == 1
        assert await store.get_relationship(TENANT, edge.id) == moved

    async def test_batch_reads_and_writes_are_one_query_each(
        self, neo4j_driver: AsyncDriver
    ) -> None:
        """Consolidation's batch calls cost one round trip whatever the batch size."""
        await _wipe(neo4j_driver)
        recording = _RecordingDriver(neo4j_driver)
        store = Neo4jGraphStore(recording)  # type: ignore[arg-type]
        entities = [_entity(f"e{i}", blocking_keys=(f"k:{i % 3}",)) for i in range(6)]
        ids = [e.id for e in entities]
        calls = [
            store.upsert_entities(TENANT, entities),
            store.upsert_relationships(
                TENANT, [_edge(a, b) for a, b in itertools.pairwise(entities)]
            ),
            store.get_entities(TENANT, ids),
            store.find_by_blocking_keys(TENANT, ["k:0", "k:1", "k:2", "k:none"]),
            store.get_relationships_for(TENANT, ids),
            store.resolve_entity_ids(TENANT, ids),
            store.neighbours(TENANT, ids[0], depth=3),
            store.delete_entities(TENANT, ids[:3]),
        ]
        for call in calls:
            before = len(recording.queries)
            await call
            assert len(recording.queries) == before + 1

    async def test_neighbours_expands_breadth_first_from_the_start_entity(
        self, neo4j_driver: AsyncDriver
    ) -> None:
        """The plan seeks the start by its unique key and runs one BFS from it.

        A plan that searches a shortest path *into* every candidate node (a cartesian product
        with all entities) returns the same rows and is orders of magnitude slower at depth 2.
        """
        await _realistic_statistics(neo4j_driver)
        recording = _RecordingDriver(neo4j_driver)
        store = Neo4jGraphStore(recording)  # type: ignore[arg-type]
        for types in (None, ["KNOWS"]):
            await store.neighbours(
                TENANT, EntityId(uuid.uuid4()), depth=2, relationship_types=types
            )
        for query in recording.queries:
            explained = await neo4j_driver.execute_query(
                "EXPLAIN " + query,
                {"tenant_id": TENANT, "id": str(uuid.uuid4()), "types": ["KNOWS"]},
                database_=DEFAULT_DATABASE,
            )
            operators = _operators(explained.summary.plan)
            assert "StatefulShortestPath(All)" in operators, operators
            assert "NodeUniqueIndexSeek" in operators, operators
            assert "CartesianProduct" not in operators, operators

    async def test_find_entities_pages_in_index_order(self, neo4j_driver: AsyncDriver) -> None:
        """An index serves the order, with or without a type: no sort over a tenant's entities."""
        await _realistic_statistics(neo4j_driver)
        recording = _RecordingDriver(neo4j_driver)
        store = Neo4jGraphStore(recording)  # type: ignore[arg-type]
        await store.find_entities(TENANT, limit=10)
        await store.find_entities(TENANT, limit=10, after=EntityId(uuid.uuid4()))
        await store.find_entities(TENANT, entity_type="Person", after=EntityId(uuid.uuid4()))
        for query in recording.queries:
            explained = await neo4j_driver.execute_query(
                "EXPLAIN " + query,
                {"tenant_id": TENANT, "after": str(uuid.uuid4()), "entity_type": "P", "limit": 10},
                database_=DEFAULT_DATABASE,
            )
            operators = _operators(explained.summary.plan)
            assert any("IndexSeek" in op for op in operators), operators
            assert not {"Sort", "Top", "PartialSort", "PartialTop"} & set(operators), operators

    async def test_delete_by_tenant_removes_every_node_of_the_tenant_only(
        self, store: Neo4jGraphStore, neo4j_driver: AsyncDriver
    ) -> None:
        """Entities, aliases, keys and edges of the tenant go; the other tenant's stay."""
        other = TenantId("tenant-b")
        for tenant in (TENANT, other):
            a, b = _entity("a", blocking_keys=("k",)), _entity("b")
            await store.upsert_entities(tenant, [a, b])
            await store.upsert_relationship(tenant, _edge(a, b))
            await store.upsert_alias(
                tenant, Alias(alias_id=EntityId(uuid.uuid4()), canonical_id=a.id)
            )
        assert await store.delete_by_tenant(TENANT) == 2
        per_tenant = "MATCH (n {tenant_id: $t}) RETURN count(n)"
        assert await _count(neo4j_driver, per_tenant, t=TENANT) == 0
        assert await _count(neo4j_driver, per_tenant, t=other) == 4
        assert await _count(neo4j_driver, "MATCH ()-[r:RELATES]->() RETURN count(r)") == 1
        assert await store.delete_by_tenant(TENANT) == 0
