"""PostgresGraphStore against a real PostgreSQL: the compliance suite, then specifics."""

from __future__ import annotations

import asyncio
import json
import uuid

import asyncpg
import pytest

from redstring.domain.ids import EntityId, RelationshipId, TenantId, id_text
from redstring.domain.models import Alias, Entity, Provenance, Relationship
from redstring.domain.portable import MAX_BLOCKING_KEY_LENGTH
from redstring.graph.adapters.postgres import PostgresGraphStore
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import GraphStore
from redstring.testing import GraphStoreCompliance
from tests.integration.postgres.plans import RecordingPool, plan_nodes

pytestmark = pytest.mark.integration

PREFIX = "rs_test_"
TENANT = TenantId("tenant-a")
OTHER_TENANT = TenantId("tenant-b")

_schema_ready = False


async def _truncate(pool: asyncpg.Pool) -> None:
    """Empty the test tables (edges and aliases first, for their foreign keys).

    A test affordance, deliberately not an adapter method.
    """
    for table in ("relationships", "aliases", "blocking_keys", "entities"):
        await pool.execute(f'DELETE FROM "public"."{PREFIX}{table}"')


@pytest.fixture
async def graph_pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """The test's pool, with the schema created once per session and the tables emptied."""
    global _schema_ready
    if not _schema_ready:
        await PostgresGraphStore(pool, prefix=PREFIX).ensure_schema()
        _schema_ready = True
    await _truncate(pool)
    return pool


class TestPostgresGraphStore(GraphStoreCompliance):
    """The shared suite, unchanged, against PostgreSQL."""

    @pytest.fixture(autouse=True)
    def _pool(self, graph_pool: asyncpg.Pool) -> None:
        self._shared_pool = graph_pool

    async def new_store(self) -> GraphStore:
        await _truncate(self._shared_pool)
        return PostgresGraphStore(self._shared_pool, prefix=PREFIX)

    async def dispose(self, store: GraphStore) -> None:
        assert isinstance(store, PostgresGraphStore)
        await store.close()


def _entity(name: str, *, entity_id: EntityId | None = None, keys: tuple[str, ...] = ()) -> Entity:
    return Entity(
        id=EntityId(uuid.uuid4()) if entity_id is None else entity_id,
        type="Person",
        name=name,
        blocking_keys=keys,
    )


def _edge(subject: Entity, object_: Entity, type_: str = "KNOWS") -> Relationship:
    return Relationship(
        id=RelationshipId(uuid.uuid4()), type=type_, subject_id=subject.id, object_id=object_.id
    )


