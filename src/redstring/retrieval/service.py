"""Retriever: one question in, fused and cited evidence out, from the ports alone.

Signals, each a ranking (see :mod:`redstring.retrieval.results` for their names):

* ``entity_vector``: the query embedding searched over entity embeddings. What an entity's
  embedding holds is the core's decision (``projections.projector.entity_text``), relied on
  here: ``"{name} ({type}). Also known as {other names}. {description}"`` with metadata
  ``{"entity_type", "name"}``, so a nickname or an alternate spelling finds its entity.
* ``passage_vector``: the same query vector over passage embeddings, in a second
  VectorStore keyed by :func:`redstring.projections.passage_vectors.passage_vector_id`
  (optional: without that store the signal is absent).
* ``lexical``: ``ChunkStore.lexical_candidates`` ranked by ``domain.chunk_ranking.bm25``.
* ``graph``: from the top entities (the *seeds*: entity-vector hits fused with the entities
  the best passages name), their neighbours to ``depth``, the relationships among the
  entities reached, and the passages that evidence those relationships (the relationship's
  provenance chunks, else the passages naming both ends, through
  ``ChunkStore.get_by_entity``).
* ``mentions``: entities named by the fused passages, and relationships evidenced by them.
* ``names``: the entities the question names, linked by looking the question's candidate
  names up under the graph's blocking keys (:mod:`redstring.retrieval.linking`), for the
  entity types of the schema.

Passages, entities and relationships are each fused by reciprocal rank fusion
(:mod:`redstring.retrieval.fusion`). A query makes no model call: the only model is the
embedding provider's ``embed_query``, and with a ``Cache`` its vector is cached by model
and text. Independent reads run concurrently.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from redstring.domain.chunk_ranking import (
    DEFAULT_POSTING_BUDGET,
    LexicalCandidate,
    LexicalCandidates,
    bm25,
    query_terms,
    tokenize,
)
from redstring.domain.chunks import StoredChunk
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, TenantId, id_text, tenant_id
from redstring.domain.models import Entity, Relationship
from redstring.domain.name_forms import normalise_name
from redstring.domain.schema import DEFAULT_SCHEMA
from redstring.ports.cache import Cache
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.projections.passage_vectors import passage_chunk_id
from redstring.retrieval.fusion import Fused, KeyT, fuse
from redstring.retrieval.linking import (
    AMBIGUOUS_BUCKET,
    Links,
    link_ranking,
    name_spans,
    span_keys,
)
from redstring.retrieval.results import (
    ENTITY_VECTOR,
    GRAPH,
    LEXICAL,
    MENTIONS,
    NAMES,
    PASSAGE_VECTOR,
    QueryResult,
    RetrievedEntity,
    RetrievedPassage,
    RetrievedRelationship,
)
from redstring.retrieval.sentences import score_sentences

__all__ = ["RetrievalSettings", "Retriever"]

QUERY_VECTOR_KEY_PREFIX = "redstring:query-vector:"

_SWITCHABLE = frozenset({ENTITY_VECTOR, PASSAGE_VECTOR, LEXICAL, GRAPH, NAMES})


@dataclass(frozen=True)
class RetrievalSettings:
    """How much each signal contributes and how the graph is expanded.

    ``per_signal`` hits are taken from each signal before fusion; ``seeds`` entities start
    the graph expansion, each contributing at most ``per_signal`` neighbours; the passages
    naming the first ``passage_entities`` entities reached are graph candidates;
    ``evidence_relationships`` relationships have their evidence looked up; ``rrf_k`` is
    the fusion constant, 5 rather than RRF's customary 60 because two passage rankings
    (graph, names) are ordered by BM25 too, and a large constant lets their agreement
    outvote a passage that BM25 alone ranks near the top (ADR 0026);
    ``posting_budget`` is passed to ``lexical_candidates`` (ADR 0020); query vectors stay in
    the cache for ``query_vector_ttl_seconds`` (``None``: no expiry). ``signals`` names the
    signals that run (``None``: all of ``entity_vector``, ``passage_vector``, ``lexical``,
    ``graph``, ``names``); ``mentions`` is derived from the others and always runs. Turning
    signals off is for measuring each one alone, as ``benchmarks/retrieval_quality.py`` does.
    """

    per_signal: int = 10
    seeds: int = 3
    passage_entities: int = 10
    evidence_relationships: int = 10
    rrf_k: int = 5
    posting_budget: int | None = DEFAULT_POSTING_BUDGET
    query_vector_ttl_seconds: float | None = 7 * 24 * 3600.0
    signals: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.signals is not None and not self.signals <= _SWITCHABLE:
            raise InvalidArgumentError(
                f"unknown signals {sorted(self.signals - _SWITCHABLE)}: choose from "
                f"{sorted(_SWITCHABLE)}"
            )
        for name in ("per_signal", "seeds", "passage_entities", "evidence_relationships", "rrf_k"):
            value = getattr(self, name)
            if value < 0:
                raise InvalidArgumentError(f"{name} must be non-negative, got {value}")
        ttl = self.query_vector_ttl_seconds
        if ttl is not None and not ttl > 0:
            raise InvalidArgumentError(f"query_vector_ttl_seconds must be positive, got {ttl}")


@dataclass(frozen=True)
class _Expansion:
    """What the graph signal reached, each list in the signal's rank order."""

    reached: list[EntityId]
    entities: dict[EntityId, Entity]
    relationships: list[Relationship]
    evidence: dict[RelationshipId, list[ChunkId]]
    passages: list[ChunkId]
    fetched: dict[ChunkId, StoredChunk]


