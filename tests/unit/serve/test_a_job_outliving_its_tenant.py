"""A job of another server process whose tenant is erased under it leaves nothing behind
(issue 26, finding 2: the failure seen on PostgreSQL with ``--workers 2``).

Two KnowledgeGraphs over the same stores and one job store stand for two server processes.
Process B runs a document job; while its extractor works, process A erases the tenant (its
jobs, then its graph). B's extraction is appended after the erasure, then B's run stops at
its next progress write, which finds the row gone. On a tenant that had no event before the
job began, the write itself cannot see the erasure (there is no folded event to miss), so it
is the runner that must erase what the run left.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redstring import KnowledgeGraph
from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.extraction import Extraction
from redstring.domain.ids import TenantId
from redstring.domain.schema import Schema
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.serve.jobs import InMemoryJobStore, JobRunner
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.ingest_support import VocabularyExtractor

TENANT = TenantId("acme")
TEXT = "Chen Wei works for Acme Corp in Lisbon."


class ErasingElsewhere(VocabularyExtractor):
    """While extracting, process A erases the tenant: jobs first, then the graph."""

    def __init__(self, jobs: InMemoryJobStore, other: KnowledgeGraph) -> None:
        super().__init__()
        self.jobs = jobs
        self.other = other

    async def extract(self, text: str, schema: Schema) -> Extraction:
        await self.jobs.delete_tenant(TENANT)
        await self.other.delete_tenant(TENANT)
        return await super().extract(text, schema)


def _process(stores: dict[str, Any], extractor: VocabularyExtractor) -> KnowledgeGraph:
    return KnowledgeGraph(
        graph=stores["graph"],
        vectors=stores["vectors"],
        chunks=stores["chunks"],
        events=stores["events"],
        embeddings=FakeEmbeddingProvider(dimension=8),
        extractor=extractor,
    )


async def test_a_job_whose_tenant_is_erased_under_it_leaves_no_event_of_the_tenant() -> None:
    stores: dict[str, Any] = {
        "graph": InMemoryGraphStore(),
        "vectors": InMemoryVectorStore(dimension=8),
        "chunks": InMemoryChunkStore(),
        "events": InMemoryEventLog(),
    }
    jobs = InMemoryJobStore()
    process_a = _process(stores, VocabularyExtractor())
    process_b = _process(stores, ErasingElsewhere(jobs, process_a))
    runner = JobRunner(process_b, jobs, lease_seconds=5.0)

    job = await runner.submit(TENANT, "document", {"source": "a.md", "text": TEXT}, total=1)
    await asyncio.wait_for(runner.wait(), timeout=10)

    assert not await jobs.exists(job.job_id)
    assert await stores["events"].read(TENANT, after=0) == []
    assert await stores["chunks"].list_sources(TENANT) == {}
    assert (await process_a.stats(TENANT)).entities == 0


async def test_a_job_stopped_at_shutdown_keeps_its_tenant() -> None:
    """Only a run whose row is gone erases: a server closing mid-job keeps the tenant's
    events for the server that resumes the job."""
    stores: dict[str, Any] = {
        "graph": InMemoryGraphStore(),
        "vectors": InMemoryVectorStore(dimension=8),
        "chunks": InMemoryChunkStore(),
        "events": InMemoryEventLog(),
    }
    started = asyncio.Event()

    class Slow(VocabularyExtractor):
        async def extract(self, text: str, schema: Schema) -> Extraction:
            if "Lisbon" in text:
                started.set()
                await asyncio.Event().wait()  # until the runner closes
            return await super().extract(text, schema)

    graph = _process(stores, Slow())
    await graph.ingest(TENANT, "first.md", "Ada Park works for Globex.")
    before = await stores["events"].read(TENANT, after=0)
    runner = JobRunner(graph, InMemoryJobStore(), lease_seconds=5.0)
    await runner.submit(TENANT, "document", {"source": "a.md", "text": TEXT}, total=1)
    await asyncio.wait_for(started.wait(), timeout=10)
    await runner.close()

    assert await stores["events"].read(TENANT, after=0) == before
