"""Retriever: one question in, fused and cited evidence out, from the ports alone.

The steps of :meth:`Retriever.query`, each in its own module:

1. the first-round signals, read concurrently (:mod:`~redstring.retrieval.signals`): entity
   vectors, passage vectors, BM25, the entities the question names;
2. the graph signal (:mod:`~redstring.retrieval.graph_signal`): a personalised PageRank walk
   from the named entities and the best passages over a bounded neighbourhood
   (:mod:`~redstring.retrieval.neighbourhood`, :mod:`~redstring.retrieval.walk`), beside the
   passages naming the linked entities, and the second hop
   (:mod:`~redstring.retrieval.second_hop`): the passage about the entity the best passages
   lead to;
3. weighted reciprocal rank fusion (:mod:`~redstring.retrieval.fusion`) of the passage
   rankings, then of the entity and relationship rankings;
4. assembly (:mod:`~redstring.retrieval.assembly`): the entities of the returned passages in
   the order their sentences match the question, relationships with cited evidence.

A query makes no model call: the only model is the embedding provider's ``embed_query``, and
with a ``Cache`` its vector is cached by model and text. With a
:class:`~redstring.projections.vector_space.VectorSpace`, a tenant whose vectors another model
made is answered without the two vector signals, and the result says so (ADR 0047).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections import OrderedDict
from collections.abc import Collection, Mapping, Sequence

from redstring.domain.chunk_ranking import query_terms
from redstring.domain.chunks import StoredChunk
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, TenantId, tenant_id
from redstring.domain.models import Entity
from redstring.domain.schema import DEFAULT_SCHEMA
from redstring.ports.cache import Cache
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.projections.vector_space import VectorSpace
from redstring.retrieval import signals
from redstring.retrieval.assembly import (
    by_sentence,
    chosen_entities,
    markers_naming,
    passage_result,
    relationship_results,
    resolved_mentions,
)
from redstring.retrieval.fusion import Fused, KeyT, fuse
from redstring.retrieval.graph_signal import (
    NO_GRAPH,
    GraphSignal,
    graph_signal,
    seed_passage_weights,
)
from redstring.retrieval.linking import Links
from redstring.retrieval.results import (
    ENTITY_VECTOR,
    GRAPH,
    HOP,
    LEXICAL,
    MENTIONS,
    NAMES,
    PASSAGE_VECTOR,
    QueryResult,
    RetrievedRelationship,
)
from redstring.retrieval.second_hop import hop_passages
from redstring.retrieval.settings import RetrievalSettings

__all__ = ["QUERY_VECTOR_KEY_PREFIX", "Retriever"]

QUERY_VECTOR_KEY_PREFIX = "redstring:query-vector:"


class Retriever:
    """Answers ``query`` from the ports it is given; holds no state beyond them.

    Tenancy: every read names the tenant; nothing crosses tenants. Errors: a blank question
    raises :class:`EmptyTextError`, a negative ``k`` or ``depth`` and an invalid tenant id
    raise :class:`InvalidArgumentError`; store and cache errors propagate unchanged.
    """

    def __init__(
        self,
        *,
        graph: GraphStore,
        vectors: VectorStore,
        chunks: ChunkStore,
        embeddings: EmbeddingProvider,
        passage_vectors: VectorStore | None = None,
        cache: Cache | None = None,
        settings: RetrievalSettings | None = None,
        link_types: Collection[str] | None = None,
        vector_space: VectorSpace | None = None,
    ) -> None:
        """``link_types`` are the entity types the ``names`` signal looks question names up
        as (``None``: the types of :data:`~redstring.domain.schema.DEFAULT_SCHEMA`);
        ``vector_space`` says whether a tenant's vectors are this model's (``None``: they
        are taken to be)."""
        self._graph = graph
        self._vectors = vectors
        self._chunks = chunks
        self._embeddings = embeddings
        self._passage_vectors = passage_vectors
        self._cache = cache
        self._settings = settings or RetrievalSettings()
        self._space = vector_space
        self._kept: OrderedDict[str, list[float]] = OrderedDict()
        self._link_types = frozenset(
            (spec.name for spec in DEFAULT_SCHEMA.entity_types)
            if link_types is None
            else link_types
        )

    @property
    def settings(self) -> RetrievalSettings:
        """The settings this retriever runs with."""
        return self._settings

    async def query(
        self,
        tenant: str,
        text: str,
        *,
        k: int = 10,
        entity_types: Collection[str] | None = None,
        depth: int = 1,
    ) -> QueryResult:
        """The ``k`` best passages, entities and relationships for ``text``, fused and cited.

        ``entity_types`` limits the entities returned (and searched) to those types;
        ``None`` means every type. ``depth`` 0 turns the graph signal off; any other value
        walks the neighbourhood (two rings around the seeds, ADR 0034). Deterministic for a
        given state of the stores.
        """
        tenant_key = tenant_id(str(tenant))
        if not text.strip():
            raise EmptyTextError("the question is blank: pass text to retrieve evidence for")
        if k < 0:
            raise InvalidArgumentError(f"k must be non-negative, got {k}")
        if depth < 0:
            raise InvalidArgumentError(f"depth must be non-negative, got {depth}")
        wanted = None if entity_types is None else frozenset(entity_types)
        settings = self._settings
        walks = depth > 0 and self._runs(GRAPH)
        terms = query_terms(text)
        (entity_hits, passage_hits, stale), lexical, links = await self._first_round(
            tenant_key, text, terms, wanted
        )
        linked = links.entities
        first = self._fuse({PASSAGE_VECTOR: passage_hits, LEXICAL: lexical.head})
        held = await self._chunks.get_many(tenant_key, [item.key for item in first])
        named, live = await resolved_mentions(self._graph, tenant_key, first, held)
        seeds = await self._seeds(tenant_key, links, entity_hits, named)
        walked, (naming_linked, linked_fetched), (hopped, hop_read) = await asyncio.gather(
            self._walk(tenant_key, walks, seeds, lexical, passage_hits, held, live, terms),
            signals.linked_passages(
                self._chunks,
                tenant_key,
                linked[: settings.seeds],
                links,
                terms,
                lexical.stats,
                limit=settings.per_signal,
            ),
            self._hop(tenant_key, text, depth > 0, first, held, live, links, lexical),
        )
        held.update(walked.read_passages)
        held.update(hop_read)
        held.update(linked_fetched)
        passage_rankings = {
            PASSAGE_VECTOR: passage_hits,
            LEXICAL: lexical.head,
            NAMES: naming_linked,
        }
        if walks:
            passage_rankings[GRAPH] = walked.passages
        if depth > 0 and self._runs(HOP):
            passage_rankings[HOP] = hopped[: settings.hop_votes]
        fused_passages = self._fuse(passage_rankings)
        missing = [item.key for item in fused_passages[:k] if item.key not in held]
        if missing:
            held.update(await self._chunks.get_many(tenant_key, missing))
        top_passages = [item for item in fused_passages if item.key in held][:k]
        markers = {item.key: f"P{number}" for number, item in enumerate(top_passages, 1)}
        passages = tuple(
            passage_result(held[item.key], markers[item.key], item) for item in top_passages
        )
        mentioned, live = await resolved_mentions(self._graph, tenant_key, top_passages, held)
        entity_rankings: dict[str, Sequence[EntityId]] = {
            ENTITY_VECTOR: entity_hits,
            MENTIONS: mentioned,
            NAMES: linked,
        }
        if walks:
            entity_rankings[GRAPH] = walked.entities
        stored: dict[EntityId, Entity] = {**walked.read_entities, **links.found}
        unknown = {
            entity
            for name, ranking in entity_rankings.items()
            for entity in (ranking if name == MENTIONS else ranking[: settings.per_signal])
            if entity not in stored
        }
        if unknown:
            stored.update(await self._graph.get_entities(tenant_key, sorted(unknown, key=str)))
        entity_rankings[MENTIONS] = by_sentence(
            text, [item.key for item in top_passages], held, live, mentioned, stored
        )
        entities = chosen_entities(self._fuse(entity_rankings), stored, wanted, k)
        names = {found.entity.id: found.entity.name for found in entities}
        names.update({key: entity.name for key, entity in walked.read_entities.items()})
        relationships = self._relationships(walked, markers, names, k)
        signal_hits = {
            ENTITY_VECTOR: len(entity_hits),
            LEXICAL: len(lexical.head),
            MENTIONS: len(mentioned),
            NAMES: len(linked),
        }
        if self._passage_vectors is not None:
            signal_hits[PASSAGE_VECTOR] = len(passage_hits)
        if walks:
            signal_hits[GRAPH] = len(walked.entities) + len(walked.relationships)
        return QueryResult(
            tenant_id=tenant_key,
            question=text,
            passages=passages,
            entities=tuple(
                found.model_copy(
                    update={"passages": markers_naming(found.entity.id, passages, live)}
                )
                for found in entities
            ),
            relationships=relationships,
            signal_hits=signal_hits,
            notices=(self._space.stale_notice(tenant_key),) if stale and self._space else (),
        )

    async def query_vector(self, text: str) -> list[float]:
        """The query-side embedding of ``text``: from this process's last
        ``query_vectors_kept``, else from the cache when one holds it, else embedded.

        Kept and cached under the embedding model and a SHA-256 of the text, so a model
        change never reuses another model's vector. A cached value of the wrong shape is
        recomputed. A copy is returned: the caller may change it.
        """
        digest = hashlib.sha256(f"{self._embeddings.model}\x1f{text}".encode()).hexdigest()
        kept = self._kept.get(digest)
        if kept is not None:
            self._kept.move_to_end(digest)
            return list(kept)
        vector = await self._cached_or_embedded(digest, text)
        if self._settings.query_vectors_kept > 0:
            self._kept[digest] = list(vector)
            while len(self._kept) > self._settings.query_vectors_kept:
                self._kept.popitem(last=False)
        return vector

    async def _cached_or_embedded(self, digest: str, text: str) -> list[float]:
        if self._cache is None:
            return (await self._embeddings.embed_query([text]))[0]
        key = QUERY_VECTOR_KEY_PREFIX + digest
        cached = await self._cache.get(key)
        if cached is not None:
            vector = _decoded_vector(cached, self._embeddings.dimension)
            if vector is not None:
                return vector
        vector = (await self._embeddings.embed_query([text]))[0]
        await self._cache.set(
            key, json.dumps(vector), ttl_seconds=self._settings.query_vector_ttl_seconds
        )
        return vector

    # -- steps -------------------------------------------------------------------------------

    async def _first_round(
        self, tenant: TenantId, text: str, terms: Sequence[str], wanted: frozenset[str] | None
    ) -> tuple[tuple[list[EntityId], list[ChunkId], bool], signals.Lexical, Links]:
        """Entity and passage vectors (with whether they were off as another model's),
        BM25 and name links, read concurrently."""
        settings = self._settings
        types = self._link_types if wanted is None else self._link_types & wanted

        async def dense() -> tuple[list[EntityId], list[ChunkId], bool]:
            passages = self._passage_vectors is not None and self._runs(PASSAGE_VECTOR)
            if not (passages or self._runs(ENTITY_VECTOR)):
                return [], [], False
            if self._space is not None and not await self._space.current(tenant):
                return [], [], True
            vector = await self.query_vector(text)

            async def entity_hits() -> list[EntityId]:
                if not self._runs(ENTITY_VECTOR):
                    return []
                return await signals.entity_hits(
                    self._vectors,
                    tenant,
                    vector,
                    wanted=wanted,
                    terms=terms,
                    limit=settings.per_signal,
                )

            async def passage_hits() -> list[ChunkId]:
                if self._passage_vectors is None or not passages:
                    return []
                return await signals.passage_hits(
                    self._passage_vectors, tenant, vector, limit=settings.per_signal
                )

            found_entities, found_passages = await asyncio.gather(entity_hits(), passage_hits())
            return found_entities, found_passages, False

        async def lexical() -> signals.Lexical:
            if not self._runs(LEXICAL):
                return signals.NO_LEXICAL
            return await signals.lexical_hits(
                self._chunks,
                tenant,
                terms,
                limit=settings.per_signal,
                posting_budget=settings.posting_budget,
            )

        async def links() -> Links:
            if not self._runs(NAMES):
                return signals.NO_LINKS
            return await signals.name_links(self._graph, tenant, text, types)

        return await asyncio.gather(dense(), lexical(), links())

    async def _seeds(
        self,
        tenant: TenantId,
        links: Links,
        entity_hits: Sequence[EntityId],
        named: Sequence[EntityId],
    ) -> list[Entity]:
        """The walk's seed entities: the linked ones; with none, the best of entity vectors
        and of the first passages' mentions."""
        limit = self._settings.seeds
        chosen = signals.linked_entities(links, limit)
        if chosen or not self._runs(GRAPH):
            return chosen
        fallback = [item.key for item in self._fuse({ENTITY_VECTOR: entity_hits, MENTIONS: named})][
            :limit
        ]
        if not fallback:
            return []
        found = await self._graph.get_entities(tenant, fallback)
        return [found[entity] for entity in fallback if entity in found]

    async def _walk(
        self,
        tenant: TenantId,
        walks: bool,
        seeds: Sequence[Entity],
        lexical: signals.Lexical,
        passage_hits: Sequence[ChunkId],
        held: Mapping[ChunkId, StoredChunk],
        live: Mapping[EntityId, EntityId],
        terms: Sequence[str],
    ) -> GraphSignal:
        if not walks:
            return NO_GRAPH
        settings = self._settings
        return await graph_signal(
            tenant,
            graph=self._graph,
            chunks=self._chunks,
            seeds=seeds,
            seed_passages=seed_passage_weights(
                lexical.head, lexical.scores, passage_hits, settings.walk_seed_passages
            ),
            held=held,
            live=live,
            terms=terms,
            settings=settings,
        )

    async def _hop(
        self,
        tenant: TenantId,
        text: str,
        hops: bool,
        first: Sequence[Fused[ChunkId]],
        held: Mapping[ChunkId, StoredChunk],
        live: Mapping[EntityId, EntityId],
        links: Links,
        lexical: signals.Lexical,
    ) -> tuple[list[ChunkId], dict[ChunkId, StoredChunk]]:
        settings = self._settings
        if not hops or not self._runs(HOP):
            return [], {}
        return await hop_passages(
            tenant,
            text,
            graph=self._graph,
            chunks=self._chunks,
            first=[item.key for item in first[: settings.hop_from]],
            held=held,
            live=live,
            asked=set(links.entities),
            lexical_scores=lexical.scores,
            max_entities=settings.hop_entities,
            max_passages=settings.hop_passages,
        )

    def _relationships(
        self,
        walked: GraphSignal,
        markers: Mapping[ChunkId, str],
        names: Mapping[EntityId, str],
        k: int,
    ) -> tuple[RetrievedRelationship, ...]:
        by_id = {edge.id: edge for edge in walked.relationships}
        cited = {
            edge_id: tuple(markers[chunk] for chunk in chunks if chunk in markers)
            for edge_id, chunks in walked.evidence.items()
        }
        by_passage = sorted(
            (edge_id for edge_id, found in cited.items() if found),
            key=lambda edge_id: (min(int(m[1:]) for m in cited[edge_id]), str(edge_id)),
        )
        rankings: dict[str, Sequence[RelationshipId]] = {
            GRAPH: [
                edge.id for edge in walked.relationships[: self._settings.evidence_relationships]
            ],
            MENTIONS: by_passage,
        }
        return relationship_results(self._fuse(rankings), by_id, cited, names, k)

    def _fuse(self, rankings: Mapping[str, Sequence[KeyT]]) -> list[Fused[KeyT]]:
        """Weighted RRF over the head of each ranking: ``per_signal`` items each, so a signal
        that lists everything cannot outvote one that ranks well."""
        settings = self._settings
        head = {name: ranking[: settings.per_signal] for name, ranking in rankings.items()}
        return fuse(head, k=settings.rrf_k, weights=settings.weights)

    def _runs(self, signal: str) -> bool:
        return self._settings.signals is None or signal in self._settings.signals


def _decoded_vector(cached: str, dimension: int) -> list[float] | None:
    """The cached vector, or ``None`` when the value is not ``dimension`` finite numbers."""
    try:
        value = json.loads(cached)
    except ValueError:
        return None
    if not isinstance(value, list) or len(value) != dimension:
        return None
    if not all(isinstance(x, int | float) and math.isfinite(x) for x in value):
        return None
    return [float(x) for x in value]
