"""The walk's neighbourhood: two rings read in bounded calls, linked both ways."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.domain.models import Entity, Provenance
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
