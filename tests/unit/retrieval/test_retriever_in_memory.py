"""Retriever and Answerer over the in-memory stores: the shared retrieval behaviours."""

from __future__ import annotations

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.retrieval_world import DIMENSION, RetrievalBehaviour, Stores


class TestRetrievalInMemory(RetrievalBehaviour):
    """The behaviours, on stores held in process memory."""

    async def stores(self) -> Stores:
        return Stores(
            graph=InMemoryGraphStore(),
            vectors=InMemoryVectorStore(dimension=DIMENSION),
            passages=InMemoryVectorStore(dimension=DIMENSION),
            chunks=InMemoryChunkStore(),
        )
