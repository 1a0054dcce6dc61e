"""The first-round signals: each one read from one port, each a ranking of its own.

* ``entity_vector``: the query embedding searched over entity embeddings. What an entity's
  embedding holds is the core's decision (``projections.projector.entity_text``), relied on
  here: ``"{name} ({type}). Also known as {other names}. {description}"`` with metadata
  ``{"entity_type", "name"}``, so a nickname or an alternate spelling finds its entity.
* ``passage_vector``: the same query vector over passage embeddings, in a second VectorStore
  keyed by :func:`redstring.projections.passage_vectors.passage_vector_id`.
* ``lexical``: ``ChunkStore.lexical_candidates`` ranked by ``domain.chunk_ranking.bm25``.
* ``names``: the entities the question names, linked through the graph's blocking keys
  (:mod:`redstring.retrieval.linking`), and the passages naming them ordered by the rest of
  the question.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from redstring.domain.chunk_ranking import LexicalCandidate, LexicalCandidates, bm25, tokenize
from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, TenantId
from redstring.domain.models import Entity
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.projections.passage_vectors import passage_chunk_id
from redstring.retrieval.aboutness import names_in_opening, opens_about
from redstring.retrieval.linking import AMBIGUOUS_BUCKET, Links, link_ranking, name_spans, span_keys

__all__ = [
    "Lexical",
    "entity_hits",
    "lexical_hits",
    "linked_passages",
    "name_links",
    "passage_hits",
]

NO_LINKS = Links([], [], {})


@dataclass(frozen=True)
class Lexical:
    """The BM25 ranking's head, every candidate's score, and the statistics behind them."""

    head: list[ChunkId]
    scores: dict[ChunkId, float]
    stats: LexicalCandidates | None


NO_LEXICAL = Lexical([], {}, None)


async def entity_hits(
    vectors: VectorStore,
    tenant: TenantId,
    vector: list[float],
    *,
    wanted: frozenset[str] | None,
    terms: Sequence[str],
    limit: int,
) -> list[EntityId]:
    """Entity-vector hits; those whose name the question mostly spells out come first.

    A name written in the question is stronger evidence than a nearby vector, and a small
    embedding model often misses it: a hit whose name has at least half of its tokens among
    the question's terms moves ahead, the more of them the earlier.
    """
    if wanted is not None and not wanted:
        return []
    hits = await vectors.search(tenant, vector, k=limit, entity_types=wanted)
    asked = set(terms)

    def spelled(metadata: Mapping[str, object]) -> float:
        name = metadata.get("name")
        tokens = set(tokenize(name)) if isinstance(name, str) else set()
        share = len(tokens & asked) / len(tokens) if tokens else 0.0
        return share if share >= 0.5 else 0.0

    order = sorted(enumerate(hits), key=lambda pair: (-spelled(pair[1].metadata), pair[0]))
    return [hit.entity_id for _, hit in order]


async def passage_hits(
    passages: VectorStore, tenant: TenantId, vector: list[float], *, limit: int
) -> list[ChunkId]:
    hits = await passages.search(tenant, vector, k=limit)
    found = (passage_chunk_id(hit.metadata) for hit in hits)
    return list(dict.fromkeys(chunk for chunk in found if chunk is not None))


async def lexical_hits(
    chunks: ChunkStore,
    tenant: TenantId,
    terms: Sequence[str],
    *,
    limit: int,
    posting_budget: int | None,
) -> Lexical:
    if not terms:
        return NO_LEXICAL
    stats = await chunks.lexical_candidates(tenant, terms, posting_budget=posting_budget)
    ranked = bm25(stats, terms)
    return Lexical(
        [hit.chunk_id for hit in ranked[:limit]], {hit.chunk_id: hit.score for hit in ranked}, stats
    )


async def name_links(
    graph: GraphStore, tenant: TenantId, text: str, types: Collection[str]
) -> Links:
    """The entities the question names, strongest link first (one batched key read)."""
    if not types:
        return NO_LINKS
    spans = name_spans(text)
    keys = {span: span_keys(span, types) for span in spans}
    wanted_keys = {key for per_span in keys.values() for key in per_span}
    if not wanted_keys:
        return NO_LINKS
    limit = AMBIGUOUS_BUCKET + 1
    found = await graph.find_by_blocking_keys(tenant, wanted_keys, limit_per_key=limit)
    return link_ranking(spans, keys, found, limit_per_key=limit)


async def linked_passages(
    chunks: ChunkStore,
    tenant: TenantId,
    chosen: Sequence[EntityId],
    links: Links,
    terms: Sequence[str],
    stats: LexicalCandidates | None,
    *,
    limit: int | None = None,
) -> tuple[list[ChunkId], dict[ChunkId, StoredChunk]]:
    """The passages naming the ``chosen`` linked entities, and the passages read.

    Those *about* a chosen entity come first (it opens them: a title, a heading, a first
    sentence; :mod:`~redstring.retrieval.aboutness`): "Are Nantong and Jingdezhen in the same
    province?" wants the two passages on the cities, not the ones that mention both. Every
    passage names the entity, so what orders them next is the rest of the question:
    BM25 over the question's terms that are not words of a linking name ("press",
    "publishes" for "Which press publishes Tides of Change?"), scored on each passage's own
    text with the corpus statistics of the lexical signal; then the stronger link, then id.

    With a ``limit``, each entity's passages are read best first and cut in the store
    (ADR 0039): the lexical candidates' own statistics rank them before any is read, so an
    entity named in every passage costs ``limit`` passages, not the corpus.
    """
    if not chosen:
        return [], {}
    prefer = _ranked(_rest_of_question_candidates(links, terms, stats)) if limit else []
    naming = await asyncio.gather(
        *(chunks.get_by_entity(tenant, e, limit=limit, prefer=prefer) for e in chosen)
    )
    link_rank: dict[ChunkId, int] = {}
    fetched: dict[ChunkId, StoredChunk] = {}
    for rank, found in enumerate(naming):
        for chunk in found:
            fetched.setdefault(chunk.id, chunk)
            link_rank.setdefault(chunk.id, rank)
    scores = rest_of_question_scores(fetched, links, terms, stats)
    entities = [links.found[entity] for entity in chosen if entity in links.found]
    about = {
        chunk_id
        for chunk_id, chunk in fetched.items()
        if any(opens_about(names_in_opening(chunk.text), entity) for entity in entities)
    }
    ranking = sorted(
        link_rank,
        key=lambda chunk: (
            scores.get(chunk, 0.0) <= 0,
            chunk not in about,
            -scores.get(chunk, 0.0),
            link_rank[chunk],
            chunk,
        ),
    )
    return ranking, fetched


def _rest_words(links: Links, terms: Sequence[str]) -> list[str]:
    """The question's terms that are not words of a linking name."""
    name_words = {word for span in links.spans for word in tokenize(span.text)}
    return [term for term in terms if term not in name_words]