_NO_EXPANSION = _Expansion([], {}, [], {}, [], {})
_NO_LINKS = Links([], [])


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
    ) -> None:
        """``link_types`` are the entity types the ``names`` signal looks question names up
        as (``None``: the types of :data:`~redstring.domain.schema.DEFAULT_SCHEMA`)."""
        self._graph = graph
        self._vectors = vectors
        self._chunks = chunks
        self._embeddings = embeddings
        self._passage_vectors = passage_vectors
        self._cache = cache
        self._settings = settings or RetrievalSettings()
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
        ``None`` means every type. ``depth`` is how many hops the graph signal expands
        from the seeds; 0 turns it off. Deterministic for a given state of the stores.
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
        if not self._runs(GRAPH):
            depth = 0
        needs_vector = self._runs(ENTITY_VECTOR) or (
            self._passage_vectors is not None and self._runs(PASSAGE_VECTOR)
        )
        vector = await self.query_vector(text) if needs_vector else []
        terms = query_terms(text)
        (
            entity_hits,
            passage_hits,
            (lexical_hits, lexical_scores, stats),
            links,
        ) = await asyncio.gather(
            self._entity_signal(tenant_key, vector, wanted, terms),
            self._passage_signal(tenant_key, vector),
            self._lexical_signal(tenant_key, terms),
            self._name_signal(tenant_key, text, wanted),
        )
        linked = links.entities
        first = self._fuse({PASSAGE_VECTOR: passage_hits, LEXICAL: lexical_hits})
        held = await self._chunks.get_many(tenant_key, [item.key for item in first])
        named, _ = await self._resolved_mentions(tenant_key, first, held)
        seeds = [
            item.key
            for item in self._fuse({ENTITY_VECTOR: entity_hits, MENTIONS: named, NAMES: linked})
        ][: settings.seeds]
        expansion, (naming_linked, linked_fetched) = await asyncio.gather(
            self._expand(tenant_key, seeds, depth, lexical_scores, terms),
            self._linked_passages(tenant_key, links, terms, stats),
        )
        held.update(expansion.fetched)
        held.update(linked_fetched)
        passage_rankings = {
            PASSAGE_VECTOR: passage_hits,
            LEXICAL: lexical_hits,
            NAMES: naming_linked,
        }
        if depth > 0:
            passage_rankings[GRAPH] = expansion.passages
        fused_passages = self._fuse(passage_rankings)
        missing = [item.key for item in fused_passages[:k] if item.key not in held]
        if missing:
            held.update(await self._chunks.get_many(tenant_key, missing))
        top_passages = [item for item in fused_passages if item.key in held][:k]
        markers = {item.key: f"P{number}" for number, item in enumerate(top_passages, 1)}
        passages = tuple(_passage(held[item.key], markers[item.key], item) for item in top_passages)
        mentioned, live = await self._resolved_mentions(tenant_key, top_passages, held)
        entity_rankings = {ENTITY_VECTOR: entity_hits, MENTIONS: mentioned, NAMES: linked}
        if depth > 0:
            entity_rankings[GRAPH] = expansion.reached
        stored = dict(expansion.entities)
        unknown = {
            entity
            for name, ranking in entity_rankings.items()
            for entity in (ranking if name == MENTIONS else ranking[: settings.per_signal])
            if entity not in stored
        }
        if unknown:
            stored.update(await self._graph.get_entities(tenant_key, sorted(unknown, key=str)))
        entity_rankings[MENTIONS] = _by_sentence(
            text, [item.key for item in top_passages], held, live, mentioned, stored
        )
        entities = self._entities(self._fuse(entity_rankings), stored, wanted, k)
        names = {found.entity.id: found.entity.name for found in entities}
        names.update({key: entity.name for key, entity in expansion.entities.items()})
        relationships = self._relationships(expansion, markers, names, k)
        signal_hits = {
            ENTITY_VECTOR: len(entity_hits),
            LEXICAL: len(lexical_hits),
            MENTIONS: len(mentioned),
            NAMES: len(linked),
        }
        if self._passage_vectors is not None:
            signal_hits[PASSAGE_VECTOR] = len(passage_hits)
        if depth > 0:
            signal_hits[GRAPH] = len(expansion.reached) + len(expansion.relationships)
        return QueryResult(
            tenant_id=tenant_key,
            question=text,
            passages=passages,
            entities=tuple(
                found.model_copy(
                    update={"passages": _markers_naming(found.entity.id, passages, live)}
                )
                for found in entities
            ),
            relationships=relationships,
            signal_hits=signal_hits,
        )

    async def query_vector(self, text: str) -> list[float]:
        """The query-side embedding of ``text``, from the cache when one holds it.

        Cached under the embedding model and a SHA-256 of the text, so a model change never
        reuses another model's vector. A cached value of the wrong shape is recomputed.
        """
        if self._cache is None:
            return (await self._embeddings.embed_query([text]))[0]
        digest = hashlib.sha256(f"{self._embeddings.model}\x1f{text}".encode()).hexdigest()
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

    # -- signals -----------------------------------------------------------------------------

    def _fuse(self, rankings: Mapping[str, Sequence[KeyT]]) -> list[Fused[KeyT]]:
        """RRF over the head of each ranking: ``per_signal`` items each, so a signal that
        lists everything cannot outvote one that ranks well."""
        head = {name: ranking[: self._settings.per_signal] for name, ranking in rankings.items()}
        return fuse(head, k=self._settings.rrf_k)

    def _runs(self, signal: str) -> bool:
        return self._settings.signals is None or signal in self._settings.signals

    async def _entity_signal(
        self,
        tenant: TenantId,
        vector: list[float],
        wanted: frozenset[str] | None,
        terms: Sequence[str],
    ) -> list[EntityId]:
        """Entity-vector hits; those whose name the question mostly spells out come first.

        A name written in the question is stronger evidence than a nearby vector, and a
        small embedding model often misses it: a hit whose name has at least half of its
        tokens among the question's terms moves ahead, the more of them the earlier.
        """
        if (wanted is not None and not wanted) or not self._runs(ENTITY_VECTOR):
            return []
        hits = await self._vectors.search(
            tenant, vector, k=self._settings.per_signal, entity_types=wanted
        )
        asked = set(terms)

        def spelled(metadata: Mapping[str, object]) -> float:
            name = metadata.get("name")
            tokens = set(tokenize(name)) if isinstance(name, str) else set()
            share = len(tokens & asked) / len(tokens) if tokens else 0.0
            return share if share >= 0.5 else 0.0

        order = sorted(enumerate(hits), key=lambda pair: (-spelled(pair[1].metadata), pair[0]))
        return [hit.entity_id for _, hit in order]

    async def _name_signal(
        self, tenant: TenantId, text: str, wanted: frozenset[str] | None
    ) -> Links:
        """The entities the question names, strongest link first (one batched key read)."""
        types = self._link_types if wanted is None else self._link_types & wanted
        if not types or not self._runs(NAMES):
            return _NO_LINKS
        spans = name_spans(text)
        keys = {span: span_keys(span, types) for span in spans}
        wanted_keys = {key for per_span in keys.values() for key in per_span}
        if not wanted_keys:
            return _NO_LINKS
        limit = AMBIGUOUS_BUCKET + 1
        found = await self._graph.find_by_blocking_keys(tenant, wanted_keys, limit_per_key=limit)
        return link_ranking(spans, keys, found, limit_per_key=limit)

    async def _linked_passages(
        self,
        tenant: TenantId,
        links: Links,
        terms: Sequence[str],
        stats: LexicalCandidates | None,
    ) -> tuple[list[ChunkId], dict[ChunkId, StoredChunk]]:
        """The passages naming the first ``seeds`` linked entities, and the passages read.

        Every one of them names the entity, so what orders them is the rest of the
        question: BM25 over the question's terms that are not words of a linking name
        ("press", "publishes" for "Which press publishes Tides of Change?"), scored on each
        passage's own text with the corpus statistics of the lexical signal; then the
        stronger link, then id.
        """
        chosen = links.entities[: self._settings.seeds]
        if not chosen:
            return [], {}
        naming = await asyncio.gather(*(self._chunks.get_by_entity(tenant, e) for e in chosen))
        link_rank: dict[ChunkId, int] = {}
        fetched: dict[ChunkId, StoredChunk] = {}
        for rank, chunks in enumerate(naming):
            for chunk in chunks:
                fetched.setdefault(chunk.id, chunk)
                link_rank.setdefault(chunk.id, rank)
        scores = _rest_of_question_scores(fetched, links, terms, stats)
        ranking = sorted(
            link_rank, key=lambda chunk: (-scores.get(chunk, 0.0), link_rank[chunk], chunk)
        )
        return ranking, fetched

    async def _passage_signal(self, tenant: TenantId, vector: list[float]) -> list[ChunkId]:
        if self._passage_vectors is None or not self._runs(PASSAGE_VECTOR):
            return []
        hits = await self._passage_vectors.search(tenant, vector, k=self._settings.per_signal)
        found = (passage_chunk_id(hit.metadata) for hit in hits)
        return list(dict.fromkeys(chunk for chunk in found if chunk is not None))

    async def _lexical_signal(
        self, tenant: TenantId, terms: Sequence[str]
    ) -> tuple[list[ChunkId], dict[ChunkId, float], LexicalCandidates | None]:
        """The BM25 ranking's head, every candidate's score (the graph ranks by it), and the
        statistics they came from."""
        if not terms or not self._runs(LEXICAL):
            return [], {}, None
        stats = await self._chunks.lexical_candidates(
            tenant, terms, posting_budget=self._settings.posting_budget
        )
        ranked = bm25(stats, terms)
        head = [hit.chunk_id for hit in ranked[: self._settings.per_signal]]
        return head, {hit.chunk_id: hit.score for hit in ranked}, stats

    async def _resolved_mentions(
        self,
        tenant: TenantId,
        ranked: Sequence[Fused[ChunkId]],
        held: Mapping[ChunkId, StoredChunk],
    ) -> tuple[list[EntityId], dict[EntityId, EntityId]]:
        """Entities named by the ranked passages, resolved to the live entity (a merged-away
        id counts as its survivor; an unknown id is dropped), and the resolution of every id.

        Ordered by first mention in passage order. (Weighting an entity by the summed scores
        of the passages naming it measured worse: question entities, named everywhere, then
        crowd out the answers.)
        """
        weight: dict[EntityId, float] = {}
        for item in ranked:
            if item.key in held:
                for entity in dict.fromkeys(held[item.key].entity_ids):
                    weight[entity] = weight.get(entity, 0.0) + item.score
        if not weight:
            return [], {}
        live = await self._graph.resolve_entity_ids(tenant, list(weight))
        merged: dict[EntityId, float] = {}
        for entity, score in weight.items():
            if entity in live:
                merged[live[entity]] = merged.get(live[entity], 0.0) + score
        order = {entity: rank for rank, entity in enumerate(merged)}
        ranking = sorted(merged, key=lambda entity: order[entity])
        return ranking, live

    async def _expand(
        self,
        tenant: TenantId,
        seeds: Sequence[EntityId],
        depth: int,
        lexical_scores: Mapping[ChunkId, float],
        terms: Sequence[str],
    ) -> _Expansion:
        """The graph signal: what the seeds reach, ranked by how the question reads there.

        Candidates are the passages naming the first ``passage_entities`` entities reached
        (seeds first) and the evidence of the relationships among everything reached. They
        rank by their BM25 score for the question (the graph narrows, the question orders),
        then by how early their entity was reached. Relationships rank by how many words of
        their type the question uses ("founded" for FOUNDED), then by their best passage, then
        by how early their ends were reached; entities rank as the seeds, then the ends of the
        relationships in that order, then by the first graph passage naming them.
        """
        if depth == 0 or not seeds:
            return _NO_EXPANSION
        settings = self._settings
        seed_entities, per_seed = await asyncio.gather(
            self._graph.get_entities(tenant, seeds),
            asyncio.gather(*(self._graph.neighbours(tenant, seed, depth=depth) for seed in seeds)),
        )
        # By depth first, then by seed rank, so a seed's close neighbours come before another
        # seed's distant ones.
        ordered = sorted(
            (
                (found.depth, seed_rank, position, found.entity)
                for seed_rank, neighbours in enumerate(per_seed)
                for position, found in enumerate(neighbours[: settings.per_signal])
            ),
            key=lambda row: row[:3],
        )
        entities: dict[EntityId, Entity] = dict(seed_entities)
        for _, _, _, neighbour in ordered:
            entities.setdefault(neighbour.id, neighbour)
        reached = list(dict.fromkeys([*seeds, *entities]))
        position = {entity: rank for rank, entity in enumerate(reached)}
        described = reached[: settings.passage_entities]
        touching, naming = await asyncio.gather(
            self._graph.get_relationships_for(tenant, reached),
            asyncio.gather(*(self._chunks.get_by_entity(tenant, e) for e in described)),
        )
        fetched = {chunk.id: chunk for chunks in naming for chunk in chunks}
        # How early a passage's graph connection was reached: its earliest entity, or the
        # position of the relationship it evidences.
        reach: dict[ChunkId, int] = {}
        for described_id, chunks in zip(described, naming, strict=True):
            at = position[described_id]
            for chunk in chunks:
                reach[chunk.id] = min(reach.get(chunk.id, at), at)
        relationships = sorted(
            (
                edge
                for edge in touching
                if edge.subject_id in position and edge.object_id in position
            ),
            key=lambda edge: (
                min(position[edge.subject_id], position[edge.object_id]),
                max(position[edge.subject_id], position[edge.object_id]),
                id_text(edge.id),
            ),
        )
        evidence = self._evidence(
            relationships[: settings.evidence_relationships], naming, described
        )
        by_id = {edge.id: edge for edge in relationships}
        for edge_id, evidenced in evidence.items():
            edge = by_id[edge_id]
            near = max(position[edge.subject_id], position[edge.object_id])
            for evidence_id in evidenced:
                reach[evidence_id] = min(reach.get(evidence_id, near), near)
        passages = sorted(
            reach, key=lambda chunk: (-lexical_scores.get(chunk, 0.0), reach[chunk], chunk)
        )
        passage_rank = {chunk: rank for rank, chunk in enumerate(passages)}
        first_named: dict[EntityId, int] = {}
        for chunk_id in passages:
            held = fetched.get(chunk_id)
            for named_id in held.entity_ids if held is not None else ():
                if named_id in position:
                    first_named.setdefault(named_id, passage_rank[chunk_id])
        unnamed = len(passages)
        asked = set(terms)
        relationships.sort(
            key=lambda edge: (
                -len(asked & set(tokenize(edge.type.replace("_", " ")))),
                min(
                    (passage_rank[c] for c in evidence.get(edge.id, ()) if c in passage_rank),
                    default=unnamed,
                ),
                max(position[edge.subject_id], position[edge.object_id]),
                id_text(edge.id),
            )
        )
        by_passage = sorted(
            reached,
            key=lambda reached_id: (first_named.get(reached_id, unnamed), position[reached_id]),
        )
        ends = [end for edge in relationships for end in (edge.subject_id, edge.object_id)]
        graph_entities = [
            entity for entity in dict.fromkeys([*ends, *by_passage]) if entity not in seeds
        ]
        return _Expansion(graph_entities, entities, relationships, evidence, passages, fetched)

    @staticmethod
    def _evidence(
        relationships: Sequence[Relationship],
        naming: Sequence[list[StoredChunk]],
        described: Sequence[EntityId],
    ) -> dict[RelationshipId, list[ChunkId]]:
        """Each relationship's evidence passages: its provenance chunks, else the passages
        naming both of its ends (among the entities whose passages were read)."""
        named = {
            entity: {chunk.id for chunk in chunks}
            for entity, chunks in zip(described, naming, strict=True)
        }
        evidence: dict[RelationshipId, list[ChunkId]] = {}
        for edge in relationships:
            if edge.provenance.chunk_ids:
                evidence[edge.id] = list(dict.fromkeys(edge.provenance.chunk_ids))
            elif edge.subject_id in named and edge.object_id in named:
                evidence[edge.id] = sorted(named[edge.subject_id] & named[edge.object_id])
        return evidence

    # -- assembly ----------------------------------------------------------------------------

    @staticmethod
    def _entities(
        fused: list[Fused[EntityId]],
        stored: Mapping[EntityId, Entity],
        wanted: frozenset[str] | None,
        k: int,
    ) -> list[RetrievedEntity]:
        """The ``k`` best entities of the wanted types, the passages' own first.

        An entity the returned passages name ranks by its ``mentions`` rank (passage order,
        and within a passage the sentences that best match the question first), ahead of any
        they do not name; ties and the unnamed rank by fused score. On the gold question set
        every other order measured worse for answer entities: entity vectors and the graph
        mostly find the entities a question names, and a vote from each outweighed the
        passages' evidence of the answer (docs/benchmarks.md). Letting the ``names`` signal's
        first entity lead helped before the sentence order existed, and no longer did after.
        """
        unnamed = len(fused) + 1
        fused = sorted(fused, key=lambda item: (item.ranks.get(MENTIONS, unnamed), -item.score))
        chosen = []
        for item in fused:
            entity = stored.get(item.key)
            if entity is None or (wanted is not None and entity.type not in wanted):
                continue
            chosen.append(RetrievedEntity(entity=entity, score=item.score, ranks=item.ranks))
            if len(chosen) == k:
                break
        return chosen

    def _relationships(
        self,
        expansion: _Expansion,
        markers: Mapping[ChunkId, str],
        names: Mapping[EntityId, str],
        k: int,
    ) -> tuple[RetrievedRelationship, ...]:
        by_id = {edge.id: edge for edge in expansion.relationships}
        cited = {
            edge_id: tuple(markers[chunk] for chunk in chunks if chunk in markers)
            for edge_id, chunks in expansion.evidence.items()
        }
        by_passage = sorted(
            (edge_id for edge_id, found in cited.items() if found),
            key=lambda edge_id: (min(int(m[1:]) for m in cited[edge_id]), str(edge_id)),
        )
        rankings: dict[str, Sequence[RelationshipId]] = {
            GRAPH: [edge.id for edge in expansion.relationships],
            MENTIONS: by_passage,
        }
        fused = self._fuse(rankings)
        chosen = []
        for item in fused[:k]:
            edge = by_id[item.key]
            chosen.append(
                RetrievedRelationship(
                    relationship=edge,
                    subject_name=names.get(edge.subject_id, id_text(edge.subject_id)),
                    object_name=names.get(edge.object_id, id_text(edge.object_id)),
                    score=item.score,
                    ranks=item.ranks,
                    passages=cited.get(edge.id, ()),
                )
            )
        return tuple(chosen)


