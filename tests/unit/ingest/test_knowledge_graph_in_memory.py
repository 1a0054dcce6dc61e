"""The core's cases on the in-memory stores."""

from __future__ import annotations

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from tests.ingest_cases import KnowledgeGraphCases
from tests.ingest_support import VocabularyExtractor


class TestKnowledgeGraphInMemory(KnowledgeGraphCases):
    async def new_graph(
        self, extractor: VocabularyExtractor | None, resolver: object | None = None
    ) -> KnowledgeGraph:
        return KnowledgeGraph.in_memory(
            embeddings=FakeEmbeddingProvider(dimension=16),
            extractor=extractor,
            settings=self.SETTINGS,
            resolver=resolver,  # type: ignore[arg-type]
        )
