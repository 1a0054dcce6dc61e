"""Both extractors through KnowledgeGraph.ingest on PostgreSQL (all four stores)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ports.extractor import Extractor
from tests.extraction_cases import ExtractionThroughIngestCases
from tests.integration.postgres.test_knowledge_graph import wipe

pytestmark = pytest.mark.integration

PREFIX = "kgextract_"


class TestExtractionThroughIngestOnPostgres(ExtractionThroughIngestCases):
    @pytest.fixture(autouse=True)
    async def _graphs(self, pool: asyncpg.Pool) -> AsyncIterator[None]:
        self._pool = pool
        self._built: list[KnowledgeGraph] = []
        yield
        for kg in self._built:
            await kg.close()

    async def new_graph(self, extractor: Extractor) -> KnowledgeGraph:
        kg = await KnowledgeGraph.on_postgres(
            self._pool,
            embeddings=FakeEmbeddingProvider(dimension=16),
            extractor=extractor,
            settings=self.SETTINGS,
            prefix=PREFIX,
        )
        await wipe(self._pool, PREFIX)
        self._built.append(kg)
        return kg
