"""The walk's neighbourhood: two rings read in bounded calls, linked both ways."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId, TenantId
from redstring.domain.models import Entity, Provenance, Relationship
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.retrieval.neighbourhood import entity_node, passage_node, read_neighbourhood

TENANT = TenantId("acme")


class CountingChunks(InMemoryChunkStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads: list[int] = []

    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        self.reads.append(len(chunk_ids))
        return await super().get_many(tenant_id, chunk_ids)


class CountingGraph(InMemoryGraphStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads: list[int] = []

    async def get_entities(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId]
    ) -> dict[EntityId, Entity]:
        self.reads.append(len(entity_ids))
        return await super().get_entities(tenant_id, entity_ids)


async def test_the_rings_are_read_within_their_bounds_and_linked_both_ways() -> None:
    """A seed named by 30 passages, each naming 5 more entities: at most max_passages
    passages and max_entities entities are read, and an entity's unread passages are still
    linked (the second hop, known by id)."""
    chunks, graph = CountingChunks(), CountingGraph()
    seed_id = EntityId(uuid.uuid4())
    others = [EntityId(uuid.uuid4()) for _ in range(150)]
    stored = []
    for n in range(30):
        text = f"passage {n}"
        stored.append(
            StoredChunk(
                id=chunk_id(f"s{n}.md", text),
                source_id=SourceId(f"s{n}.md"),
                chunk_index=0,
                text=text,
                char_start=0,
                char_end=len(text),
                entity_ids=(seed_id, *others[5 * n : 5 * n + 5]),
            )
        )
    far = ChunkId("far-away-passage")
    await chunks.upsert_many(TENANT, stored)
    seed = Entity(
        id=seed_id,
        type="Person",
        name="Seed",
        provenance=Provenance(chunk_ids=tuple(c.id for c in stored)),
    )
    entities = [
        Entity(id=e, type="Person", name=f"E{n}", provenance=Provenance(chunk_ids=(far,)))
        for n, e in enumerate(others)
    ]
    await graph.upsert_entities(TENANT, [seed, *entities])
    around = await read_neighbourhood(
        TENANT,
        graph=graph,
        chunks=chunks,
        seeds=[seed],
        held={},
        seed_passages=[],
        live={},
        max_passages=8,
        max_entities=12,
        relationship_weight=1.0,
    )
    assert chunks.reads == [8]
    assert graph.reads == [12]
    assert len(around.passages) == 8
    assert len(around.entities) == 1 + 12
    read = [entity for entity in around.entities if entity != seed_id]
    assert all(passage_node(far) in around.links[entity_node(entity)] for entity in read)
    first = stored[0]
    assert entity_node(seed_id) in around.links[passage_node(first.id)]
    assert passage_node(stored[29].id) in around.links[entity_node(seed_id)]


class EdgeCountingGraph(InMemoryGraphStore):
    def __init__(self) -> None:
        super().__init__()
        self.edges_read: list[int] = []

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        found = await super().get_relationships_for(tenant_id, entity_ids, among=among)
        self.edges_read.append(len(found))
        return found


async def test_a_hubs_edges_to_entities_not_read_are_never_read() -> None:
    """A seed with 200 edges, one to the entity its passage names: the store is asked for
    the edges among the entities read only (ADR 0039), so one edge comes back, not 200."""
    chunks, graph = InMemoryChunkStore(), EdgeCountingGraph()
    seed_id, named_id = EntityId(uuid.uuid4()), EntityId(uuid.uuid4())
    far = [EntityId(uuid.uuid4()) for _ in range(199)]
    text = "the seed and the named one"
    passage = StoredChunk(
        id=chunk_id("s.md", text),
        source_id=SourceId("s.md"),
        chunk_index=0,
        text=text,
        char_start=0,
        char_end=len(text),
        entity_ids=(seed_id, named_id),
    )
    await chunks.upsert_many(TENANT, [passage])
    seed = Entity(
        id=seed_id, type="Person", name="Seed", provenance=Provenance(chunk_ids=(passage.id,))
    )
    others = [Entity(id=e, type="Person", name=f"E{n}") for n, e in enumerate([named_id, *far])]
    await graph.upsert_entities(TENANT, [seed, *others])
    await graph.upsert_relationships(
        TENANT,
        [
            Relationship(
                id=RelationshipId(uuid.uuid4()), type="KNOWS", subject_id=seed_id, object_id=e
            )
            for e in [named_id, *far]
        ],
    )
    around = await read_neighbourhood(
        TENANT,
        graph=graph,
        chunks=chunks,
        seeds=[seed],
        held={},
        seed_passages=[],
        live={},
        max_passages=8,
        max_entities=12,
        relationship_weight=1.0,
    )
    assert graph.edges_read == [1]
    assert [(edge.subject_id, edge.object_id) for edge in around.relationships] == [
        (seed_id, named_id)
    ]


async def test_relationships_are_read_among_the_first_entities_only() -> None:
    """A seed whose passage names four entities, every pair of the five related: with
    max_linked=3 the store is asked for the edges among the seed and the two most-named
    entities only, so 3 of the 10 edges come back and only those are linked; all five
    entities are still read and linked to the passage (ADR 0057)."""
    chunks, graph = InMemoryChunkStore(), EdgeCountingGraph()
    seed_id = EntityId(uuid.uuid4())
    named = sorted((EntityId(uuid.uuid4()) for _ in range(4)), key=str)
    texts = ["all of them", "the first two again"]
    passages = [
        StoredChunk(
            id=chunk_id(f"s{n}.md", text),
            source_id=SourceId(f"s{n}.md"),
            chunk_index=0,
            text=text,
            char_start=0,
            char_end=len(text),
            entity_ids=(seed_id, *(named if n == 0 else named[:2])),
        )
        for n, text in enumerate(texts)
    ]
    await chunks.upsert_many(TENANT, passages)
    seed = Entity(
        id=seed_id,
        type="Person",
        name="Seed",
        provenance=Provenance(chunk_ids=tuple(p.id for p in passages)),
    )
    await graph.upsert_entities(
        TENANT, [seed, *(Entity(id=e, type="Person", name=f"E{n}") for n, e in enumerate(named))]
    )
    everyone = [seed_id, *named]
    await graph.upsert_relationships(
        TENANT,
        [
            Relationship(id=RelationshipId(uuid.uuid4()), type="KNOWS", subject_id=a, object_id=b)
            for i, a in enumerate(everyone)
            for b in everyone[i + 1 :]
        ],
    )
    around = await read_neighbourhood(
        TENANT,
        graph=graph,
        chunks=chunks,
        seeds=[seed],
        held={},
        seed_passages=[],
        live={},
        max_passages=8,
        max_entities=12,
        relationship_weight=1.0,
        max_linked=3,
    )
    first = {seed_id, named[0], named[1]}
    assert graph.edges_read == [3]
    assert {(e.subject_id, e.object_id) for e in around.relationships} <= {
        (a, b) for a in first for b in first
    }
    assert set(around.entities) == set(everyone)
    assert entity_node(named[3]) in around.links[passage_node(passages[0].id)]
    assert entity_node(named[3]) not in around.links[entity_node(seed_id)]
