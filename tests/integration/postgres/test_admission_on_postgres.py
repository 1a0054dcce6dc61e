"""The admission cases on PostgreSQL: all the stores in one database, through ``on_postgres``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from redstring import KnowledgeGraph
from redstring.ports.embedding_provider import EmbeddingProvider
from tests.admission_cases import AdmissionCases
from tests.ingest_support import VocabularyExtractor
from tests.integration.postgres.test_knowledge_graph import wipe

pytestmark = pytest.mark.integration

PREFIX = "kgadmit_"


class TestAdmissionOnPostgres(AdmissionCases):
    @pytest.fixture(autouse=True)
    async def _graphs(self, pool: asyncpg.Pool) -> AsyncIterator[None]:
        self._pool = pool
        self._built: list[KnowledgeGraph] = []
        yield
        for kg in self._built:
            await kg.close()

    async def new_graph(
        self, embeddings: EmbeddingProvider, *, fresh: bool = True
    ) -> KnowledgeGraph:
        kg = await KnowledgeGraph.on_postgres(
            self._pool,
            embeddings=embeddings,
            extractor=VocabularyExtractor(),
            settings=self.SETTINGS,
            prefix=PREFIX,
        )
        if fresh:
            await wipe(self._pool, PREFIX)
        self._built.append(kg)
        return kg
