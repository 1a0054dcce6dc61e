"""The hop signal: from the best passages' bridge entity to the passages about it."""

from __future__ import annotations

import uuid

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.blocking import blocking_keys
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.domain.models import Entity, Provenance
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.retrieval.second_hop import hop_passages

TENANT = TenantId("acme")


def _passage(source: str, text: str, entities: tuple[EntityId, ...]) -> StoredChunk:
    return StoredChunk(
        id=chunk_id(f"{source}.md", text),
        source_id=SourceId(f"{source}.md"),
        chunk_index=0,
        text=text,
        char_start=0,
        char_end=len(text),
        entity_ids=entities,
    )


def _entity(entity_type: str, name: str, passages: list[StoredChunk]) -> Entity:
    return Entity(
        id=EntityId(uuid.uuid5(uuid.NAMESPACE_URL, name)),
        type=entity_type,
        name=name,
        blocking_keys=blocking_keys(entity_type, name),
        provenance=Provenance(chunk_ids=tuple(p.id for p in passages)),
    )


async def test_the_hop_ranks_the_passages_about_each_first_passages_bridge() -> None:
    """From the first passage, the entity of its sentence that best matches the question is
    the bridge (not the question's own entity, not the other entities of the passage); of the
    passages naming it, those it opens are ranked, never a first-hop passage, never one that
    only mentions it."""
    chunks, graph = InMemoryChunkStore(), InMemoryGraphStore()
    # The question's own entity sorts first, so were it not left out it would be the bridge.
    leland_id, overdrive_id, carolina_id = (EntityId(uuid.UUID(int=n)) for n in (1, 2, 3))
    leland = _passage(
        "leland",
        "Leland, North Carolina\nLeland is a town in North Carolina. The film Maximum "
        "Overdrive was shot in Leland in 1986.",
        (leland_id, overdrive_id, carolina_id),
    )
    about = _passage(
        "overdrive",
        "Maximum Overdrive\nMaximum Overdrive is a 1986 film directed by Stephen King.",
        (overdrive_id,),
    )
    mentions = _passage(
        "king", "Stephen King\nHe later regretted Maximum Overdrive.", (overdrive_id,)
    )
    state = _passage("carolina", "North Carolina\nNorth Carolina is a state.", (carolina_id,))
    town_history = _passage("town", "Leland\nLeland was founded in 1889.", (leland_id,))
    await chunks.upsert_many(TENANT, [leland, about, mentions, state, town_history])
    overdrive = _entity("Work", "Maximum Overdrive", [leland, about, mentions])
    carolina = _entity("Location", "North Carolina", [leland, state])
    town = _entity("Location", "Leland", [leland, town_history])
    overdrive = overdrive.model_copy(update={"id": overdrive_id})
    carolina = carolina.model_copy(update={"id": carolina_id})
    town = town.model_copy(update={"id": leland_id})
    await graph.upsert_entities(TENANT, [overdrive, carolina, town])

    ranking, read = await hop_passages(
        TENANT,
        "Who directed the film that was shot in Leland in 1986?",
        graph=graph,
        chunks=chunks,
        first=[leland.id],
        held={leland.id: leland},
        live={leland_id: leland_id, overdrive_id: overdrive_id, carolina_id: carolina_id},
        asked={leland_id},
        lexical_scores={},
        max_entities=8,
        max_passages=8,
    )

    assert ranking == [about.id]
    assert set(read) == {about.id, mentions.id}


async def test_the_hop_reads_within_its_bounds() -> None:
    """A bridge named by many passages costs at most ``max_passages`` passages read, and
    ``max_entities`` 0 or ``max_passages`` 0 reads nothing."""
    chunks, graph = InMemoryChunkStore(), InMemoryGraphStore()
    bridge_id = EntityId(uuid.uuid4())
    first = _passage("first", "First\nThe Bridge Company is everywhere.", (bridge_id,))
    many = [
        _passage(f"p{n}", f"Bridge Company\nPassage {n} about it.", (bridge_id,)) for n in range(20)
    ]
    await chunks.upsert_many(TENANT, [first, *many])
    bridge = _entity("Organization", "Bridge Company", [first, *many]).model_copy(
        update={"id": bridge_id}
    )
    await graph.upsert_entities(TENANT, [bridge])
    arguments = {
        "graph": graph,
        "chunks": chunks,
        "first": [first.id],
        "held": {first.id: first},
        "live": {bridge_id: bridge_id},
        "asked": set(),
        "lexical_scores": {},
    }
    ranking, read = await hop_passages(
        TENANT, "Where is it?", **arguments, max_entities=4, max_passages=5
    )
    assert len(read) == 5
    assert len(ranking) == 5
    for bounds in ((0, 5), (4, 0)):
        nothing: tuple[list[ChunkId], dict[ChunkId, StoredChunk]] = ([], {})
        assert (
            await hop_passages(
                TENANT,
                "Where is it?",
                **arguments,
                max_entities=bounds[0],
                max_passages=bounds[1],
            )
            == nothing
        )
