"""Jobs: long work (many documents, an import, a rebuild) run in the background, with progress.

A job's record and its whole input are stored before the caller gets ``202``, so the work
survives the server: a server that starts resumes every unfinished job whose lease has run
out (its owner stopped renewing it). Resuming runs the job again from its input, which is
safe because every step is idempotent in the core: ingesting text a source already holds is
a no-op, an import resolves its entities to the ones the first run created, and a rebuild
replays the log. Progress is ``done`` of ``total`` steps: documents for a batch
(``ingest``), passages extracted for one long document (``document``), one step for an
import or a rebuild.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, JsonValue

from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.domain.errors import RedstringError
from redstring.domain.ids import TenantId

__all__ = ["InMemoryJobStore", "Job", "JobRunner", "JobStore"]

JobKind = Literal["ingest", "document", "import", "rebuild"]
JobState = Literal["queued", "running", "succeeded", "failed"]
FINISHED: frozenset[str] = frozenset({"succeeded", "failed"})


class Job(BaseModel):
    """A job as its status endpoint shows it."""

    job_id: str
    tenant: str
    kind: JobKind
    state: JobState
    total: int
    done: int = 0
    result: JsonValue = None
    error: str | None = None
    created_at: datetime
    updated_at: datetime
    attempts: int = 0


@dataclass
class StoredJob:
    """A job, its input and its lease (who runs it, renewed until when)."""

    job: Job
    payload: dict[str, Any]
    owner: str | None = None
    lease_until: datetime | None = None


class JobStore(ABC):
    """Where job records live; every read is tenant-scoped."""

    @abstractmethod
    async def create(self, stored: StoredJob) -> None:
        """Store a new job with its input."""

    @abstractmethod
    async def get(self, tenant: TenantId, job_id: str) -> Job | None:
        """The tenant's job, or ``None`` (another tenant's job is ``None`` too)."""

    @abstractmethod
    async def update(self, job: Job, *, owner: str, lease_until: datetime) -> bool:
        """Write progress or the outcome and renew the lease; False if ``owner`` lost it."""

    @abstractmethod
    async def claim(
        self, job_id: str, *, owner: str, now: datetime, lease_until: datetime
    ) -> StoredJob | None:
        """Take an unfinished job whose lease has run out (or that has none); else ``None``."""

    @abstractmethod
    async def unfinished(self) -> list[str]:
        """Ids of every job not yet succeeded or failed, oldest first."""

    @abstractmethod
    async def delete_tenant(self, tenant: TenantId) -> int:
        """Delete every job of ``tenant``, input included; returns how many there were."""

    @abstractmethod
    async def exists(self, job_id: str) -> bool:
        """True while the job's row exists (erasing its tenant deletes it)."""

    async def ensure_schema(self) -> None:  # noqa: B027 - optional, a no-op by default
        """Create the storage if missing (nothing for stores without a schema)."""


@dataclass
class InMemoryJobStore(JobStore):
    """Jobs held in this process (for the in-memory graph: they end with it)."""

    jobs: dict[str, StoredJob] = field(default_factory=dict)

    async def create(self, stored: StoredJob) -> None:
        self.jobs[stored.job.job_id] = stored

    async def get(self, tenant: TenantId, job_id: str) -> Job | None:
        stored = self.jobs.get(job_id)
        if stored is None or stored.job.tenant != tenant:
            return None
        return stored.job.model_copy(deep=True)

    async def update(self, job: Job, *, owner: str, lease_until: datetime) -> bool:
        stored = self.jobs.get(job.job_id)
        if stored is None or stored.owner != owner:
            return False
        stored.job = job.model_copy(deep=True)
        stored.lease_until = lease_until
        return True

    async def claim(
        self, job_id: str, *, owner: str, now: datetime, lease_until: datetime
    ) -> StoredJob | None:
        stored = self.jobs.get(job_id)
        if stored is None or stored.job.state in FINISHED:
            return None
        if stored.lease_until is not None and stored.lease_until > now:
            return None
        stored.owner, stored.lease_until = owner, lease_until
        stored.job.attempts += 1
        return StoredJob(stored.job.model_copy(deep=True), dict(stored.payload), owner, lease_until)

    async def unfinished(self) -> list[str]:
        return [
            job_id
            for job_id, stored in sorted(self.jobs.items(), key=lambda i: i[1].job.created_at)
            if stored.job.state not in FINISHED
        ]

    async def delete_tenant(self, tenant: TenantId) -> int:
        gone = [job_id for job_id, stored in self.jobs.items() if stored.job.tenant == tenant]
        for job_id in gone:
            del self.jobs[job_id]
        return len(gone)

    async def exists(self, job_id: str) -> bool:
        return job_id in self.jobs


