"""The ``hop`` signal: the passages about the entity the best passages lead to (ADR 0049).

A multi-hop question names one thing and asks about another that only the first one's
passage names ("who directed the film shot in Leland?": the passage on Leland names
*Maximum Overdrive*, the passage about *Maximum Overdrive* says who directed it). Neither
BM25 nor the passage vectors find the second passage: it shares few words with the question.
The walk (:mod:`~redstring.retrieval.graph_signal`) reaches it, but its scores stay dominated
by the passages it restarts from, so the second passage ranks below ten first-hop ones.

So the second hop is ranked on its own. Each of the first ``hop_from`` passages of the first
round (BM25 and passage vectors fused) leads to one *bridge*: the entity, not one the
question names, of its sentence that best matches the question (the ``mentions`` order of
:func:`~redstring.retrieval.assembly.by_sentence`). The ranking holds the passages *about* a
bridge: a full name of it opens the passage (the first name of its first line, a title, a
heading or the first sentence, as encyclopaedias, manuals and profiles open; names compared
through blocking keys, as the question's names are linked). They are ordered by the rank of
the first-hop passage that led there, then by the question's BM25 score, then by id; the
fusion takes the first ``hop_votes`` of them (one: a question's second hop is one passage).
Work is bounded: one ``get_entities`` of at most ``hop_entities`` entities, one ``get_many``
of at most ``hop_passages`` passages.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, TenantId
from redstring.domain.models import Entity
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.graph_store import GraphStore
from redstring.retrieval.aboutness import names_in_opening, opens_about
from redstring.retrieval.assembly import by_sentence

__all__ = ["hop_passages"]


async def hop_passages(
    tenant: TenantId,
    question: str,
    *,
    graph: GraphStore,
    chunks: ChunkStore,
    first: Sequence[ChunkId],
    held: Mapping[ChunkId, StoredChunk],
    live: Mapping[EntityId, EntityId],
    asked: Collection[EntityId],
    lexical_scores: Mapping[ChunkId, float],
    max_entities: int,
    max_passages: int,
) -> tuple[list[ChunkId], dict[ChunkId, StoredChunk]]:
    """The second-hop ranking from the ``first`` passages (best first), and what was read.

    ``held`` passages are not read again; ``live`` resolves their entity ids; ``asked`` are
    the question's own entities (never a bridge). A passage of ``first`` is never ranked.
    """
    hop_rank: dict[EntityId, int] = {}
    for rank, chunk_id in enumerate(first):
        chunk = held.get(chunk_id)
        if chunk is None:
            continue
        for named in chunk.entity_ids:
            live_id = live.get(named)
            if live_id is not None and live_id not in asked:
                hop_rank.setdefault(live_id, rank)
    if not hop_rank or max_entities == 0 or max_passages == 0:
        return [], {}
    chosen = sorted(hop_rank, key=lambda entity: (hop_rank[entity], str(entity)))[:max_entities]
    found = await graph.get_entities(tenant, chosen)
    # One bridge per first-hop passage: the entity named in its sentence that best matches the
    # question (the ``mentions`` order), where the passage answers the question's first part.
    # Its other entities lead nowhere the question asks about, and when the bridge has no
    # passage of its own, voting for theirs only crowds the head of the fusion.
    order = by_sentence(
        question,
        [chunk for chunk in first if chunk in held],
        held,
        live,
        [entity for entity in chosen if entity in found],
        found,
    )
    bridges: dict[int, Entity] = {}
    for entity_id in order:
        bridges.setdefault(hop_rank[entity_id], found[entity_id])
    skip = set(first)
    leads: dict[ChunkId, list[Entity]] = {}
    for bridge in bridges.values():
        for chunk_id in bridge.provenance.chunk_ids:
            if chunk_id in skip:
                continue
            if chunk_id not in leads and len(leads) >= max_passages:
                continue
            leads.setdefault(chunk_id, []).append(bridge)
    unread = [chunk_id for chunk_id in leads if chunk_id not in held]
    read = await chunks.get_many(tenant, unread) if unread else {}
    texts = {**{c: held[c] for c in leads if c in held}, **read}
    best: dict[ChunkId, int] = {}
    for chunk_id, entities in leads.items():
        passage = texts.get(chunk_id)
        if passage is None:
            continue
        opening = names_in_opening(passage.text)
        about = [hop_rank[e.id] for e in entities if opens_about(opening, e)]
        if about:
            best[chunk_id] = min(about)
    ranking = sorted(
        best, key=lambda chunk: (best[chunk], -lexical_scores.get(chunk, 0.0), str(chunk))
    )
    return ranking, dict(read)
