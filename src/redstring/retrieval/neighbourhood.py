"""The piece of a tenant's graph around a question: bounded reads, then the walk's links.

Two kinds of node: entities and passages. An entity links to the passages that name it (its
``provenance.chunk_ids``, which the core keeps for at most
:data:`~redstring.domain.history.MAX_PROVENANCE_CHUNKS` passages) and to the entities it has a
relationship with; a passage links to the entities it names (``StoredChunk.entity_ids``,
resolved to live ids). Starting from the question's seeds (linked entities, best passages),
:func:`read_neighbourhood` reads two rings:

1. the passages of the seed entities that are not held yet (one ``get_many``, at most
   ``max_passages``), which says which entities those passages name;
2. the entities the neighbourhood's passages name (one ``get_entities``, at most
   ``max_entities``, those named by the most passages first), which says which passages name
   *them*: the second hop, known by id and scored without being read.

plus the relationships among the first of the entities read (one
``get_relationships_for(among=True)``, chosen in the store, ADR 0039: a hub's other edges are
never read; among at most ``max_linked`` of them, ADR 0057). The work is
bounded by those two numbers whatever the degree of the entities touched: three reads, at
most ``max_passages + max_entities`` rows besides the relationships.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, TenantId, id_text
from redstring.domain.models import Entity, Relationship
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.graph_store import GraphStore

__all__ = ["ENTITY", "PASSAGE", "Neighbourhood", "Node", "read_neighbourhood"]

ENTITY = "e"
PASSAGE = "p"
Node = tuple[str, str]
"""``(ENTITY, entity id)`` or ``(PASSAGE, chunk id)``."""


def entity_node(entity_id: EntityId) -> Node:
    return (ENTITY, id_text(entity_id))


def passage_node(chunk: ChunkId) -> Node:
    return (PASSAGE, str(chunk))


@dataclass
class Neighbourhood:
    """What was read around the seeds, and the links among it."""

    entities: dict[EntityId, Entity] = field(default_factory=dict)
    passages: dict[ChunkId, StoredChunk] = field(default_factory=dict)
    relationships: list[Relationship] = field(default_factory=list)
    live: dict[EntityId, EntityId] = field(default_factory=dict)
    links: dict[Node, dict[Node, float]] = field(default_factory=dict)
    nodes: dict[EntityId, Node] = field(default_factory=dict)

    def link(self, a: Node, b: Node, weight: float = 1.0) -> None:
        """An undirected link; a repeated one keeps the larger weight."""
        links = self.links
        for one, other in ((a, b), (b, a)):
            edges = links.get(one)
            if edges is None:
                edges = links[one] = {}
            edges[other] = max(edges.get(other, 0.0), weight)

    def degree(self, node: Node) -> int:
        return len(self.links.get(node, ()))

    def node(self, entity_id: EntityId) -> Node:
        """``entity_node(entity_id)``, made once per entity: the walk names each entity in
        many links and the text of a UUID costs more than a look-up."""
        found = self.nodes.get(entity_id)
        if found is None:
            found = self.nodes[entity_id] = entity_node(entity_id)
        return found


async def read_neighbourhood(
    tenant: TenantId,
    *,
    graph: GraphStore,
    chunks: ChunkStore,
    seeds: Sequence[Entity],
    held: Mapping[ChunkId, StoredChunk],
    seed_passages: Sequence[ChunkId],
    live: Mapping[EntityId, EntityId],
    max_passages: int,
    max_entities: int,
    relationship_weight: float,
    max_linked: int | None = None,
) -> Neighbourhood:
    """Read the two rings around ``seeds`` and ``seed_passages`` and link them.

    Relationships are read among the first ``max_linked`` entities only (``None``: all of
    them), the seeds first, then the most-named: the edges among ``n`` entities of a dense
    graph grow as ``n`` squared, the passages and entities read only as ``n`` (ADR 0057).
    ``held`` are passages already read (they are not read again); ``live`` resolves the
    entity ids of held passages (merged-away ids to their survivors). Deterministic.
    """
    around = Neighbourhood(live=dict(live))
    for entity in seeds:
        around.entities[entity.id] = entity
    for chunk_id in seed_passages:
        if chunk_id in held:
            around.passages[chunk_id] = held[chunk_id]
    wanted = [
        chunk
        for entity in seeds
        for chunk in entity.provenance.chunk_ids
        if chunk not in around.passages
    ]
    wanted = list(dict.fromkeys(wanted))
    for chunk_id in wanted:
        if chunk_id in held:
            around.passages[chunk_id] = held[chunk_id]
    unread = [chunk for chunk in wanted if chunk not in around.passages][:max_passages]
    if unread:
        around.passages.update(await chunks.get_many(tenant, unread))
    unknown = [
        named
        for chunk in around.passages.values()
        for named in chunk.entity_ids
        if named not in around.live
    ]
    if unknown:
        around.live.update(await graph.resolve_entity_ids(tenant, list(dict.fromkeys(unknown))))
    named_by = _naming_counts(around.passages.values(), around.live)
    more = sorted(
        (entity for entity in named_by if entity not in around.entities),
        key=lambda entity: (-named_by[entity], id_text(entity)),
    )[:max_entities]
    known = [*around.entities, *more]
    related = known if max_linked is None else known[:max_linked]
    found, touching = await asyncio.gather(
        graph.get_entities(tenant, more) if more else _nothing(),
        graph.get_relationships_for(tenant, related, among=True) if related else _no_edges(),
    )
    around.entities.update(found)
    _link(around, touching, relationship_weight)
    return around


async def _nothing() -> dict[EntityId, Entity]:
    return {}


async def _no_edges() -> list[Relationship]:
    return []


def _naming_counts(
    passages: Iterable[StoredChunk], live: Mapping[EntityId, EntityId]
) -> dict[EntityId, int]:
    counts: dict[EntityId, int] = {}
    for chunk in passages:
        for named in dict.fromkeys(live[e] for e in chunk.entity_ids if e in live):
            counts[named] = counts.get(named, 0) + 1
    return counts


def _link(around: Neighbourhood, touching: Sequence[Relationship], weight: float) -> None:
    live, link, node = around.live, around.link, around.node
    for chunk in around.passages.values():
        at = passage_node(chunk.id)
        for named in chunk.entity_ids:
            resolved = live.get(named)
            if resolved is not None:
                link(at, node(resolved))
    for entity in around.entities.values():
        at = node(entity.id)
        for chunk_id in entity.provenance.chunk_ids:
            link(at, passage_node(chunk_id))
    inside = {edge.id: edge for edge in touching}
    for edge in sorted(inside.values(), key=lambda e: id_text(e.id)):
        ends = (
            live.get(edge.subject_id, edge.subject_id),
            live.get(edge.object_id, edge.object_id),
        )
        if ends[0] in around.entities and ends[1] in around.entities and ends[0] != ends[1]:
            around.relationships.append(edge)
            if weight > 0:
                link(node(ends[0]), node(ends[1]), weight)