class TestPostgresGraphStoreSpecifics:
    """What the port cannot specify: schema, encoding, ownership and query plans."""

    @pytest.fixture
    def store(self, graph_pool: asyncpg.Pool) -> PostgresGraphStore:
        return PostgresGraphStore(graph_pool, prefix=PREFIX)

    async def test_schema_creation_is_idempotent(self, store: PostgresGraphStore) -> None:
        """ensure_schema again, even concurrently, keeps every table and row."""
        ada = _entity("Ada", keys=("Person|n:ada",))
        await store.upsert_entity(TENANT, ada)
        await asyncio.gather(store.ensure_schema(), store.ensure_schema())
        assert await store.get_entity(TENANT, ada.id) == ada
        assert await store.find_by_blocking_key(TENANT, "Person|n:ada") == [ada]

    async def test_text_and_json_survive_exactly(self, store: PostgresGraphStore) -> None:
        """Names in any script, quotes, big numbers, floats and an escaped NUL in attributes
        come back unchanged, and so does provenance."""
        entity = Entity(
            id=EntityId(uuid.uuid4()),
            type="Place",
            name="Zürich «東京» \"quoted\" \\ 'single'",
            attributes={
                "nul": "a\x00b",
                "big": 2**70,
                "float": 0.1,
                "huge": 1e308,
                "nested": [{"ß": None}, True, -0.5],
            },
            blocking_keys=("Place|n:zurich", "Place|s:東京"),
            provenance=Provenance(source_id="notes/é.md", chunk_ids=("c1", "c2"), model="m/1"),
        )
        await store.upsert_entity(TENANT, entity)
        assert await store.get_entity(TENANT, entity.id) == entity
        assert await store.find_by_blocking_key(TENANT, "Place|s:東京") == [entity]

    async def test_a_blocking_key_longer_than_an_index_entry_is_stored_and_found(
        self, store: PostgresGraphStore
    ) -> None:
        """The longest key the models allow, of four-byte characters (4 kB, past a B-tree
        entry), is indexed by prefix and matched whole, so a key sharing its first 200
        characters does not collide."""
        long_key = "Person|n:" + "𝄞" * (MAX_BLOCKING_KEY_LENGTH - len("Person|n:"))
        sibling = long_key[:-1] + "x"
        holder = _entity("long", keys=(long_key,))
        other = _entity("other", keys=(sibling,))
        await store.upsert_entities(TENANT, [holder, other])
        assert await store.find_by_blocking_key(TENANT, long_key) == [holder]
        assert await store.find_by_blocking_keys(TENANT, [long_key, sibling]) == {
            long_key: [holder],
            sibling: [other],
        }

    async def test_find_entities_orders_by_uuid_bytes_which_is_id_text_order(
        self, store: PostgresGraphStore
    ) -> None:
        """Ids that a signed byte or letter digits would misorder page in canonical-text order,
        so ORDER BY the native uuid is the port's total order."""
        texts = [
            "ffffffff-0000-4000-8000-000000000000",
            "80000000-0000-4000-8000-000000000000",
            "7fffffff-ffff-4fff-bfff-ffffffffffff",
            "00000000-0000-4000-8000-00000000000a",
            "00000000-0000-4000-8000-000000000009",
        ]
        entities = [_entity(text, entity_id=EntityId(uuid.UUID(text))) for text in texts]
        await store.upsert_entities(TENANT, entities)
        expected = sorted((entity.id for entity in entities), key=id_text)
        assert [entity.id for entity in await store.find_entities(TENANT)] == expected
        page = await store.find_entities(TENANT, limit=2, after=expected[1])
        assert [entity.id for entity in page] == expected[2:4]

    async def test_the_database_refuses_a_dangling_or_cross_tenant_edge(
        self, store: PostgresGraphStore, graph_pool: asyncpg.Pool
    ) -> None:
        """The composite foreign keys hold even for a writer bypassing the class: an edge to an
        absent entity, or to an entity of another tenant, cannot be committed."""
        ada, bob = _entity("Ada"), _entity("Bob")
        await store.upsert_entity(TENANT, ada)
        await store.upsert_entity(OTHER_TENANT, bob)
        _, _, _, relationships = store.tables
        for object_id in (bob.id, EntityId(uuid.uuid4())):
            with pytest.raises(asyncpg.ForeignKeyViolationError):
                await graph_pool.execute(
                    f"INSERT INTO {relationships} (tenant_id, id, type, subject_id, object_id, "
                    "attributes, provenance) VALUES ($1, $2, 'KNOWS', $3, $4, '{}', '{}')",
                    TENANT,
                    uuid.uuid4(),
                    ada.id,
                    object_id,
                )
        with pytest.raises(MissingEntityError):
            await store.upsert_relationship(TENANT, _edge(ada, bob))

    async def test_batch_reads_are_one_statement_each(self, graph_pool: asyncpg.Pool) -> None:
        """get_entities, find_by_blocking_keys, get_relationships_for and resolve_entity_ids
        each send exactly one statement, however many ids or keys they are given."""
        recording = RecordingPool(graph_pool)
        store = PostgresGraphStore(recording, prefix=PREFIX)
        people = [_entity(f"p{n}", keys=(f"k{n}", "shared")) for n in range(6)]
        await store.upsert_entities(TENANT, people)
        await store.upsert_relationships(TENANT, [_edge(people[0], p) for p in people[1:]])
        await store.upsert_alias(
            TENANT, Alias(alias_id=EntityId(uuid.uuid4()), canonical_id=people[0].id)
        )
        ids = [person.id for person in people]
        for call in (
            store.get_entities(TENANT, ids),
            store.find_by_blocking_keys(TENANT, [f"k{n}" for n in range(6)] + ["shared"]),
            store.get_relationships_for(TENANT, ids),
            store.resolve_entity_ids(TENANT, ids),
            store.neighbours(TENANT, ids[0], depth=3),
        ):
            recording.statements.clear()
            await call
            assert len(recording.statements) == 1

    async def test_neighbours_plan_walks_edges_by_index(self, graph_pool: asyncpg.Pool) -> None:
        """The recursive walk reaches edges through the (tenant, endpoint) indexes, never a
        scan of every tenant's edges, once the table is big enough for the choice to matter."""
        recording = RecordingPool(graph_pool)
        store = PostgresGraphStore(recording, prefix=PREFIX)
        people = [_entity(f"p{n}") for n in range(400)]
        await store.upsert_entities(TENANT, people)
        edges = [_edge(people[n], people[(n * 7 + 1) % 400]) for n in range(400)]
        await store.upsert_relationships(TENANT, edges)
        await graph_pool.execute(f"ANALYZE {store.tables[0]}; ANALYZE {store.tables[3]}")
        recording.statements.clear()
        await store.neighbours(TENANT, people[0].id, depth=2, direction="both")
        [(query, arguments)] = recording.statements
        plan = json.loads(await graph_pool.fetchval(f"EXPLAIN (FORMAT JSON) {query}", *arguments))
        edge_scans = [
            node
            for node in plan_nodes(plan)
            if node.get("Relation Name") == f"{PREFIX}relationships"
        ]
        assert edge_scans
        for scan in edge_scans:
            assert scan["Node Type"] in {"Index Scan", "Bitmap Heap Scan", "Index Only Scan"}, scan

    async def test_close_does_not_close_a_pool_it_does_not_own(
        self, graph_pool: asyncpg.Pool
    ) -> None:
        """Closing (twice, or by leaving a block) a store over an injected pool leaves it open."""
        store = PostgresGraphStore(graph_pool, prefix=PREFIX)
        await store.close()
        await store.close()
        async with PostgresGraphStore(graph_pool, prefix=PREFIX) as bound:
            assert isinstance(bound, PostgresGraphStore)
        assert await graph_pool.fetchval("SELECT 1") == 1
        assert await store.find_entities(TENANT) == []

    async def test_connect_owns_its_pool_and_the_block_closes_it(self, postgres_dsn: str) -> None:
        """``connect`` makes the store own its pool; leaving a block closes it, errors pass."""
        store = await PostgresGraphStore.connect(postgres_dsn, prefix=PREFIX)

        async def body() -> None:
            async with store as bound:
                assert bound is store
                assert await bound.find_entities(TENANT) == []
                raise RuntimeError("body failed")

        with pytest.raises(RuntimeError, match="body failed"):
            await body()
        await store.close()
        with pytest.raises(asyncpg.InterfaceError):
            await store.find_entities(TENANT)