def _by_sentence(
    question: str,
    passages: Sequence[ChunkId],
    held: Mapping[ChunkId, StoredChunk],
    live: Mapping[EntityId, EntityId],
    mentioned: Sequence[EntityId],
    stored: Mapping[EntityId, Entity],
) -> list[EntityId]:
    """The ``mentions`` ranking: entities in the order of the first returned passage naming
    them; within one passage, those named in its sentences that best match the question
    first (:func:`~redstring.retrieval.sentences.score_sentences`), then first mention.

    A passage of a thousand characters names a dozen entities; the sentence that matches the
    question says which of them it is about. An entity is found in a sentence by any name it
    was seen under (its ``n:`` blocking keys hold them, normalised) or its own name.
    """
    first: dict[EntityId, int] = {}
    for rank, chunk in enumerate(passages):
        for named in held[chunk].entity_ids:
            if named in live:
                first.setdefault(live[named], rank)
    scored = [
        (sentence.rank, f" {_folded(sentence.text)} ", sentence.score)
        for sentence in score_sentences(question, [held[chunk].text for chunk in passages])
        if sentence.score > 0
    ]

    def best(entity_id: EntityId) -> float:
        entity, rank = stored.get(entity_id), first.get(entity_id)
        if entity is None or rank is None:
            return 0.0
        names = _surface_names(entity)
        return max(
            (
                score
                for at, text, score in scored
                if at == rank and any(f" {name} " in text for name in names)
            ),
            default=0.0,
        )

    position = {entity: index for index, entity in enumerate(mentioned)}
    unnamed = len(passages)
    return sorted(
        mentioned, key=lambda entity: (first.get(entity, unnamed), -best(entity), position[entity])
    )


