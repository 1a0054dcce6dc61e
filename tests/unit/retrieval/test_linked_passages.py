"""The passages naming a linked entity: cut in the store, best for the question first."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.chunk_ranking import query_terms
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.domain.models import Entity
from redstring.retrieval.linking import Links, NameSpan
from redstring.retrieval.signals import linked_passages

TENANT = TenantId("acme")


class ReadCountingChunks(InMemoryChunkStore):
    def __init__(self) -> None:
        super().__init__()
        self.returned: list[int] = []

    async def get_by_entity(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        limit: int | None = None,
        prefer: Sequence[ChunkId] = (),
    ) -> list[StoredChunk]:
        found = await super().get_by_entity(tenant_id, entity_id, limit=limit, prefer=prefer)
        self.returned.append(len(found))
        return found


def _passage(n: int, text: str, entity: EntityId) -> StoredChunk:
    return StoredChunk(
        id=chunk_id(f"s{n}.md", text),
        source_id=SourceId(f"s{n}.md"),
        chunk_index=0,
        text=text,
        char_start=0,
        char_end=len(text),
        entity_ids=(entity,),
    )


async def test_a_hub_costs_the_limit_and_the_passage_the_question_asks_for_comes_first() -> None:
    """An entity named in 60 passages, one of which holds the question's other word: with
    ``limit=5`` the store returns five passages (not 60), and the one about the press is
    among them and ranked first, though by id it would not be read at all."""
    chunks = ReadCountingChunks()
    hub = EntityId(uuid.uuid4())
    filler = [_passage(n, f"Ada Park walked home on day {n}", hub) for n in range(59)]
    press = _passage(99, "Ada Park founded the Harbour press", hub)
    await chunks.upsert_many(TENANT, [*filler, press])
    ids_in_order = sorted(p.id for p in [*filler, press])
    assert ids_in_order.index(press.id) >= 5  # by id alone it falls outside the cut

    question = "Which press did Ada Park found?"
    terms = query_terms(question)
    stats = await chunks.lexical_candidates(TENANT, terms)
    links = Links(
        entities=[hub],
        spans=[NameSpan(3, 5, "Ada Park")],
        found={hub: Entity(id=hub, type="Person", name="Ada Park")},
    )
    ranking, fetched = await linked_passages(chunks, TENANT, [hub], links, terms, stats, limit=5)
    assert chunks.returned == [5]
    assert len(fetched) == 5
    assert ranking[0] == press.id


async def test_a_passage_about_the_linked_entity_comes_before_one_that_mentions_it() -> None:
    """The passage that opens with the entity's name ranks first, though another passage
    naming it holds more of the rest of the question."""
    from redstring.domain.blocking import blocking_keys

    chunks = ReadCountingChunks()
    city = EntityId(uuid.uuid4())
    about = _passage(1, "Nantong\nNantong is a city in Jiangsu.", city)
    mention = _passage(
        2, "Rail travel\nTrains from Nantong cross the province; the province is large.", city
    )
    await chunks.upsert_many(TENANT, [about, mention])
    question = "Which province is Nantong situated in?"
    terms = query_terms(question)
    stats = await chunks.lexical_candidates(TENANT, terms)
    entity = Entity(
        id=city, type="Location", name="Nantong", blocking_keys=blocking_keys("Location", "Nantong")
    )
    links = Links(entities=[city], spans=[NameSpan(3, 4, "Nantong")], found={city: entity})
    ranking, _ = await linked_passages(chunks, TENANT, [city], links, terms, stats, limit=5)
    assert ranking == [about.id, mention.id]
