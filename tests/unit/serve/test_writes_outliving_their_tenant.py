"""A job or a held write whose tenant is erased under it leaves nothing behind (issue 26,
finding 2: the failure seen on PostgreSQL with ``--workers 2``).

Two KnowledgeGraphs over the same stores and one job store stand for two server processes.
Process B runs a document job; while its extractor works, process A erases the tenant (its
jobs, then its graph). B's extraction is appended after the erasure, then B's run stops at
its next progress write, which finds the row gone. On a tenant that had no event before the
job began, the write itself cannot see the erasure (there is no folded event to miss), so it
is the runner that must erase what the run left. A write the request waits for is checked
by the request's key, gone with its tenant.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from redstring import KnowledgeGraph
from redstring.domain.extraction import Extraction
from redstring.domain.ids import TenantId
from redstring.domain.schema import Schema
from redstring.serve.jobs import InMemoryJobStore, JobRunner
from tests.ingest_support import SharedStores, VocabularyExtractor
from tests.serve_world import as_tenant, running_server, serving

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


async def test_a_job_whose_tenant_is_erased_under_it_leaves_no_event_of_the_tenant() -> None:
    stores = SharedStores()
    jobs = InMemoryJobStore()
    process_a = stores.process(VocabularyExtractor())
    process_b = stores.process(ErasingElsewhere(jobs, process_a))
    runner = JobRunner(process_b, jobs, lease_seconds=5.0)

    job = await runner.submit(TENANT, "document", {"source": "a.md", "text": TEXT}, total=1)
    await asyncio.wait_for(runner.wait(), timeout=10)

    assert not await jobs.exists(job.job_id)
    assert await stores.events.read(TENANT, after=0) == []
    assert await stores.chunks.list_sources(TENANT) == {}
    assert (await process_a.stats(TENANT)).entities == 0


async def test_a_job_stopped_at_shutdown_keeps_its_tenant() -> None:
    """Only a run whose row is gone erases: a server closing mid-job keeps the tenant's
    events for the server that resumes the job."""
    stores = SharedStores()
    started = asyncio.Event()

    class Slow(VocabularyExtractor):
        async def extract(self, text: str, schema: Schema) -> Extraction:
            if "Lisbon" in text:
                started.set()
                await asyncio.Event().wait()  # until the runner closes
            return await super().extract(text, schema)

    graph = stores.process(Slow())
    await graph.ingest(TENANT, "first.md", "Ada Park works for Globex.")
    before = await stores.events.read(TENANT, after=0)
    runner = JobRunner(graph, InMemoryJobStore(), lease_seconds=5.0)
    await runner.submit(TENANT, "document", {"source": "a.md", "text": TEXT}, total=1)
    await asyncio.wait_for(started.wait(), timeout=10)
    await runner.close()

    assert await stores.events.read(TENANT, after=0) == before


class ErasesOnce(VocabularyExtractor):
    """Runs ``erase`` (set by the test) once, while extracting a passage naming Zyqua."""

    def __init__(self) -> None:
        super().__init__()
        self.erase: Callable[[], Awaitable[object]] | None = None

    async def extract(self, text: str, schema: Schema) -> Extraction:
        if self.erase is not None and "Zyqua" in text:
            erase, self.erase = self.erase, None
            await erase()
        return await super().extract(text, schema)


def test_a_held_write_to_an_empty_tenant_erased_under_it_keeps_nothing() -> None:
    """``POST /v1/documents`` on a tenant with no event yet, erased while it extracts: the
    graph has no folded event to miss, so the request's key (gone with the tenant) tells.
    The write answers 409 and the tenant stays empty."""
    extractor = ErasesOnce()
    with serving(extractor=extractor) as (client, world):
        tenant = "qzfresh"
        _, key = client.portal.call(partial(world.service.keys.create, tenant=TenantId(tenant)))
        extractor.erase = partial(world.service.delete_tenant, TenantId(tenant))
        document = {"source": "z.md", "text": "Zyqua met Chen Wei in Lisbon."}

        answer = client.post("/v1/documents", json=document, headers=bearer(key))

        assert answer.status_code == 409, answer.text
        assert "deleted while this write ran" in answer.json()["detail"]
        named = {**as_tenant(world, "admin"), "X-Redstring-Tenant": tenant}
        stats = client.get("/v1/stats", headers=named).json()
        assert (stats["sources"], stats["entities"], stats["events"]) == (0, 0, 0)
        # An admin's write is not checked this way (its key outlives any tenant) and lands.
        again = client.post("/v1/documents", json=document, headers=named)
        assert again.status_code == 200, again.text


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_over_mcp_add_document_to_an_empty_tenant_erased_under_it_keeps_nothing() -> None:
    """The same through the MCP tool: the tool call is an error and the tenant stays empty."""
    extractor = ErasesOnce()
    with running_server(extractor=extractor) as (url, world):
        tenant = TenantId("qzfresh")
        _, key = await world.service.keys.create(tenant=tenant)
        extractor.erase = partial(world.service.delete_tenant, tenant)
        http = httpx2.AsyncClient(headers=bearer(key), timeout=30)
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
            added = await mcp.call_tool(
                "add_document", {"source": "z.md", "text": "Zyqua met Chen Wei in Lisbon."}
            )
        assert added.is_error
        assert "deleted while this write ran" in added.content[0].text
        admin = {**as_tenant(world, "admin"), "X-Redstring-Tenant": tenant}
        async with httpx2.AsyncClient(base_url=url, headers=admin, timeout=30) as client:
            stats = (await client.get("/v1/stats")).json()
        assert (stats["sources"], stats["entities"], stats["events"]) == (0, 0, 0)
