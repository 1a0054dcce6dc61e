"""What both servers stand on: the graph, the keys, the jobs and the limits, and the reads
that the facade does not offer in one call (an entity with its neighbours and sources).

The HTTP API and the MCP server are thin layers over one :class:`Service`; neither talks to a
store directly. Every tenant here comes from a :class:`~redstring.serve.keys.Principal`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.domain.ids import EntityId, SourceId, TenantId
from redstring.domain.models import Alias, Entity, Relationship
from redstring.ports.cache import Cache
from redstring.serve.jobs import JobRunner
from redstring.serve.keys import KeyStore
from redstring.serve.limits import FailedKeys, Limits, RateLimiter

__all__ = ["Connection", "EntityView", "Service", "entity_view"]

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


@dataclass
class Service:
    """The graph and everything the servers add to it."""

    graph: KnowledgeGraph
    keys: KeyStore
    jobs: JobRunner
    cache: Cache
    limits: Limits = field(default_factory=Limits)
    rate: RateLimiter = field(init=False)
    failed_keys: FailedKeys = field(init=False)

    def __post_init__(self) -> None:
        self.rate = RateLimiter(self.cache, self.limits)
        self.failed_keys = FailedKeys(self.cache, self.limits)

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
