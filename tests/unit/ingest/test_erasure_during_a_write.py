"""An erasure by another process while an ingest is extracting leaves nothing of the tenant.

Two KnowledgeGraphs over the same stores stand for two server processes. The first ingests a
document; while its extractor works on a passage, the second erases the tenant. The first's
extraction is appended after the erasure. Whether the ingest then stops (its task cancelled
because its job row went with the tenant, or a failure) or completes, the log must hold
nothing of the tenant afterwards.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from redstring import KnowledgeGraph
from redstring.domain.extraction import Extraction
from redstring.domain.schema import Schema
from redstring.eventlog.adapters.memory import InMemoryEventLog
from tests.ingest_support import SharedStores, VocabularyExtractor

TENANT = "acme"
FIRST = "Chen Wei works for Acme Corp in Lisbon."
SECOND = "Ada Park works for Globex in Porto. She met Chen Wei there."


class ErasedMidway(VocabularyExtractor):
    """Erases the tenant through ``other`` while extracting the passage naming ``Ada``."""

    def __init__(self, other: KnowledgeGraph | None) -> None:
        super().__init__(people=["Chen Wei", "Ada Park"], orgs=["Acme Corp", "Globex"])
        self.other = other

    async def extract(self, text: str, schema: Schema) -> Extraction:
        if "Ada" in text and self.other is not None:
            await self.other.delete_tenant(TENANT)
        return await super().extract(text, schema)


async def _prepared(stores: SharedStores, other: KnowledgeGraph | None) -> KnowledgeGraph:
    kg = stores.process(ErasedMidway(other))
    await kg.ingest(TENANT, "first.md", FIRST)
    return kg


async def test_an_ingest_cancelled_after_an_erasure_elsewhere_leaves_no_event() -> None:
    """The job's task is cancelled after the extraction is appended (its row went with the
    tenant): what it appended is erased on the way out."""
    stores = SharedStores()
    kg = await _prepared(stores, stores.process(VocabularyExtractor()))
    held = asyncio.Event()

    async def hold(done: int, total: int) -> None:
        if done:
            held.set()
            await asyncio.Event().wait()  # until cancelled

    task = asyncio.create_task(kg.ingest(TENANT, "second.md", SECOND, progress=hold))
    await asyncio.wait_for(held.wait(), timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await stores.events.read(TENANT, after=0) == []
    assert await stores.chunks.list_sources(TENANT) == {}


async def test_an_ingest_failing_after_an_erasure_elsewhere_leaves_no_event() -> None:
    stores = SharedStores()
    kg = await _prepared(stores, stores.process(VocabularyExtractor()))

    async def fail(done: int, total: int) -> None:
        if done:
            raise RuntimeError("the connection dropped")

    with pytest.raises(RuntimeError, match="connection dropped"):
        await kg.ingest(TENANT, "second.md", SECOND, progress=fail)
    assert await stores.events.read(TENANT, after=0) == []


async def test_an_ingest_failing_with_no_erasure_keeps_the_tenant_and_its_extraction() -> None:
    """The guard erases only after an erasure: a plain failure keeps the log, and the rerun
    reuses the extraction recorded before it."""
    stores = SharedStores()
    kg = await _prepared(stores, None)
    before = len(await stores.events.read(TENANT, after=0))

    async def fail(done: int, total: int) -> None:
        if done:
            raise RuntimeError("the connection dropped")

    with pytest.raises(RuntimeError):
        await kg.ingest(TENANT, "second.md", SECOND, progress=fail)
    assert len(await stores.events.read(TENANT, after=0)) > before
    report = await kg.ingest(TENANT, "second.md", SECOND)
    assert report.model_calls == 0
    assert report.extractions_reused == report.chunks_new >= 1
    stats = await kg.stats(TENANT)
    assert stats.entities >= 4


class SlowProbe:
    """The event log, with the next one-event read (the "still logged?" probe) held back
    until ``release`` is set, so another task of the process can fold further meanwhile."""

    def __init__(self, log: InMemoryEventLog) -> None:
        self._log = log
        self.hold_next = False
        self.holding = asyncio.Event()
        self.release = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)

    async def read(self, tenant: Any, *, after: int = 0, limit: int | None = None) -> Any:
        page = await self._log.read(tenant, after=after, limit=limit)
        if limit == 1 and self.hold_next:
            self.hold_next = False
            self.holding.set()
            await self.release.wait()
        return page


async def test_reads_racing_in_one_process_never_take_a_live_tenant_for_erased() -> None:
    """Process B is writing (extracting) while process A appends; then two reads of B run
    at once, the first one's probe held while the second folds A's new events into the
    same history. The probe must not then find its event "gone" (it compared the page
    with the advanced position), mark the history erased, and so make B's write erase the
    whole live tenant."""
    stores = SharedStores()
    probe = SlowProbe(stores.events)
    process_a = stores.process(VocabularyExtractor())

    class Racing(VocabularyExtractor):
        async def extract(self, text: str, schema: Schema) -> Extraction:
            if "Ada" in text:
                await process_a.ingest(TENANT, "third.md", "Chen Wei moved to Porto.")
                probe.hold_next = True
                first = asyncio.create_task(process_b.stats(TENANT))
                await asyncio.wait_for(probe.holding.wait(), timeout=5)
                await process_b.stats(TENANT)  # folds the third document meanwhile
                probe.release.set()
                await first
            return await super().extract(text, schema)

    racing = Racing(people=["Chen Wei", "Ada Park"], orgs=["Acme Corp", "Globex"])
    process_b = stores.process(racing, wrap=lambda port: probe if port is stores.events else port)
    await process_b.ingest(TENANT, "first.md", FIRST)
    await process_a.ingest(TENANT, "between.md", "Ada Park lives in Lisbon.")

    await process_b.ingest(TENANT, "second.md", SECOND)

    assert sorted(source.source_id for source in await process_b.sources(TENANT)) == [
        "between.md",
        "first.md",
        "second.md",
        "third.md",
    ]
