"""The generated-history property on PostgreSQL: stores match the log and survive rebuild."""

from __future__ import annotations

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ingest.service import IngestSettings
from tests.ingest_support import VocabularyExtractor
from tests.integration.postgres.test_knowledge_graph import wipe
from tests.unit.ingest.test_generated_histories import check_history, operations

pytestmark = pytest.mark.integration

PREFIX = "kghist_"


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ops=operations)
async def test_generated_histories_on_postgres(
    pool: asyncpg.Pool, ops: list[tuple[str, str, str, str]]
) -> None:
    """Every example starts from empty tables; rebuild and tenancy hold as in memory."""
    kg = await KnowledgeGraph.on_postgres(
        pool,
        embeddings=FakeEmbeddingProvider(dimension=8),
        extractor=VocabularyExtractor(),
        settings=IngestSettings(chunk_chars=40, chunk_overlap=0),
        prefix=PREFIX,
    )
    await wipe(pool, PREFIX)
    await check_history(kg, ops)
