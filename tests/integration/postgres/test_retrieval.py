"""Retriever and Answerer over the PostgreSQL stores: the shared retrieval behaviours."""

from __future__ import annotations

import asyncpg
import pytest

from redstring.chunks.adapters.postgres import PostgresChunkStore
from redstring.graph.adapters.postgres import PostgresGraphStore
from redstring.vector.adapters.pgvector import PgVectorStore
from tests.retrieval_world import DIMENSION, OTHER_TENANT, TENANT, RetrievalBehaviour, Stores

pytestmark = pytest.mark.integration

PREFIX = "rs_retrieval_"


class TestRetrievalOnPostgres(RetrievalBehaviour):
    """The behaviours, on the graph, both vector stores and the passages in PostgreSQL."""

    @pytest.fixture(autouse=True)
    def _pool(self, pool: asyncpg.Pool) -> None:
        self._shared_pool = pool

    async def stores(self) -> Stores:
        pool = self._shared_pool
        stores = Stores(
            graph=PostgresGraphStore(pool, prefix=PREFIX),
            vectors=PgVectorStore(pool, dimension=DIMENSION, prefix=PREFIX),
            passages=PgVectorStore(pool, dimension=DIMENSION, prefix=PREFIX + "passage_"),
            chunks=PostgresChunkStore(pool, prefix=PREFIX),
        )
        for store in (stores.graph, stores.vectors, stores.passages, stores.chunks):
            await store.ensure_schema()  # type: ignore[attr-defined]
            for tenant in (TENANT, OTHER_TENANT):
                await store.delete_by_tenant(tenant)
        return stores
