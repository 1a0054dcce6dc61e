"""KnowledgeGraph.query and ask end to end, on PostgreSQL."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import pytest

from redstring import KnowledgeGraph
from redstring.llm.adapters.fake import FakeLlmProvider
from tests.retrieval_world import KnowledgeGraphRetrievalBehaviour, WordVectors

pytestmark = pytest.mark.integration


class TestKnowledgeGraphQueryOnPostgres(KnowledgeGraphRetrievalBehaviour):
    """Each graph gets tables of its own prefix, so tests never see each other's rows."""

    @pytest.fixture(autouse=True)
    def _pool(self, pool: asyncpg.Pool) -> None:
        self._shared_pool = pool

    async def new_graph(
        self, embeddings: WordVectors, extractor: Any, llm: FakeLlmProvider | None
    ) -> KnowledgeGraph:
        prefix = f"rs_kgq_{uuid.uuid4().hex[:8]}_"
        return await KnowledgeGraph.on_postgres(
            self._shared_pool, embeddings=embeddings, extractor=extractor, llm=llm, prefix=prefix
        )
