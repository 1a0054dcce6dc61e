"""The core's cases on PostgreSQL: all four stores in one database, through ``on_postgres``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from tests.ingest_cases import KnowledgeGraphCases
from tests.ingest_support import VocabularyExtractor

pytestmark = pytest.mark.integration

PREFIX = "kgcore_"


async def wipe(pool: asyncpg.Pool, prefix: str = PREFIX) -> None:
    """Empty every table the four stores created under ``prefix``."""
    tables = await pool.fetch(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE $1",
        prefix + "%",
    )
    if tables:
        names = ", ".join(f'"{row["tablename"]}"' for row in tables)
        await pool.execute(f"TRUNCATE {names}")


class TestKnowledgeGraphOnPostgres(KnowledgeGraphCases):
    @pytest.fixture(autouse=True)
    async def _graphs(self, pool: asyncpg.Pool) -> AsyncIterator[None]:
        self._pool = pool
        self._built: list[KnowledgeGraph] = []
        yield
        for kg in self._built:
            await kg.close()

    async def new_graph(
        self, extractor: VocabularyExtractor | None, resolver: object | None = None
    ) -> KnowledgeGraph:
        kg = await KnowledgeGraph.on_postgres(
            self._pool,
            embeddings=FakeEmbeddingProvider(dimension=16),
            extractor=extractor,
            settings=self.SETTINGS,
            resolver=resolver,  # type: ignore[arg-type]
            prefix=PREFIX,
        )
        await wipe(self._pool)
        self._built.append(kg)
        return kg
