"""The admission cases on the in-memory stores."""

from __future__ import annotations

from redstring import KnowledgeGraph
from redstring.ports.embedding_provider import EmbeddingProvider
from tests.admission_cases import AdmissionCases
from tests.ingest_support import VocabularyExtractor


class TestAdmissionInMemory(AdmissionCases):
    _last: KnowledgeGraph | None = None

    async def new_graph(
        self, embeddings: EmbeddingProvider, *, fresh: bool = True
    ) -> KnowledgeGraph:
        previous = self._last
        if fresh or previous is None:
            kg = KnowledgeGraph.in_memory(
                embeddings=embeddings, extractor=VocabularyExtractor(), settings=self.SETTINGS
            )
        else:
            kg = KnowledgeGraph(
                graph=previous.graph,
                vectors=previous.vectors,
                chunks=previous.chunks,
                events=previous.events,
                passage_vectors=previous.passage_vectors,
                embeddings=embeddings,
                extractor=VocabularyExtractor(),
                settings=self.SETTINGS,
            )
        self._last = kg
        return kg
