"""What both servers stand on: the graph, the keys, the jobs and the limits; who may call
(:meth:`Service.admit`), erasing a tenant (:meth:`Service.delete_tenant`), and the reads that
the facade does not offer in one call (an entity with its neighbours and sources).

The HTTP API and the MCP server are thin layers over one :class:`Service`; neither talks to a
store directly. Every tenant here comes from a :class:`~redstring.serve.keys.Principal`.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, Field, JsonValue

from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.domain.ids import EntityId, SourceId, TenantId
from redstring.domain.models import Alias, Entity, Relationship
from redstring.ingest.reports import IngestReport
from redstring.ingest.service import TenantErasedError
from redstring.ports.cache import Cache
from redstring.serve.erasure import TenantErasure, erase_tenant
from redstring.serve.jobs import JobRunner
from redstring.serve.keys import KeyStore, Principal, split_key
from redstring.serve.limits import (
    FAILED_KEYS_PREFIX,
    RATE_PREFIX,
    FailedKeys,
    Limits,
    RateLimiter,
    address_subject,
    key_id_subject,
)
from redstring.serve.signal import InMemorySignal, Signal

__all__ = ["AccessRefusedError", "Connection", "EntityView", "Service", "entity_view"]

_PROBE_TENANT = TenantId("redstring-readiness-probe")
_PROBE_ID = EntityId(uuid.UUID(int=0))


class Connection(BaseModel):
    """One relationship of the entity and the entity at its other end."""

    relationship: Relationship
    direction: str = Field(description="outgoing (the entity is the subject) or incoming")
    entity_id: EntityId
    name: str | None
    type: str | None


class EntityView(BaseModel):
    """An entity, its aliases, the sources that support it and its neighbours."""

    entity: Entity
    aliases: list[Alias]
    sources: list[SourceId]
    neighbours: list[Connection]


async def entity_view(
    graph: KnowledgeGraph, tenant: TenantId, entity_id: EntityId
) -> EntityView | None:
    """The tenant's entity ``entity_id`` (an alias resolves to its survivor), or ``None``."""
    history = await graph.history(tenant)
    live = history.resolve(entity_id)
    known = history.entities.get(live) if live is not None else None
    if live is None or known is None:
        return None
    neighbours = []
    for relationship_id in sorted(history.relationships_by_entity.get(live, set()), key=str):
        edge = history.relationships.get(relationship_id)
        if edge is None:
            continue
        relationship = edge.relationship
        outgoing = relationship.subject_id == live
        other = relationship.object_id if outgoing else relationship.subject_id
        other_known = history.entities.get(other)
        neighbours.append(
            Connection(
                relationship=relationship.model_copy(deep=True),
                direction="outgoing" if outgoing else "incoming",
                entity_id=other,
                name=other_known.entity.name if other_known else None,
                type=other_known.entity.type if other_known else None,
            )
        )
    return EntityView(
        entity=known.entity.model_copy(deep=True),
        aliases=history.aliases_of(live),
        sources=sorted({SourceId(item.source_id) for item in known.evidence}),
        neighbours=neighbours,
    )


