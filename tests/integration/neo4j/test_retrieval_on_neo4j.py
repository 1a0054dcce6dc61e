"""Retriever and Answerer with Neo4j as the graph store: the shared retrieval behaviours.

Vectors and passages stay in memory: what this adds over the in-memory and PostgreSQL runs
is the graph signal (neighbours, relationships, entities, aliases) read from Neo4j.
"""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.graph.adapters.neo4j import DEFAULT_DATABASE, Neo4jGraphStore
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.integration.neo4j.test_neo4j_store import neo4j_driver
from tests.retrieval_world import DIMENSION, RetrievalBehaviour, Stores

pytestmark = pytest.mark.integration

__all__ = ["neo4j_driver"]


class TestRetrievalWithNeo4jGraph(RetrievalBehaviour):
    """The behaviours, with the graph in Neo4j (emptied for each world)."""

    @pytest.fixture(autouse=True)
    def _driver(self, neo4j_driver: AsyncDriver) -> None:
        self._shared_driver = neo4j_driver

    async def stores(self) -> Stores:
        await self._shared_driver.execute_query(
            "MATCH (n) DETACH DELETE n", database_=DEFAULT_DATABASE
        )
        return Stores(
            graph=Neo4jGraphStore(self._shared_driver),
            vectors=InMemoryVectorStore(dimension=DIMENSION),
            passages=InMemoryVectorStore(dimension=DIMENSION),
            chunks=InMemoryChunkStore(),
        )
