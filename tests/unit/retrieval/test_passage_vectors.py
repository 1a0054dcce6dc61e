"""Passage vectors: stable keys, metadata naming the chunk, idempotent projection."""

from __future__ import annotations

from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import ChunkId, SourceId, TenantId
from redstring.projections.passage_vectors import (
    forget_passage_vectors,
    passage_chunk_id,
    passage_vector_id,
    project_passage_vectors,
)
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.retrieval_world import WordVectors

TENANT = TenantId("acme")


def _chunk(text: str) -> StoredChunk:
    return StoredChunk(
        id=chunk_id("doc.md", text),
        source_id=SourceId("doc.md"),
        chunk_index=0,
        text=text,
        char_start=0,
        char_end=len(text),
    )


def test_a_chunk_always_has_the_same_key_and_two_chunks_two_keys() -> None:
    """The key is a UUID-5 of the chunk id: stable, and distinct per chunk."""
    first, second = ChunkId("c" + "1" * 39), ChunkId("c" + "2" * 39)
    assert passage_vector_id(first) == passage_vector_id(first)
    assert passage_vector_id(first) != passage_vector_id(second)


async def test_projection_is_idempotent_and_searchable_by_chunk() -> None:
    """Projecting twice keeps one record per chunk; a hit names its chunk and source."""
    vectors = InMemoryVectorStore(dimension=64)
    embeddings = WordVectors()
    chunks = [_chunk("Babbage was born in London."), _chunk("The weather was mild.")]
    assert await project_passage_vectors(vectors, embeddings, TENANT, chunks) == 2
    assert await project_passage_vectors(vectors, embeddings, TENANT, chunks) == 2
    [query] = await embeddings.embed_query(["born in London"])
    hits = await vectors.search(TENANT, query, k=5)
    assert len(hits) == 2
    assert passage_chunk_id(hits[0].metadata) == chunks[0].id
    assert hits[0].metadata["source_id"] == "doc.md"
    assert await forget_passage_vectors(vectors, TENANT, [chunks[0].id, chunks[0].id]) == 1
    assert [passage_chunk_id(h.metadata) for h in await vectors.search(TENANT, query)] == [
        chunks[1].id
    ]


def test_metadata_without_a_chunk_id_names_none() -> None:
    """A record that is not a passage's is recognised, never an error."""
    assert passage_chunk_id({}) is None
    assert passage_chunk_id({"chunk_id": 7}) is None