class AccessRefusedError(Exception):
    """A request's key does not open the server: ``status`` 401 or 429 (then
    ``retry_after`` seconds)."""

    def __init__(self, status: int, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


_INVALID = "the API key is not valid (unknown, revoked or mistyped)"


@dataclass
class Service:
    """The graph and everything the servers add to it.

    ``signal`` is shared by every server process on the same stores (PostgreSQL) and raised
    by each erasure; ``signal_seconds`` is how often :meth:`watch` looks at it.
    """

    graph: KnowledgeGraph
    keys: KeyStore
    jobs: JobRunner
    cache: Cache
    limits: Limits = field(default_factory=Limits)
    signal: Signal = field(default_factory=InMemorySignal)
    signal_seconds: float = 0.5
    rate: RateLimiter = field(init=False)
    failed_keys: FailedKeys = field(init=False)

    def __post_init__(self) -> None:
        self.rate = RateLimiter(self.cache, self.limits)
        self.failed_keys = FailedKeys(self.cache, self.limits)

    async def admit(self, key: str | None, address: str) -> Principal:
        """The principal of a request carrying ``key`` from ``address``, within its limits.

        Budgets go per key id first, per address second (ADR 0042): a real key id whose
        secrets keep failing is refused before its secret is hashed again (unless this
        process verified exactly this key lately); a key nobody has is refused before the
        decoy hash once its address has sent too many. A real key is verified whatever its
        address sent before, so a client behind a shared address is not locked out by its
        neighbours. Raises :class:`AccessRefusedError`.
        """
        if not key:
            raise AccessRefusedError(401, "send an API key as Authorization: Bearer <key>")
        parts = split_key(key)
        found = await self.keys.row(parts[0]) if parts is not None else None
        if found is None:
            wait = await self.failed_keys.wait(address_subject(address))
            if wait is not None:
                raise AccessRefusedError(
                    429,
                    f"too many invalid API keys from this address; retry after {wait:.0f} s",
                    wait,
                )
            if parts is not None:
                await self.keys.verify_nothing(parts[1])
            await self.failed_keys.record(address_subject(address))
            raise AccessRefusedError(401, _INVALID)
        record, stored_hash = found
        principal = self.keys.remembered(key, record)
        if principal is None:
            subject = key_id_subject(record.key_id)
            wait = await self.failed_keys.wait(subject)
            if wait is not None:
                raise AccessRefusedError(
                    429,
                    f"too many invalid secrets for key {record.key_id}; retry after {wait:.0f} s",
                    wait,
                )
            principal = await self.keys.verify(key, record, stored_hash)
            if principal is None:
                await self.failed_keys.record(subject)
                await self.failed_keys.record(address_subject(address))
                raise AccessRefusedError(401, _INVALID)
        wait = await self.rate.admit(principal.key_id)
        if wait is not None:
            raise AccessRefusedError(
                429,
                f"this key made more than {self.limits.requests_per_window} requests in "
                f"{self.limits.window_seconds:g} s; retry after {wait:.0f} s",
                wait,
            )
        return principal

    async def ingest_held(
        self,
        tenant: TenantId,
        source: str,
        text: str,
        *,
        metadata: Mapping[str, JsonValue] | None = None,
        key_id: str | None = None,
    ) -> IngestReport:
        """Ingest while the request waits, as the tenant key ``key_id`` (``None`` for an admin
        key or a stdio session).

        When the key is gone once the write is over, the tenant was erased while it ran:
        what the write appended is erased again and :class:`TenantErasedError` raised. The
        graph sees such an erasure itself only when the tenant had an event before the
        write began (ADR 0042); the key's row tells for an empty tenant too.
        """
        try:
            report = await self.graph.ingest(tenant, source, text, metadata=metadata)
        except BaseException:
            await asyncio.shield(self._erase_if_key_gone(tenant, key_id))
            raise
        if await self._erase_if_key_gone(tenant, key_id):
            raise TenantErasedError(
                f"tenant {tenant!r} was deleted while this write ran; nothing of it was kept"
            )
        return report

    async def _erase_if_key_gone(self, tenant: TenantId, key_id: str | None) -> bool:
        if key_id is None or await self.keys.row(key_id) is not None:
            return False
        await self.graph.delete_tenant(tenant)
        return True

    async def delete_tenant(self, tenant: TenantId) -> TenantErasure:
        """Erase ``tenant`` from every store, key, job and cache entry, and tell every server
        process to forget it (:func:`~redstring.serve.erasure.erase_tenant`)."""
        erased = await erase_tenant(
            tenant,
            graph=self.graph,
            keys=self.keys,
            jobs=self.jobs,
            cache=self.cache,
            signal=self.signal,
        )
        await self.forget_gone()
        return erased

    async def forget_gone(self) -> None:
        """Drop what this process holds of erased tenants and deleted or revoked keys:
        folded histories, verified secrets, rate limiters, runs of deleted jobs."""
        await self.graph.forget_erased()
        self.keys.forget_remembered()
        for key_id in self.rate.key_ids():
            if await self.keys.row(key_id) is None:
                # A cache of this process alone (no Redis) still holds the key's windows.
                await self.cache.delete(RATE_PREFIX + key_id)
                await self.cache.delete(FAILED_KEYS_PREFIX + key_id_subject(key_id))
        self.rate.forget()
        await self.jobs.stop_deleted()

    async def watch(self, *, since: int | None = None) -> None:
        """For as long as this runs: every ``signal_seconds``, forget what is gone whenever
        the shared signal has moved past ``since`` (an erasure or revocation by any
        process). Read ``since`` before serving the first request, so that no move between
        the first request and the first beat goes unseen."""
        seen = await self.signal.current() if since is None else since
        while True:
            await asyncio.sleep(self.signal_seconds)
            try:
                now = await self.signal.current()
                if now != seen:
                    await self.forget_gone()
                    seen = now
            except asyncio.CancelledError:
                raise
            except Exception:
                continue

    def probes(self) -> dict[str, Callable[[], Awaitable[object]]]:
        """One cheap read per configured backend, by name (the readiness probe runs them)."""
        graph = self.graph
        found: dict[str, Callable[[], Awaitable[object]]] = {
            "graph": lambda: graph.graph.get_entity(_PROBE_TENANT, _PROBE_ID),
            "vectors": lambda: graph.vectors.get(_PROBE_TENANT, _PROBE_ID),
            "passages": lambda: graph.chunks.list_sources(_PROBE_TENANT),
            "events": lambda: graph.events.checkpoint(_PROBE_TENANT, "readiness"),
            "cache": lambda: self.cache.get("redstring:serve:readiness"),
            "keys": self.keys.ping,
        }
        if graph.passage_vectors is not None:
            passages = graph.passage_vectors
            found["passage_vectors"] = lambda: passages.get(_PROBE_TENANT, _PROBE_ID)
        return found

    async def readiness(self) -> dict[str, str]:
        """Every probe's outcome: ``ok`` or the error's type and message."""
        outcome: dict[str, str] = {}
        for name, probe in self.probes().items():
            started = time.perf_counter()
            try:
                await probe()
            except Exception as error:  # any failure means not ready; say which
                outcome[name] = f"failed: {type(error).__name__}: {error}"[:300]
            else:
                outcome[name] = f"ok ({(time.perf_counter() - started) * 1000:.1f} ms)"
        return outcome
