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
from redstring.retrieval.assembly import by_sentence
from redstring.retrieval.linking import NameSpan, name_spans, span_keys

FULL_NAME = 3
"""The link strength of the exact and sorted-token key families (``linking._STRENGTH``)."""

__all__ = ["OPENING_CHARS", "OPENING_NAME_WORDS", "hop_passages", "names_in_opening", "opens_about"]

OPENING_CHARS = 200
"""At most this much of a passage's first line is read for its subject."""

OPENING_NAME_WORDS = 3
"""A passage "opens with" a name that starts within the first this many words of its first
line ("Maximum Overdrive", "## About Okafor Laboratories", "The Philadelphia Eagles are")."""


def names_in_opening(text: str) -> list[NameSpan]:
    """The names a passage opens with: the first name of its first line (a title, a heading
    without its Markdown marks, or the first sentence) and the shorter names it begins with,
    when it starts within :data:`OPENING_NAME_WORDS` words. A headline that names a second thing
    later ("Halvard research chief moves to rival Okafor Labs") is not about the second."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = first.lstrip("#").strip()[:OPENING_CHARS]
    spans = name_spans(first) if first else []
    if not spans:
        return []
    start = min(span.start for span in spans)
    return [span for span in spans if span.start == start and start < OPENING_NAME_WORDS]


def opens_about(opening: Sequence[NameSpan], entity: Entity) -> bool:
    """Whether one of the ``opening`` names is a full name of ``entity``: an exact or
    sorted-token blocking key in common (legal suffixes, case and word order folded)."""
    keys = set(entity.blocking_keys)
    return any(
        key in keys
        for span in opening
        for key, strength in span_keys(span, [entity.type]).items()
        if strength >= FULL_NAME
    )


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
