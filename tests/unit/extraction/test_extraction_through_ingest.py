"""Both extractors through KnowledgeGraph.ingest on the in-memory stores."""

from __future__ import annotations

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ports.extractor import Extractor
from tests.extraction_cases import ExtractionThroughIngestCases


class TestExtractionThroughIngestInMemory(ExtractionThroughIngestCases):
    async def new_graph(self, extractor: Extractor) -> KnowledgeGraph:
        return KnowledgeGraph.in_memory(
            embeddings=FakeEmbeddingProvider(dimension=16),
            extractor=extractor,
            settings=self.SETTINGS,
        )
