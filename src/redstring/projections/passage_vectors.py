"""Passage vectors: one embedding per chunk, in a second VectorStore beside the entities'.

The VectorStore port keys records by an ``EntityId`` (a UUID); a passage's key is
:func:`passage_vector_id`, a UUID-5 of its chunk id, so the same chunk always lands on the
same record and a re-projection overwrites rather than duplicates. Each record's metadata is
``{"chunk_id": ..., "source_id": ...}``: retrieval reads the chunk id back from a search hit
(:func:`passage_chunk_id`) and never needs to invert the hash. Passages carry no
``entity_type``, so a type filter matches none of them; they live in their own store for
that reason and because their count and dimension budget differ from the entities'.

The handlers are idempotent and replayable like every projection: project a source's
chunks when it is ingested (``SourceIngested``), forget them when it is deleted or replaced.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping, Sequence

from pydantic import JsonValue

from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.vector_store import VectorStore
from redstring.projections.embedding import embed_each

__all__ = [
    "PASSAGE_NAMESPACE",
    "forget_passage_vectors",
    "passage_chunk_id",
    "passage_vector_id",
    "project_passage_vectors",
]

PASSAGE_NAMESPACE = uuid.UUID("6f1d2b0e-4a53-5c1e-9a7b-72656473746e")
"""The UUID-5 namespace of passage vector keys. Changing it orphans every stored passage."""

CHUNK_ID_KEY = "chunk_id"
SOURCE_ID_KEY = "source_id"


def passage_vector_id(chunk_id: ChunkId) -> EntityId:
    """The vector-store key of a chunk's embedding: the same on every machine and run."""
    return EntityId(uuid.uuid5(PASSAGE_NAMESPACE, chunk_id))


def passage_chunk_id(metadata: Mapping[str, JsonValue]) -> ChunkId | None:
    """The chunk id a passage record's metadata names, or ``None`` (never raises)."""
    value = metadata.get(CHUNK_ID_KEY)
    return ChunkId(value) if isinstance(value, str) else None


async def project_passage_vectors(
    vectors: VectorStore,
    embeddings: EmbeddingProvider,
    tenant_id: TenantId,
    chunks: Sequence[StoredChunk],
) -> int:
    """Embed ``chunks`` (corpus side) and upsert them into ``vectors``; returns how many.

    One ``embed`` call and one atomic ``upsert_many``. A passage the model gives no direction
    (:func:`~redstring.projections.embedding.embed_each`) gets no vector, and any it had is
    removed, so replaying the same events always ends in the same records. Idempotent:
    projecting the same chunks again rewrites the same records.
    """
    latest = list({chunk.id: chunk for chunk in chunks}.values())
    if not latest:
        return 0
    embedded = await embed_each(embeddings, [chunk.text for chunk in latest])
    directed = [(chunk, vector) for chunk, vector in zip(latest, embedded, strict=True) if vector]
    if directed:
        await vectors.upsert_many(
            tenant_id,
            [
                VectorRecord(
                    entity_id=passage_vector_id(chunk.id),
                    vector=vector,
                    metadata={CHUNK_ID_KEY: chunk.id, SOURCE_ID_KEY: chunk.source_id},
                )
                for chunk, vector in directed
            ],
        )
    undirected = [chunk.id for chunk, vector in zip(latest, embedded, strict=True) if not vector]
    await forget_passage_vectors(vectors, tenant_id, undirected)
    return len(directed)


async def forget_passage_vectors(
    vectors: VectorStore, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
) -> int:
    """Delete the passage records of ``chunk_ids``; returns how many were there."""
    removed = 0
    for chunk_id in set(chunk_ids):
        removed += await vectors.delete(tenant_id, passage_vector_id(chunk_id))
    return removed
