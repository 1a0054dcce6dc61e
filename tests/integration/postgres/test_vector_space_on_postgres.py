"""The model-identity cases on PostgreSQL through ``on_postgres``, which keeps each model's
vectors in tables of their own; and a database laid out before it did (ADR 0047)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from redstring import KnowledgeGraph
from redstring.domain.ids import tenant_id
from redstring.domain.vector import VectorRecord
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.projections.vector_space import space_key
from redstring.vector.adapters.pgvector import PgVectorStore
from tests.ingest_support import VocabularyExtractor
from tests.vector_space_cases import FIRST, NEW, OLD, OTHER, QUESTION, T, VectorSpaceCases

pytestmark = pytest.mark.integration

PREFIX = "kgspace_"


class TestVectorSpaceOnPostgres(VectorSpaceCases):
    @pytest.fixture(autouse=True)
    async def _graphs(self, pool: asyncpg.Pool) -> AsyncIterator[None]:
        self._pool = pool
        self._built: list[KnowledgeGraph] = []
        await _drop(pool)
        yield
        for kg in self._built:
            await kg.close()

    async def graph_with(self, embeddings: EmbeddingProvider) -> KnowledgeGraph:
        kg = await KnowledgeGraph.on_postgres(
            self._pool, embeddings=embeddings, extractor=VocabularyExtractor(), prefix=PREFIX
        )
        self._built.append(kg)
        return kg

    async def test_each_model_has_its_own_tables(self) -> None:
        """Two models make two pairs of tables named by their keys, each of its dimension."""
        await self.graph_with(OLD)
        await self.graph_with(NEW)
        rows = await self._pool.fetch(
            "SELECT tablename FROM pg_tables WHERE tablename LIKE $1 ORDER BY 1",
            PREFIX + "v%vectors",
        )
        assert [row["tablename"] for row in rows] == sorted(
            f"{PREFIX}{space_key(model)}_{kind}"
            for model in (OLD, NEW)
            for kind in ("vectors", "passage_vectors")
        )

    async def test_the_tables_of_a_version_before_per_model_tables_are_retired(self) -> None:
        """``{prefix}vectors`` and ``{prefix}passage_vectors`` (one model's, unnamed) are
        emptied of a tenant by its rebuild, and keep other tenants' rows."""
        legacy = PgVectorStore(self._pool, dimension=8, prefix=PREFIX)
        legacy_passages = PgVectorStore(self._pool, dimension=8, prefix=PREFIX + "passage_")
        for store in (legacy, legacy_passages):
            await store.ensure_schema()
        old = await self.graph_with(OLD)
        await old.ingest(T, "first.md", FIRST)
        record = VectorRecord(
            entity_id="00000000-0000-4000-8000-000000000001",  # type: ignore[arg-type]
            vector=[1.0] + [0.0] * 7,
            metadata={},
        )
        for store in (legacy, legacy_passages):
            await store.upsert(tenant_id(T), record)
            await store.upsert(tenant_id(OTHER), record)
        new = await self.graph_with(NEW)
        assert len(new.retired_vectors) == 4  # OLD's pair and the unnamed pair
        await new.rebuild(T)
        for store in (legacy, legacy_passages):
            assert await store.search(tenant_id(T), record.vector, k=1) == []
            assert len(await store.search(tenant_id(OTHER), record.vector, k=1)) == 1
        assert (await new.query(T, QUESTION)).notices == ()

    async def test_a_prefix_too_long_for_the_model_tables_is_refused(self) -> None:
        """The prefix must leave room for the per-model names; the error says how long."""
        from redstring import InvalidArgumentError

        with pytest.raises(InvalidArgumentError, match="at most 22 characters"):
            await KnowledgeGraph.on_postgres(self._pool, embeddings=OLD, prefix="p" * 23 + "_")


async def _drop(pool: asyncpg.Pool) -> None:
    """Drop every table under the prefix: each case lays out its own database."""
    rows = await pool.fetch(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE $1",
        PREFIX + "%",
    )
    if rows:
        await pool.execute(
            "DROP TABLE " + ", ".join(f'"{row["tablename"]}"' for row in rows) + " CASCADE"
        )
