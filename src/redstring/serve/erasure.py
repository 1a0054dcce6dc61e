"""Erasing a tenant from everything a server keeps (ADR 0042).

One function, :func:`erase_tenant`, does it for ``DELETE /v1/tenants/{tenant}`` and for
``redstring delete-tenant``. The steps run in an order that closes each door before the
data behind it goes:

1. the tenant's API keys are deleted, rows and all. Every request reads its key's row, so
   every server process refuses them from the next request on;
2. its jobs are deleted, input included. This process stops its own runs of them; another
   server's run stops at its next progress write, which finds the row gone;
3. the graph erases the tenant: every projection, the checkpoints and the event log. A write
   of the tenant still running elsewhere finds its tenant erased under it, erases what it had
   appended and fails;
4. the cache entries of those keys (rate-limit windows, failed-secret counts) are deleted;
5. the shared :class:`~redstring.serve.signal.Signal` is raised. Every server process then
   drops what it holds in memory of tenants and keys that are gone.

Nothing records that the tenant existed: the report goes to the caller only.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.domain.ids import TenantId
from redstring.ports.cache import Cache
from redstring.serve.jobs import JobRunner, JobStore
from redstring.serve.keys import KeyStore
from redstring.serve.limits import FAILED_KEYS_PREFIX, RATE_PREFIX, key_id_subject
from redstring.serve.signal import Signal

__all__ = ["TenantErasure", "erase_tenant"]


class TenantErasure(BaseModel):
    """What an erasure removed. Every count is 0 for a tenant that held nothing."""

    tenant: str
    events: int = Field(description="Events the tenant's log held.")
    keys: int = Field(description="API keys deleted.")
    jobs: int = Field(description="Jobs deleted (with their input).")


async def erase_tenant(
    tenant: TenantId,
    *,
    graph: KnowledgeGraph,
    keys: KeyStore,
    jobs: JobStore | JobRunner,
    cache: Cache | None,
    signal: Signal,
) -> TenantErasure:
    """Delete everything of ``tenant``: keys, jobs, graph, cache entries; then signal every
    server to forget it. Idempotent."""
    key_ids = await keys.delete_tenant(tenant)
    if isinstance(jobs, JobRunner):
        job_count = await jobs.erase_tenant(tenant)
    else:
        job_count = await jobs.delete_tenant(tenant)
    events = await graph.delete_tenant(tenant)
    if cache is not None:
        for key_id in key_ids:
            await cache.delete(RATE_PREFIX + key_id)
            await cache.delete(FAILED_KEYS_PREFIX + key_id_subject(key_id))
    await signal.bump()
    return TenantErasure(tenant=tenant, events=events, keys=len(key_ids), jobs=job_count)
