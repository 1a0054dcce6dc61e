"""The model-identity cases on the in-memory stores: one event log, graph and passage store,
one pair of vector stores per model, as ``on_postgres`` keeps one pair of tables per model."""

from __future__ import annotations

from redstring import KnowledgeGraph
from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.vector_store import VectorStore
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.ingest_support import VocabularyExtractor
from tests.vector_space_cases import VectorSpaceCases


class TestVectorSpaceInMemory(VectorSpaceCases):
    async def graph_with(self, embeddings: EmbeddingProvider) -> KnowledgeGraph:
        if not hasattr(self, "_shared"):
            self._shared = (InMemoryGraphStore(), InMemoryChunkStore(), InMemoryEventLog())
            self._models: dict[str, tuple[VectorStore, VectorStore]] = {}
        graph, chunks, events = self._shared
        retired = [
            store
            for model, pair in self._models.items()
            if model != embeddings.model
            for store in pair
        ]
        vectors, passages = self._models.setdefault(
            embeddings.model,
            (
                InMemoryVectorStore(dimension=embeddings.dimension),
                InMemoryVectorStore(dimension=embeddings.dimension),
            ),
        )
        return KnowledgeGraph(
            graph=graph,
            vectors=vectors,
            chunks=chunks,
            events=events,
            embeddings=embeddings,
            passage_vectors=passages,
            extractor=VocabularyExtractor(),
            retired_vectors=retired,
        )