def _rest_of_question_candidates(
    links: Links, terms: Sequence[str], stats: LexicalCandidates | None
) -> dict[ChunkId, float]:
    """BM25 of the lexical candidates for the rest of the question, from the statistics
    alone (no passage read)."""
    rest = _rest_words(links, terms)
    if stats is None or not rest:
        return {}
    return {hit.chunk_id: hit.score for hit in bm25(stats, rest)}


def _ranked(scores: Mapping[ChunkId, float]) -> list[ChunkId]:
    """The chunks with a positive score, best first, then by id."""
    return sorted((c for c, score in scores.items() if score > 0), key=lambda c: (-scores[c], c))


def rest_of_question_scores(
    passages: Mapping[ChunkId, StoredChunk],
    links: Links,
    terms: Sequence[str],
    stats: LexicalCandidates | None,
) -> dict[ChunkId, float]:
    """BM25 of each passage for the question's terms outside the linking names."""
    rest = _rest_words(links, terms)
    asked = set(rest)
    if stats is None or not rest or not passages:
        return {}
    candidates = []
    for chunk in passages.values():
        tokens = tokenize(chunk.text)
        counts: dict[str, int] = {}
        for token in tokens:
            if token in asked:
                counts[token] = counts.get(token, 0) + 1
        candidates.append(
            LexicalCandidate(chunk_id=chunk.id, length=len(tokens), term_frequencies=counts)
        )
    own = stats.model_copy(update={"candidates": candidates})
    return {hit.chunk_id: hit.score for hit in bm25(own, rest)}


def linked_entities(links: Links, limit: int) -> list[Entity]:
    """The first ``limit`` linked entities as the key read returned them."""
    return [links.found[entity] for entity in links.entities[:limit] if entity in links.found]
