"""The ``graph`` signal: a personalised PageRank walk from the question's entities and best
passages over the neighbourhood around them (ADR 0034).

Restart weights: each seed entity (an entity the question names) gets ``1 / passages naming
it``, HippoRAG's node specificity, so "Christopher Nolan" outweighs "English" and a hub passes
on little; each seed passage (the head of the lexical and passage-vector rankings) gets its
lexical score over the best one plus ``1 / rank`` in the passage vectors. The two groups share
the restart as ``walk_passage_restart`` says. The walk's scores rank every passage of the
neighbourhood, read or only known by id (the second hop), every entity it reached, and the
relationships among them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from redstring.domain.chunk_ranking import tokenize
from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, TenantId, id_text
from redstring.domain.models import Entity, Relationship
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.graph_store import GraphStore
from redstring.retrieval.neighbourhood import (
    ENTITY,
    PASSAGE,
    Neighbourhood,
    Node,
    entity_node,
    passage_node,
    read_neighbourhood,
)
from redstring.retrieval.settings import RetrievalSettings
from redstring.retrieval.walk import personalised_pagerank

__all__ = ["NO_GRAPH", "GraphSignal", "graph_signal", "seed_passage_weights"]


@dataclass(frozen=True)
class GraphSignal:
    """What the walk ranked, each list best first, and what it read on the way."""

    passages: list[ChunkId] = field(default_factory=list)
    entities: list[EntityId] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    evidence: dict[RelationshipId, list[ChunkId]] = field(default_factory=dict)
    read_entities: dict[EntityId, Entity] = field(default_factory=dict)
    read_passages: dict[ChunkId, StoredChunk] = field(default_factory=dict)
    live: dict[EntityId, EntityId] = field(default_factory=dict)


NO_GRAPH = GraphSignal()


def seed_passage_weights(
    lexical: Sequence[ChunkId],
    lexical_scores: Mapping[ChunkId, float],
    dense: Sequence[ChunkId],
    limit: int,
) -> dict[ChunkId, float]:
    """Restart weights for the first ``limit`` passages of the lexical and dense rankings."""
    weights: dict[ChunkId, float] = {}
    top = max((lexical_scores.get(chunk, 0.0) for chunk in lexical[:limit]), default=0.0)
    if top > 0:
        for chunk in lexical[:limit]:
            weights[chunk] = weights.get(chunk, 0.0) + lexical_scores.get(chunk, 0.0) / top
    for rank, chunk in enumerate(dense[:limit], start=1):
        weights[chunk] = weights.get(chunk, 0.0) + 1.0 / rank
    return weights


async def graph_signal(
    tenant: TenantId,
    *,
    graph: GraphStore,
    chunks: ChunkStore,
    seeds: Sequence[Entity],
    seed_passages: Mapping[ChunkId, float],
    held: Mapping[ChunkId, StoredChunk],
    live: Mapping[EntityId, EntityId],
    terms: Sequence[str],
    settings: RetrievalSettings,
) -> GraphSignal:
    """Walk from ``seeds`` and ``seed_passages``; ``held`` passages are not read again."""
    if not seeds and not seed_passages:
        return NO_GRAPH
    around = await read_neighbourhood(
        tenant,
        graph=graph,
        chunks=chunks,
        seeds=seeds,
        held=held,
        seed_passages=list(seed_passages),
        live=live,
        max_passages=settings.walk_passages,
        max_entities=settings.walk_entities,
        relationship_weight=settings.relationship_weight,
        max_linked=settings.walk_related_entities,
    )
    restart = _restart(around, seeds, seed_passages, settings.walk_passage_restart)
    scores = personalised_pagerank(around.links, restart, damping=settings.walk_damping)
    passages = _ranked(scores, PASSAGE)
    seed_ids = {entity.id for entity in seeds}
    known = {id_text(entity): entity for entity in around.entities}
    entities = [known[text] for text in _ranked(scores, ENTITY) if text in known]
    reached = [entity for entity in entities if entity not in seed_ids]
    evidence = _evidence(around)
    asked = set(terms)

    type_words: dict[str, int] = {}

    def asked_words(edge_type: str) -> int:
        found = type_words.get(edge_type)
        if found is None:
            found = type_words[edge_type] = len(asked & set(tokenize(edge_type.replace("_", " "))))
        return found

    def end_score(edge: Relationship) -> float:
        return scores.get(around.node(edge.subject_id), 0.0) + scores.get(
            around.node(edge.object_id), 0.0
        )

    relationships = sorted(
        around.relationships,
        key=lambda edge: (-asked_words(edge.type), -end_score(edge), id_text(edge.id)),
    )
    return GraphSignal(
        passages=[ChunkId(chunk) for chunk in passages],
        entities=reached,
        relationships=relationships,
        evidence={edge.id: evidence[edge.id] for edge in relationships if edge.id in evidence},
        read_entities=around.entities,
        read_passages=around.passages,
        live=around.live,
    )


def _restart(
    around: Neighbourhood,
    seeds: Sequence[Entity],
    seed_passages: Mapping[ChunkId, float],
    passage_share: float,
) -> dict[Node, float]:
    entity_weights = {
        entity_node(entity.id): 1.0 / max(1, len(entity.provenance.chunk_ids)) for entity in seeds
    }
    passage_weights = {passage_node(chunk): w for chunk, w in seed_passages.items() if w > 0}
    shares = (1.0 - passage_share, passage_share)
    if not passage_weights:
        shares = (1.0, 0.0)
    elif not entity_weights:
        shares = (0.0, 1.0)
    restart: dict[Node, float] = {}
    for weights, share in zip((entity_weights, passage_weights), shares, strict=True):
        total = sum(weights.values())
        if total > 0 and share > 0:
            for node, weight in weights.items():
                restart[node] = restart.get(node, 0.0) + share * weight / total
    return restart


def _ranked(scores: Mapping[Node, float], kind: str) -> list[str]:
    return [
        node[1]
        for node in sorted(
            (node for node in scores if node[0] == kind), key=lambda node: (-scores[node], node[1])
        )
    ]


def _evidence(around: Neighbourhood) -> dict[RelationshipId, list[ChunkId]]:
    """Each relationship's evidence: its provenance chunks, else the neighbourhood's passages
    naming both of its ends."""
    naming: dict[EntityId, set[ChunkId]] = {}
    for chunk in around.passages.values():
        for named in chunk.entity_ids:
            if named in around.live:
                naming.setdefault(around.live[named], set()).add(chunk.id)
    evidence: dict[RelationshipId, list[ChunkId]] = {}
    for edge in around.relationships:
        if edge.provenance.chunk_ids:
            evidence[edge.id] = list(dict.fromkeys(edge.provenance.chunk_ids))
        else:
            both = naming.get(
                around.live.get(edge.subject_id, edge.subject_id), set()
            ) & naming.get(around.live.get(edge.object_id, edge.object_id), set())
            if both:
                evidence[edge.id] = sorted(both)
    return evidence
