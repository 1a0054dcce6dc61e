"""KnowledgeGraph.query and ask end to end, on the in-memory stores."""

from __future__ import annotations

from typing import Any

from redstring import KnowledgeGraph
from redstring.llm.adapters.fake import FakeLlmProvider
from tests.retrieval_world import KnowledgeGraphRetrievalBehaviour, WordVectors


class TestKnowledgeGraphQueryInMemory(KnowledgeGraphRetrievalBehaviour):
    async def new_graph(
        self, embeddings: WordVectors, extractor: Any, llm: FakeLlmProvider | None
    ) -> KnowledgeGraph:
        return KnowledgeGraph.in_memory(embeddings=embeddings, extractor=extractor, llm=llm)