Step = Callable[[int], Awaitable[None]]


class _LostJobError(Exception):
    """This runner no longer holds the job: its row is gone or another server took it."""


class JobRunner:
    """Runs jobs as tasks of this process, renewing each one's lease while it runs.

    ``lease_seconds`` is how long a silent owner keeps a job: a server that stops mid-job
    leaves it to whichever running server's :meth:`watch` (or a call of :meth:`resume`)
    finds it after that long.
    """

    def __init__(
        self, graph: KnowledgeGraph, store: JobStore, *, lease_seconds: float = 30.0
    ) -> None:
        self.graph = graph
        self.store = store
        self.owner = uuid.uuid4().hex
        self.lease = timedelta(seconds=lease_seconds)
        self._tasks: dict[asyncio.Task[None], Job] = {}

    async def submit(
        self, tenant: TenantId, kind: JobKind, payload: dict[str, Any], *, total: int
    ) -> Job:
        """Store the job and its input, then start it here; returns it as queued."""
        now = datetime.now(UTC)
        job = Job(
            job_id=uuid.uuid4().hex,
            tenant=tenant,
            kind=kind,
            state="queued",
            total=total,
            created_at=now,
            updated_at=now,
        )
        await self.store.create(StoredJob(job, payload))
        await self._start(job.job_id)
        return job

    async def resume(self) -> int:
        """Start every unfinished job whose lease has run out; returns how many started."""
        started = 0
        for job_id in await self.store.unfinished():
            started += await self._start(job_id)
        return started

    async def watch(self) -> None:
        """Resume abandoned jobs for as long as this runs: once at once, then every half lease.

        A server that starts while a stopped server's lease still holds takes the job over
        when the lease runs out, without waiting for another restart.
        """
        while True:
            try:
                await self.resume()
            except asyncio.CancelledError:
                raise
            except Exception:  # a lost connection: try again at the next beat
                pass
            await asyncio.sleep(self.lease.total_seconds() / 2)

    async def close(self) -> None:
        """Stop the running tasks; their jobs stay unfinished for a later server to resume."""
        await self._stop(list(self._tasks))

    async def erase_tenant(self, tenant: TenantId) -> int:
        """Stop this process's jobs of ``tenant`` and delete all its jobs; returns how many
        were stored."""
        await self._stop([task for task, job in self._tasks.items() if job.tenant == tenant])
        return await self.store.delete_tenant(tenant)

    async def stop_deleted(self) -> int:
        """Stop every job of this process whose row is gone (its tenant was erased
        elsewhere); returns how many stopped."""
        gone = [
            task for task, job in self._tasks.items() if not await self.store.exists(job.job_id)
        ]
        await self._stop(gone)
        return len(gone)

    async def _stop(self, tasks: list[asyncio.Task[None]]) -> None:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def wait(self) -> None:
        """Wait for every job this runner started (tests and graceful shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _start(self, job_id: str) -> bool:
        now = datetime.now(UTC)
        claimed = await self.store.claim(
            job_id, owner=self.owner, now=now, lease_until=now + self.lease
        )
        if claimed is None:
            return False
        task = asyncio.create_task(self._run(claimed))
        self._tasks[task] = claimed.job
        task.add_done_callback(lambda done: self._tasks.pop(done, None))
        return True

    async def _save(self, job: Job) -> None:
        """Write the job's progress; a job whose row is gone or whose lease another server
        took stops here (raising :class:`_LostJobError`)."""
        job.updated_at = datetime.now(UTC)
        kept = await self.store.update(
            job, owner=self.owner, lease_until=job.updated_at + self.lease
        )
        if not kept:
            raise _LostJobError(job.job_id)

    async def _run(self, stored: StoredJob) -> None:
        try:
            await self._run_held(stored)
        except (_LostJobError, asyncio.CancelledError) as stopped:
            await asyncio.shield(self._erase_if_gone(stored.job))
            if isinstance(stopped, asyncio.CancelledError):
                raise

    async def _erase_if_gone(self, job: Job) -> None:
        """Erase the job's tenant again when the run stopped because its row is gone.

        The row goes only with its tenant. What the run appended after that erasure must not
        outlive it; the graph erases it on the way out of a write that began on a folded
        history, but a write that began on an empty tenant has no event to miss, so this is
        where it is caught.
        """
        with contextlib.suppress(Exception):  # a lost connection: nothing more to do here
            if not await self.store.exists(job.job_id):
                await self.graph.delete_tenant(job.tenant)

    async def _run_held(self, stored: StoredJob) -> None:
        job = stored.job
        job.state, job.done, job.error = "running", 0, None
        await self._save(job)
        renewer = asyncio.create_task(self._renew(job, asyncio.current_task()))
        try:
            job.result = await self._work(job, stored.payload)
            job.state = "succeeded"
        except RedstringError as error:
            job.state, job.error = "failed", str(error)
        except (asyncio.CancelledError, _LostJobError):
            raise
        except Exception as error:  # a lost connection: the job fails, the server lives on
            job.state, job.error = "failed", f"{type(error).__name__}: {error}"
        finally:
            renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewer
        await self._save(job)

    async def _document(self, job: Job, payload: dict[str, Any]) -> JsonValue:
        """One document, its progress in passages extracted (saved at most once a second)."""
        saved = [0.0]

        async def progress(done: int, total: int) -> None:
            job.done, job.total = done, total
            now = asyncio.get_running_loop().time()
            if now - saved[0] >= 1.0 or done == total:
                saved[0] = now
                await self._save(job)

        report = await self.graph.ingest(
            job.tenant,
            payload["source"],
            payload["text"],
            metadata=payload.get("metadata") or None,
            progress=progress,
        )
        job.done = job.total = max(job.total, job.done, 1)
        dumped: JsonValue = report.model_dump(mode="json")
        return dumped

    async def _renew(self, job: Job, work: asyncio.Task[None] | None) -> None:
        while True:
            await asyncio.sleep(self.lease.total_seconds() / 3)
            try:
                await self._save(job)
            except _LostJobError:
                if work is not None:
                    work.cancel()
                return

    async def _work(self, job: Job, payload: dict[str, Any]) -> JsonValue:
        tenant = job.tenant
        if job.kind == "rebuild":
            replayed = await self.graph.rebuild(tenant)
            job.done = 1
            return {"events_replayed": replayed}
        if job.kind == "import":
            imported = await self.graph.import_jsonl(tenant, payload["lines"])
            job.done = 1
            return imported.model_dump(mode="json", exclude={"refs"})
        if job.kind == "document":
            return await self._document(job, payload)
        outcomes: list[JsonValue] = []
        for document in payload["documents"]:
            try:
                report = await self.graph.ingest(
                    tenant,
                    document["source"],
                    document["text"],
                    metadata=document.get("metadata") or None,
                )
                outcomes.append(report.model_dump(mode="json"))
            except RedstringError as error:
                outcomes.append(
                    {"source_id": document["source"], "failed": True, "error": str(error)}
                )
            job.done += 1
            await self._save(job)
        return {"documents": outcomes}