def _folded(text: str) -> str:
    """``text`` as :func:`normalise_name` folds it, or ``""`` when it holds no letter or
    digit."""
    try:
        return normalise_name(text)
    except EmptyTextError:
        return ""


def _surface_names(entity: Entity) -> set[str]:
    """Every name ``entity`` was seen under, normalised: its ``n:`` keys and its name."""
    names = {_folded(entity.name)}
    for key in entity.blocking_keys:
        family = key.split("|", 1)[-1]
        if family.startswith("n:"):
            names.add(family[2:])
    names.discard("")
    return names


def _passage(chunk: StoredChunk, marker: str, item: Fused[ChunkId]) -> RetrievedPassage:
    return RetrievedPassage(
        marker=marker,
        chunk_id=chunk.id,
        source_id=chunk.source_id,
        chunk_index=chunk.chunk_index,
        text=chunk.text,
        entity_ids=chunk.entity_ids,
        score=item.score,
        ranks=item.ranks,
    )


def _markers_naming(
    entity: EntityId, passages: Iterable[RetrievedPassage], live: Mapping[EntityId, EntityId]
) -> tuple[str, ...]:
    """The markers of the passages naming ``entity`` directly or through a merged id."""
    return tuple(
        passage.marker
        for passage in passages
        if any(live.get(named) == entity for named in passage.entity_ids)
    )


def _rest_of_question_scores(
    passages: Mapping[ChunkId, StoredChunk],
    links: Links,
    terms: Sequence[str],
    stats: LexicalCandidates | None,
) -> dict[ChunkId, float]:
    """BM25 of each passage for the question's terms outside the linking names."""
    name_words = {word for span in links.spans for word in tokenize(span.text)}
    rest = [term for term in terms if term not in name_words]
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
