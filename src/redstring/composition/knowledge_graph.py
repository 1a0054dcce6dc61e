"""``KnowledgeGraph``: the one object a caller uses, built from ports.

Every method is tenant-scoped: the tenant is the first argument (a ``TenantId`` or a plain
string validated by :func:`~redstring.domain.ids.tenant_id`), and nothing one tenant does is
visible to another. The event log is the source of truth; the graph, vector and passage stores
are projections of it, which :meth:`KnowledgeGraph.rebuild` can replay from scratch.

Build one over ports you own (``KnowledgeGraph(graph=..., ...)``: ``close`` leaves them open),
or let :meth:`KnowledgeGraph.in_memory` / :meth:`KnowledgeGraph.on_postgres` build the stores
(``close``, or leaving ``async with``, then releases them).
"""

from __future__ import annotations

import re
from collections.abc import (
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Self

from pydantic import JsonValue

from redstring.domain.history import TenantHistory
from redstring.domain.ids import (
    EntityId,
    SourceId,
    TenantId,
    existing_source_id,
    source_id,
    tenant_id,
)
from redstring.domain.schema import DEFAULT_SCHEMA, Schema
from redstring.ingest.evidence_resolver import EvidenceResolver
from redstring.ingest.records import parse_jsonl, split_and_check
from redstring.ingest.reports import (
    DeleteReport,
    GraphSnapshot,
    GraphStats,
    ImportReport,
    IngestReport,
    MergeInfo,
    PossibleMatchInfo,
    SnapshotEntity,
    SourceInfo,
)
from redstring.ingest.resolution import Resolver
from redstring.ingest.service import GraphWriter, IngestSettings, Progress
from redstring.ports.cache import Cache
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.event_log import EventLog
from redstring.ports.extractor import Extractor
from redstring.ports.graph_store import GraphStore
from redstring.ports.llm_provider import LlmProvider
from redstring.ports.vector_store import VectorStore
from redstring.postgres.names import identifier
from redstring.projections.projector import Projector
from redstring.projections.vector_space import VectorSpace, space_key
from redstring.retrieval import Answer, Answerer, QueryResult, RetrievalSettings, Retriever


def _tenant(value: str) -> TenantId:
    return tenant_id(value)


class KnowledgeGraph:
    """Documents in, a multi-tenant knowledge graph out, built from ports.

    The embedding model is part of every vector's identity (ADR 0047): ``vectors`` and
    ``passage_vectors`` hold ``embeddings``' vectors, and the event log records, per tenant,
    which model made them. A tenant whose vectors another model made is answered without
    vector search (``QueryResult.notices`` says so) and gets no vectors of this model until
    :meth:`rebuild` re-embeds it; ``retired_vectors`` are other models' stores, emptied of a
    tenant when it is rebuilt or deleted.
    """

    def __init__(
        self,
        *,
        graph: GraphStore,
        vectors: VectorStore,
        chunks: ChunkStore,
        events: EventLog,
        embeddings: EmbeddingProvider,
        extractor: Extractor | None = None,
        cache: Cache | None = None,
        schema: Schema = DEFAULT_SCHEMA,
        settings: IngestSettings | None = None,
        resolver: Resolver | None = None,
        passage_vectors: VectorStore | None = None,
        llm: LlmProvider | None = None,
        retrieval: RetrievalSettings | None = None,
        retired_vectors: Sequence[VectorStore] = (),
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.chunks = chunks
        self.events = events
        self.embeddings = embeddings
        self.extractor = extractor
        self.cache = cache
        self.schema = schema
        self.settings = settings or IngestSettings()
        self.resolver: Resolver = resolver or EvidenceResolver()
        self.passage_vectors = passage_vectors
        self.llm = llm
        self.retired_vectors = tuple(retired_vectors)
        stores = [vectors] if passage_vectors is None else [vectors, passage_vectors]
        self._space = VectorSpace(events, embeddings, stores)
        self._projector = Projector(
            graph=graph,
            vectors=vectors,
            chunks=chunks,
            events=events,
            embeddings=embeddings,
            passage_vectors=passage_vectors,
            vector_space=self._space,
            retired_vectors=self.retired_vectors,
        )
        self._retriever = Retriever(
            graph=graph,
            vectors=vectors,
            chunks=chunks,
            embeddings=embeddings,
            passage_vectors=passage_vectors,
            cache=cache,
            settings=retrieval,
            link_types=[spec.name for spec in schema.entity_types],
            vector_space=self._space,
        )
        self._answerer = Answerer(self._retriever, llm)
        self._writer = GraphWriter(
            graph=graph,
            vectors=vectors,
            chunks=chunks,
            events=events,
            projector=self._projector,
            resolver=self.resolver,
            extractor=extractor,
            settings=self.settings,
        )
        self._release: list[Callable[[], Awaitable[None]]] = []
        self._closed = False

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def in_memory(
        cls,
        *,
        embeddings: EmbeddingProvider | None = None,
        extractor: Extractor | None = None,
        cache: Cache | None = None,
        schema: Schema = DEFAULT_SCHEMA,
        settings: IngestSettings | None = None,
        resolver: Resolver | None = None,
        llm: LlmProvider | None = None,
        retrieval: RetrievalSettings | None = None,
    ) -> KnowledgeGraph:
        """A graph held in this process's memory (lost when the process ends).

        Without ``embeddings`` it uses the offline MiniLM model
        (``OnnxEmbeddingProvider.minilm()``, the ``embeddings`` extra; ADR 0032); pass
        ``LocalStaticEmbeddingProvider.bundled()`` for the 64-dimension static model, about
        fifty times faster to embed a passage and much weaker. Passages get their own vector
        store, so ``query`` searches them by meaning too.
        """
        from redstring.chunks.adapters.memory import InMemoryChunkStore
        from redstring.eventlog.adapters.memory import InMemoryEventLog
        from redstring.graph.adapters.memory import InMemoryGraphStore
        from redstring.vector.adapters.memory import InMemoryVectorStore

        provider = embeddings or _minilm_embeddings()
        return cls(
            graph=InMemoryGraphStore(),
            vectors=InMemoryVectorStore(dimension=provider.dimension),
            chunks=InMemoryChunkStore(),
            events=InMemoryEventLog(),
            embeddings=provider,
            extractor=extractor,
            cache=cache,
            schema=schema,
            settings=settings,
            resolver=resolver,
            passage_vectors=InMemoryVectorStore(dimension=provider.dimension),
            llm=llm,
            retrieval=retrieval,
        )

    @classmethod
    async def on_postgres(
        cls,
        dsn_or_pool: str | Any,
        *,
        embeddings: EmbeddingProvider | None = None,
        extractor: Extractor | None = None,
        cache: Cache | None = None,
        schema: Schema = DEFAULT_SCHEMA,
        settings: IngestSettings | None = None,
        resolver: Resolver | None = None,
        prefix: str = "redstring_",
        max_connections: int = 10,
        llm: LlmProvider | None = None,
        retrieval: RetrievalSettings | None = None,
    ) -> KnowledgeGraph:
        """All the PostgreSQL stores in one database, their schema ensured.

        ``dsn_or_pool`` is a DSN (the graph then owns a new pool and closes it) or an
        ``asyncpg.Pool`` (left open). Without ``embeddings`` it uses the offline MiniLM model,
        as :meth:`in_memory` does (ADR 0032). Each embedding model has its own two vector
        tables, ``{prefix}v<key>_vectors`` and ``{prefix}v<key>_passage_vectors``, ``<key>``
        a hash of the model and its dimension (ADR 0047): switching models never mixes
        vectors, and a tenant embedded with another model keeps working without vector
        search until :meth:`rebuild` re-embeds it. The tables of other models under the same
        prefix (and those of versions before 0047, ``{prefix}vectors`` and
        ``{prefix}passage_vectors``) are emptied of a tenant when it is rebuilt or deleted.
        ``prefix`` may have at most 22 characters.
        """
        from redstring.chunks.adapters.postgres import PostgresChunkStore
        from redstring.eventlog.adapters.postgres import PostgresEventLog
        from redstring.graph.adapters.postgres import PostgresGraphStore
        from redstring.postgres.pool import create_pool
        from redstring.vector.adapters.pgvector import PgVectorStore, vector_tables

        provider = embeddings or _minilm_embeddings()
        identifier(prefix, what="table prefix", room=len(_LONGEST_VECTOR_TABLE_SUFFIX))
        own = f"{prefix}{space_key(provider)}_"
        owns = isinstance(dsn_or_pool, str)
        pool: Any = (
            await create_pool(dsn_or_pool, min_size=1, max_size=max_connections)
            if isinstance(dsn_or_pool, str)
            else dsn_or_pool
        )
        try:
            graph = PostgresGraphStore(pool, prefix=prefix)
            vectors = PgVectorStore(pool, dimension=provider.dimension, prefix=own)
            chunks = PostgresChunkStore(pool, prefix=prefix)
            events = PostgresEventLog(pool, prefix=prefix)
            passages = PgVectorStore(pool, dimension=provider.dimension, prefix=f"{own}passage_")
            for store in (graph, vectors, chunks, events, passages):
                await store.ensure_schema()
            mine = {f"{own}vectors", f"{own}passage_vectors"}
            retired = [
                PgVectorStore(pool, dimension=dimension, prefix=name[: -len("vectors")])
                for name, dimension in (await vector_tables(pool)).items()
                if name not in mine and _model_vector_table(prefix).fullmatch(name)
            ]
        except BaseException:
            if owns:
                await pool.close()
            raise
        built = cls(
            graph=graph,
            vectors=vectors,
            chunks=chunks,
            events=events,
            embeddings=provider,
            extractor=extractor,
            cache=cache,
            schema=schema,
            settings=settings,
            resolver=resolver,
            passage_vectors=passages,
            llm=llm,
            retrieval=retrieval,
            retired_vectors=retired,
        )
        if owns:
            built._release.append(pool.close)
        return built

    # -- lifetime -------------------------------------------------------------------------

    async def close(self) -> None:
        """Release what this object built (a pool it created); safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for release in reversed(self._release):
            await release()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- writes ---------------------------------------------------------------------------

    async def ingest(
        self,
        tenant: str,
        source: str,
        text: str,
        *,
        schema: Schema | None = None,
        metadata: Mapping[str, JsonValue] | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Make ``source`` hold ``text``: chunk, extract new passages, resolve, record, project.

        ``progress(done, total)``, when given, is awaited after each passage extracted (a
        long document's job reports it).

        Unchanged text is a no-op (``report.unchanged``); changed text re-extracts only the
        passages whose text changed and replaces the source atomically. Raises
        ``ExtractorNotConfiguredError`` without an extractor, ``EmptyTextError`` for blank
        text, ``DocumentTooLargeError`` past ``settings.max_document_chars`` and
        ``InvalidArgumentError`` for NUL characters or lone surrogates; nothing is written then.
        """
        return await self._writer.ingest(
            _tenant(tenant),
            source_id(source),
            text,
            schema=schema or self.schema,
            metadata=metadata,
            progress=progress,
        )

    async def import_records(
        self, tenant: str, records: Iterable[object], *, schema: Schema | None = None
    ) -> ImportReport:
        """Resolve and record already-extracted entities and relationships (no model call).

        ``records`` are ``EntityRecord``/``RelationshipRecord`` objects or mappings of the JSON
        Lines format (``docs/how-to/import-records.md``). The batch is validated whole first:
        a malformed record raises ``InvalidRecordError`` naming it and its field, and nothing
        is written.
        """
        entities, relationships = split_and_check(enumerate(records, start=1))
        return await self._writer.import_records(
            _tenant(tenant), entities, relationships, schema or self.schema
        )

    async def import_jsonl(
        self, tenant: str, lines: Iterable[str], *, schema: Schema | None = None
    ) -> ImportReport:
        """:meth:`import_records` over JSON Lines; errors name the line number and field."""
        entities, relationships = split_and_check(parse_jsonl(lines))
        return await self._writer.import_records(
            _tenant(tenant), entities, relationships, schema or self.schema
        )

    async def delete_source(self, tenant: str, source: str) -> DeleteReport:
        """Remove the source's passages and every entity and relationship only it supported.

        Shared entities keep their other evidence. Deleting an unknown source reports
        ``existed=False`` and changes nothing.
        """
        return await self._writer.delete_source(_tenant(tenant), existing_source_id(source))

    async def delete_tenant(self, tenant: str) -> int:
        """Erase the tenant: every store's rows, its checkpoints and its event log; returns
        how many events the log held (0: it held nothing).

        Another ``KnowledgeGraph`` over the same stores (another process) sees the tenant as
        empty at its next read of it, and :meth:`forget_erased` drops what it still caches.
        A write of the tenant running meanwhile raises ``TenantErasedError`` and keeps
        nothing.
        """
        return await self._writer.delete_tenant(_tenant(tenant))

    async def forget_erased(self) -> list[str]:
        """Drop what this object caches of tenants another process erased (their folded
        histories); returns those tenants. One read per cached tenant."""
        return [str(tenant) for tenant in await self._writer.forget_erased()]

    async def rebuild(self, tenant: str) -> int:
        """Empty the tenant's projections and replay its log; returns the events replayed.

        Calls no extraction model (its results are in the log); every passage and entity is
        embedded again with this graph's embedding model, which is how a tenant embedded
        with another model moves to this one (ADR 0047).
        """
        return await self._writer.rebuild(_tenant(tenant))

    async def merge(self, tenant: str, keep: EntityId, absorb: EntityId) -> EntityId:
        """Merge entity ``absorb`` into ``keep`` (a person's decision); returns the survivor.

        The absorbed id becomes an alias; its evidence, aliases and edges move over. Raises
        ``UnknownEntityError`` or ``MergeRefusedError`` (different types, or a pair that an
        unmerge keeps apart).
        """
        return await self._writer.merge(_tenant(tenant), keep, absorb)

    async def unmerge(self, tenant: str, alias: EntityId) -> EntityId:
        """Undo the merge that made ``alias`` an alias; the pair is kept apart afterwards."""
        return await self._writer.unmerge(_tenant(tenant), alias)

    # -- reads ----------------------------------------------------------------------------

    async def query(
        self,
        tenant: str,
        text: str,
        *,
        k: int = 10,
        entity_types: Collection[str] | None = None,
        depth: int = 1,
    ) -> QueryResult:
        """Ranked, cited evidence for ``text``: passages, entities and relationships fused
        from entity vectors, passage vectors, BM25 and the graph; no model call.

        Each item carries its provenance and its rank in every signal that found it;
        ``result.as_context()`` renders it for a model with ``[P1]``-style citations. See
        :class:`redstring.retrieval.Retriever`.
        """
        return await self._retriever.query(
            _tenant(tenant), text, k=k, entity_types=entity_types, depth=depth
        )

    async def ask(self, tenant: str, question: str, *, depth: int = 1) -> Answer:
        """Answer ``question`` from the tenant's documents, every citation checked.

        With ``llm`` configured: one model call over :meth:`query`'s context; citations
        naming no passage of it are dropped and counted. Without: an extractive answer,
        labelled ``kind="extractive"``. With no relevant passage it says so.
        """
        return await self._answerer.ask(_tenant(tenant), question, depth=depth)

    async def vector_notice(self, tenant: str) -> str | None:
        """``None`` when the tenant's vectors are this graph's model's (or it has none yet);
        else the notice its queries carry: vector search is off until :meth:`rebuild`."""
        key = _tenant(tenant)
        return None if await self._space.current(key) else self._space.stale_notice(key)

    async def merges(self, tenant: str) -> list[MergeInfo]:
        """Every merge recorded for the tenant, oldest first, with the rule and evidence."""
        history = await self.history(tenant)
        return [
            MergeInfo(
                winner_id=record.winner_id,
                winner_name=_name(history, record.winner_id),
                loser_id=record.loser_id,
                loser_name=record.loser_name,
                rule=record.rule,
                score=record.score,
                explanation=dict(record.explanation),
                undone=record.undone,
            )
            for record in history.merges
        ]

    async def possible_matches(self, tenant: str) -> list[PossibleMatchInfo]:
        """Pairs kept apart for review (both still live and not since merged or unmerged)."""
        history = await self.history(tenant)
        found = []
        for record in history.possible_matches:
            left = history.resolve(record.entity_id)
            right = history.resolve(record.candidate_id)
            if left is None or right is None or left == right:
                continue
            if frozenset({left, right}) in history.keep_apart:
                continue
            found.append(
                PossibleMatchInfo(
                    entity_id=left,
                    entity_name=_name(history, left),
                    candidate_id=right,
                    candidate_name=_name(history, right),
                    rule=record.rule,
                    score=record.score,
                    explanation=dict(record.explanation),
                )
            )
        return found

    async def history(self, tenant: str) -> TenantHistory:
        """The tenant's folded history, up to date (read-only by convention)."""
        return await self._writer.sync(_tenant(tenant))

    async def sources(self, tenant: str) -> list[SourceInfo]:
        """Every source of the tenant (ingested documents and import sources), by id."""
        history = await self.history(tenant)
        return [
            SourceInfo(
                source_id=known.source_id,
                chunks=len(known.chunk_ids),
                metadata=dict(known.metadata),
            )
            for known in sorted(history.sources.values(), key=lambda item: item.source_id)
        ]

    async def tenants(self) -> list[TenantId]:
        """Every tenant holding data (at least one event in the log), in id order.

        It spans tenants by design: for an operator or a command saying which tenants exist,
        never for a caller acting as one tenant.
        """
        return await self.events.tenants()

    async def stats(self, tenant: str) -> GraphStats:
        """Counts over the tenant's graph."""
        history = await self.history(tenant)
        by_type: dict[str, int] = {}
        for known in history.entities.values():
            by_type[known.entity.type] = by_type.get(known.entity.type, 0) + 1
        by_relationship: dict[str, int] = {}
        for edge in history.relationships.values():
            kind = edge.relationship.type
            by_relationship[kind] = by_relationship.get(kind, 0) + 1
        return GraphStats(
            sources=len(history.sources),
            chunks=sum(len(known.chunk_ids) for known in history.sources.values()),
            entities=len(history.entities),
            entities_by_type=dict(sorted(by_type.items())),
            relationships=len(history.relationships),
            relationships_by_type=dict(sorted(by_relationship.items())),
            aliases=len(history.aliases),
            events=history.events,
        )

    async def export(self, tenant: str) -> GraphSnapshot:
        """The tenant's whole graph, deterministically ordered and JSON-serialisable."""
        key = _tenant(tenant)
        history = await self.history(tenant)
        entities = []
        for entity_id in sorted(history.entities, key=str):
            known = history.entities[entity_id]
            entities.append(
                SnapshotEntity(
                    entity=known.entity.model_copy(deep=True),
                    aliases=history.aliases_of(entity_id),
                    sources=sorted({SourceId(item.source_id) for item in known.evidence}),
                    import_refs=sorted(
                        {f"{item.source_id}:{item.ref}" for item in known.evidence if item.ref}
                    ),
                    names=list(known.names),
                )
            )
        relationships = [
            history.relationships[relationship_id].relationship.model_copy(deep=True)
            for relationship_id in sorted(history.relationships, key=str)
        ]
        passages = []
        for source in sorted(history.sources):
            passages.extend(await self.chunks.get_by_source(key, source))
        return GraphSnapshot(
            tenant_id=key, entities=entities, relationships=relationships, passages=passages
        )


def _name(history: TenantHistory, entity_id: EntityId) -> str | None:
    live = history.resolve(entity_id)
    known = history.entities.get(live) if live is not None else None
    return known.entity.name if known is not None else None


_LONGEST_VECTOR_TABLE_SUFFIX = "v00000000_passage_vectors_entity_type_idx"
"""The longest name ``on_postgres`` appends to its prefix: a model's passage-vector index."""


def _model_vector_table(prefix: str) -> re.Pattern[str]:
    """The names of the vector tables ``on_postgres`` makes under ``prefix``, any model's,
    and those of the versions that kept one model's vectors in ``{prefix}vectors``."""
    return re.compile(re.escape(prefix) + r"(v[0-9a-f]{8}_)?(passage_)?vectors")


def _minilm_embeddings() -> EmbeddingProvider:
    """MiniLM (ADR 0032), the default embedding model of every composition."""
    with _needs_the_embeddings_extra():
        from redstring.embeddings.adapters.onnx import OnnxEmbeddingProvider
    return OnnxEmbeddingProvider.minilm()


@contextmanager
def _needs_the_embeddings_extra() -> Iterator[None]:
    try:
        yield
    except ImportError as error:  # pragma: no cover - depends on the installed extras
        raise ImportError(
            "the default embedding model needs the 'embeddings' extra (pip install "
            "'redstring[embeddings]'), or pass embeddings=<an EmbeddingProvider>"
        ) from error
