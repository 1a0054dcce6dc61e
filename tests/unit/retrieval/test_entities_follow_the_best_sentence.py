"""Within a passage, the entities of the sentence that best matches the question come first."""

from __future__ import annotations

import uuid

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.blocking import blocking_keys
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import EntityId, SourceId, TenantId
from redstring.domain.models import Entity
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.retrieval import RetrievalSettings, Retriever
from redstring.retrieval.results import LEXICAL
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.retrieval_world import DIMENSION, WordVectors

TENANT = TenantId("acme")

# (key, type, surface names the core would have seen)
PEOPLE = (
    ("ada", "Person", ("Ada Lovelace",)),
    ("babbage", "Person", ("Charles Babbage", "Babbage")),
    ("london", "Location", ("London",)),
    ("teignmouth", "Location", ("Teignmouth",)),
)
TEXT = (
    "Ada Lovelace met Charles Babbage in London. "
    "Later that year Babbage was born again, in spirit, at Teignmouth."
)


def _id(key: str) -> EntityId:
    return EntityId(uuid.uuid5(uuid.NAMESPACE_URL, f"redstring-test/sentences/{key}"))


async def _retriever() -> Retriever:
    graph, chunks = InMemoryGraphStore(), InMemoryChunkStore()
    entities = [
        Entity(
            id=_id(key),
            type=kind,
            name=names[0],
            blocking_keys=tuple(sorted({k for name in names for k in blocking_keys(kind, name)})),
        )
        for key, kind, names in PEOPLE
    ]
    await graph.upsert_entities(TENANT, entities)
    await chunks.upsert_many(
        TENANT,
        [
            StoredChunk(
                id=chunk_id("bio.md", TEXT),
                source_id=SourceId("bio.md"),
                chunk_index=0,
                text=TEXT,
                char_start=0,
                char_end=len(TEXT),
                entity_ids=tuple(_id(key) for key, _, _ in PEOPLE),
            )
        ],
    )
    return Retriever(
        graph=graph,
        vectors=InMemoryVectorStore(dimension=DIMENSION),
        chunks=chunks,
        embeddings=WordVectors(),
        settings=RetrievalSettings(signals=frozenset({LEXICAL})),
    )


async def test_the_entities_of_the_matching_sentence_lead_in_mention_order() -> None:
    """'Where was Babbage born?' matches the second sentence: Babbage (seen there under the
    surface name "Babbage") and Teignmouth come before Ada and London, who the first
    sentence names first."""
    retriever = await _retriever()
    result = await retriever.query(TENANT, "Where was Babbage born?", k=4)
    order = [found.entity.id for found in result.entities]
    assert order == [_id("babbage"), _id("teignmouth"), _id("ada"), _id("london")]


async def test_a_question_matching_the_first_sentence_keeps_the_passage_order() -> None:
    retriever = await _retriever()
    result = await retriever.query(TENANT, "Whom did Ada Lovelace meet in London?", k=4)
    order = [found.entity.id for found in result.entities]
    assert order[:3] == [_id("ada"), _id("babbage"), _id("london")]
