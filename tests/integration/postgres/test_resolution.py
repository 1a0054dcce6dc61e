"""The resolution cases through KnowledgeGraph.on_postgres."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from tests.integration.postgres.test_knowledge_graph import wipe
from tests.resolution_cases import ResolutionCases

pytestmark = pytest.mark.integration

PREFIX = "kgres_"


class TestResolutionOnPostgres(ResolutionCases):
    @pytest.fixture(autouse=True)
    async def _graphs(self, pool: asyncpg.Pool) -> AsyncIterator[None]:
        self._pool = pool
        self._built: list[KnowledgeGraph] = []
        yield
        for kg in self._built:
            await kg.close()

    async def new_graph(self) -> KnowledgeGraph:
        kg = await KnowledgeGraph.on_postgres(
            self._pool, embeddings=FakeEmbeddingProvider(dimension=16), prefix=PREFIX
        )
        await wipe(self._pool, PREFIX)
        self._built.append(kg)
        return kg
