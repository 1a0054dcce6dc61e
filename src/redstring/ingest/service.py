"""The write side of a knowledge graph: ingest, import, delete and rebuild, on the ports alone.

Every write follows one protocol per tenant. Extraction runs first, outside it, and records
each passage's result in the log (stream ``extraction:<chunk_id>``), so nothing a model said
is ever asked twice. Then, in a loop: read the graph stream's version, bring the projections
and the folded history up to the log's end, plan the events against that state, and append
them with ``expected_version``. A concurrent writer makes the append fail with
:class:`ConcurrencyConflictError`; the loop re-reads and plans again, so two processes writing
one tenant end where one process doing the same writes in sequence would. Event ids are
derived from their slot and content, so re-appending after a crash is a no-op.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from pydantic import JsonValue

from redstring.domain.chunking import chunk_text
from redstring.domain.chunks import Chunk, StoredChunk
from redstring.domain.errors import InvalidArgumentError, RedstringError
from redstring.domain.extraction import Extraction
from redstring.domain.graph_events import (
    EXTRACTION_STREAM_PREFIX,
    GRAPH_STREAM,
    ChunkExtracted,
    ChunkExtractionFailed,
    EntitiesMerged,
    EntitiesUnmerged,
    EntityCreated,
    Evidence,
    GraphEvent,
    PossibleMatchRecorded,
    RecordsImported,
    RelationshipAsserted,
    RelationshipRetracted,
    ResolutionWeightsEstimated,
    SourceDeleted,
    SourceIngested,
    Support,
    TenantDeleted,
    decode,
    derived_id,
    encode,
    encode_batch,
    relationship_id_for,
)
from redstring.domain.history import (
    SourceHistory,
    TenantHistory,
    add_evidence,
    add_supports,
    entity_state,
    relationship_state,
)
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId, TenantId
from redstring.domain.models import Alias, Entity
from redstring.domain.outline import heading_paths
from redstring.domain.records import EntityRecord, RelationshipRecord
from redstring.domain.resolution.fields import key_form
from redstring.domain.resolution.weights import FieldKind
from redstring.domain.schema import Schema
from redstring.ingest.admission import (
    check_metadata,
    check_text,
    passages_without_vector,
)
from redstring.ingest.changes import ChangeSet
from redstring.ingest.reports import DeleteReport, FailedChunk, ImportReport, IngestReport
from redstring.ingest.resolution import (
    Decision,
    LearningResolver,
    Mention,
    ResolutionContext,
    Resolver,
)
from redstring.ingest.type_votes import vote_types
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.errors import ConcurrencyConflictError, ExtractionError, LlmProviderError
from redstring.ports.event_log import EventLog
from redstring.ports.extractor import Extractor
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.projections.projector import Projector

T = TypeVar("T")

Progress = Callable[[int, int], Awaitable[None]]
"""Told ``(passages extracted so far, passages to extract)`` as an ingest goes."""


# Past this many events a batch is encoded in a worker thread: encoding a long document's
# events is CPU work that held the event loop (issue 26: about 200 ms for 1 MB), and a
# thread hands the loop the interpreter every few milliseconds.
_LONG_BATCH = 64


class ExtractorNotConfiguredError(RedstringError):
    """``ingest`` needs an extractor and none was given."""


class UnknownEntityError(InvalidArgumentError):
    """An entity id names nothing in the tenant (neither an entity nor an alias)."""


class MergeRefusedError(InvalidArgumentError):
    """A merge or unmerge cannot be made: types differ, the pair is kept apart, or no merge."""


class WriteConflictError(RedstringError):
    """Other writers kept winning the race for a tenant; the write was not made."""


class TenantErasedError(RedstringError):
    """The tenant was deleted while the write ran; what the write had appended is erased."""


@dataclass(frozen=True)
class IngestSettings:
    """How ingestion cuts, extracts and retries; every field has a documented default.

    ``chunk_chars``/``chunk_overlap`` size passages; ``extraction_concurrency`` bounds
    extractor calls in flight; ``skip_failed_chunks`` records a failed passage and carries on
    (off: the first failure raises and nothing of the source is written);
    ``max_document_chars`` refuses larger texts with :class:`DocumentTooLargeError`;
    ``max_write_attempts`` bounds retries when other writers keep winning a tenant.
    """

    chunk_chars: int = 1200
    chunk_overlap: int = 150
    extraction_concurrency: int = 16
    skip_failed_chunks: bool = True
    max_document_chars: int = 10_000_000
    max_write_attempts: int = 50


@dataclass
class _Plan:
    events: list[GraphEvent] = field(default_factory=list)


def _content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class GraphWriter:
    """Ingests, imports, deletes and rebuilds tenants' graphs through the ports."""

    def __init__(
        self,
        *,
        graph: GraphStore,
        vectors: VectorStore,
        chunks: ChunkStore,
        events: EventLog,
        projector: Projector,
        resolver: Resolver,
        extractor: Extractor | None,
        settings: IngestSettings,
    ) -> None:
        self._graph = graph
        self._vectors = vectors
        self._chunks = chunks
        self._events = events
        self._projector = projector
        self._resolver = resolver
        self._extractor = extractor
        self._settings = settings
        self._histories: dict[TenantId, TenantHistory] = {}
        self._locks: dict[TenantId, asyncio.Lock] = {}

    def _lock(self, tenant: TenantId) -> asyncio.Lock:
        """This process's lock for the tenant's writes (other processes meet at the log)."""
        return self._locks.setdefault(tenant, asyncio.Lock())

    # -- reading state ------------------------------------------------------------------

    async def sync(self, tenant: TenantId) -> TenantHistory:
        """Bring the projections and the folded history up to the end of the tenant's log.

        A history folded earlier is checked against the log first (one read): when the event
        it ends at is gone, another process erased the tenant, so the history is dropped and
        marked ``deleted`` (a write that began on it stops, see :meth:`_write`) and the
        tenant is folded afresh.
        """
        history = self._histories.get(tenant)
        if history is not None and not await self._still_logged(tenant, history):
            history = None
        if history is None:
            history = self._histories[tenant] = TenantHistory()
        await self._projector.catch_up(tenant, after=history.position, observer=history.apply_all)
        if history.deleted:
            await self._finish_erasure(tenant)
            return await self.sync(tenant)
        if not history.position:
            # A tenant with no events: nothing worth keeping, not even its name.
            self._histories.pop(tenant, None)
        return history

    async def _still_logged(self, tenant: TenantId, history: TenantHistory) -> bool:
        """False (and ``history`` forgotten, marked deleted) when the log no longer holds the
        event ``history`` was folded up to: the tenant was erased since."""
        # Read the position once: another task may fold further while the read is out, and
        # comparing the page with the advanced position would take a live tenant for erased.
        position = history.position
        if not position:
            return True
        page = await self._events.read(tenant, after=position - 1, limit=1)
        if page and page[0].position == position:
            return True
        history.deleted = True
        if self._histories.get(tenant) is history:
            del self._histories[tenant]
        return False

    async def forget_erased(self) -> list[TenantId]:
        """Drop this process's state of every tenant whose log another process erased (its
        folded history, and its lock when idle), and of tenants it found empty; returns the
        erased ones."""
        gone = []
        for tenant, history in list(self._histories.items()):
            if not history.position:  # folded nothing: a name read once, nothing to keep
                del self._histories[tenant]
            elif not await self._still_logged(tenant, history):
                gone.append(tenant)
        for tenant, lock in list(self._locks.items()):
            if tenant not in self._histories and not lock.locked():
                del self._locks[tenant]
        return gone

    # -- the write protocol -------------------------------------------------------------

    async def _write(
        self,
        tenant: TenantId,
        plan: Callable[[TenantHistory], Awaitable[tuple[list[GraphEvent], T]]],
        *,
        since: TenantHistory | None = None,
    ) -> T:
        """Plan against the tenant's state and append, retrying lost races.

        ``since`` is the history the operation started from (the first attempt's, unless
        given): when the tenant is erased under the write, whatever the write appended is
        erased again and :class:`TenantErasedError` raised, so that no write that began
        before an erasure outlives it.
        """
        async with self._lock(tenant):
            for attempt in range(self._settings.max_write_attempts):
                version = await self._events.stream_version(tenant, GRAPH_STREAM)
                history = await self.sync(tenant)
                since = since or history
                if since.deleted:
                    await self._finish_erasure(tenant)
                    raise TenantErasedError(
                        f"tenant {tenant!r} was deleted while this write ran; nothing of it "
                        "was kept"
                    )
                events, result = await plan(history)
                if not events:
                    return result
                encoding = (tenant, GRAPH_STREAM, version + 1, events)
                if len(events) < _LONG_BATCH:
                    batch = encode_batch(*encoding)
                else:
                    batch = await asyncio.to_thread(encode_batch, *encoding)
                try:
                    await self._events.append(tenant, GRAPH_STREAM, batch, expected_version=version)
                except ConcurrencyConflictError:
                    await asyncio.sleep(random.uniform(0, 0.005 * (attempt + 1)))
                    continue
                await self.sync(tenant)
                return result
        raise WriteConflictError(
            f"tenant {tenant!r}: {self._settings.max_write_attempts} attempts lost the race to "
            "other writers; retry later"
        )

    # -- ingest ---------------------------------------------------------------------------

    async def ingest(
        self,
        tenant: TenantId,
        source: SourceId,
        text: str,
        *,
        schema: Schema,
        metadata: Mapping[str, JsonValue] | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Make ``source`` hold ``text``: extract new passages, resolve, record, project.

        ``progress(done, total)`` is awaited after each passage that needed extracting.
        """
        extractor = self._extractor
        if extractor is None:
            raise ExtractorNotConfiguredError(
                "ingest needs an extractor: build the KnowledgeGraph with "
                "extractor=SpacyExtractor() (offline, the 'nlp' extra) or "
                "extractor=LlmExtractor(provider) (an LLM server), or use import_records for "
                "already-extracted data"
            )
        # Everything that can refuse the document is decided before the first append.
        check_text(source, text, self._settings.max_document_chars)
        meta = check_metadata(source, metadata)
        content_hash = _content_hash(text)
        chunks = chunk_text(
            source,
            text,
            max_chars=self._settings.chunk_chars,
            overlap_chars=self._settings.chunk_overlap,
        )
        history = await self.sync(tenant)
        known = history.sources.get(source)
        if _unchanged(known, content_hash, meta):
            return IngestReport(source_id=source, unchanged=True, chunks=len(chunks))
        unembedded = await passages_without_vector(self._projector, source, chunks)
        previous = set(known.chunk_ids) if known else set()
        retry = set(known.failed_chunk_ids) if known else set()
        needed = [chunk for chunk in chunks if chunk.id not in previous or chunk.id in retry]
        identity = f"{extractor.model}|{schema.fingerprint}"
        # Extractions are appended passage by passage before the graph write. When the
        # tenant is erased meanwhile and this task then stops (cancelled because its job
        # row went with the tenant, or failed), they are erased again on the way out.
        try:
            results, calls, reused = await self._extract(
                tenant, extractor, needed, schema, identity, progress
            )
            headings = heading_paths(text, [chunk.char_start for chunk in chunks])
            report = IngestReport(
                source_id=source,
                chunks=len(chunks),
                chunks_new=len(needed),
                model_calls=calls,
                extractions_reused=reused,
                model=extractor.model,
                passages_without_vector=unembedded,
            )

            async def plan(history: TenantHistory) -> tuple[list[GraphEvent], IngestReport]:
                return await self._plan_source(
                    tenant,
                    history,
                    source,
                    chunks,
                    headings,
                    results,
                    schema,
                    meta,
                    content_hash,
                    report,
                )

            # The extractions appended above count as this write's: an erasure since erases them.
            return await self._write(tenant, plan, since=history)
        except TenantErasedError:
            raise  # _write found the erasure and finished it: nothing left to erase
        except BaseException:
            await self._erase_if_erased_since(tenant, history)
            raise

    async def _erase_if_erased_since(self, tenant: TenantId, since: TenantHistory) -> None:
        """Finish an erasure that happened after ``since`` was folded, whatever this task
        appended since; shielded so that a cancelled task still completes it."""
        if since.deleted or not await self._still_logged(tenant, since):
            await asyncio.shield(self._finish_erasure(tenant))

    async def _extract(
        self,
        tenant: TenantId,
        extractor: Extractor,
        chunks: Sequence[Chunk],
        schema: Schema,
        identity: str,
        progress: Progress | None = None,
    ) -> tuple[dict[ChunkId, Extraction | FailedChunk], int, int]:
        semaphore = asyncio.Semaphore(max(1, self._settings.extraction_concurrency))
        results: dict[ChunkId, Extraction | FailedChunk] = {}
        counts = {"calls": 0, "reused": 0}

        async def one(chunk: Chunk) -> None:
            stream = EXTRACTION_STREAM_PREFIX + chunk.id
            recorded = await self._events.read_stream(tenant, stream)
            for stored in reversed(recorded):
                event = decode(stored)
                if isinstance(event, ChunkExtracted) and event.identity == identity:
                    results[chunk.id] = event.extraction
                    counts["reused"] += 1
                    return
            async with semaphore:
                counts["calls"] += 1
                try:
                    extraction = await extractor.extract(chunk.text, schema)
                except (LlmProviderError, ExtractionError) as error:
                    if not self._settings.skip_failed_chunks:
                        raise
                    failure = ChunkExtractionFailed(
                        chunk_id=chunk.id,
                        identity=identity,
                        model=extractor.model,
                        error_type=type(error).__name__,
                        message=str(error)[:2000],
                    )
                    slot = f"{stream}#{len(recorded) + 1}"
                    await self._events.append(tenant, stream, [encode(tenant, slot, failure)])
                    results[chunk.id] = FailedChunk(
                        chunk_id=chunk.id,
                        chunk_index=chunk.chunk_index,
                        error_type=failure.error_type,
                        message=failure.message,
                    )
                    return
            success = ChunkExtracted(
                chunk_id=chunk.id, identity=identity, model=extractor.model, extraction=extraction
            )
            stored_events = await self._events.append(
                tenant, stream, [encode(tenant, f"{stream}#{identity}", success)]
            )
            # A concurrent writer may have recorded its own answer first: the log's wins.
            winner = decode(stored_events[0])
            results[chunk.id] = (
                winner.extraction if isinstance(winner, ChunkExtracted) else extraction
            )

        async def counted(chunk: Chunk) -> None:
            await one(chunk)
            if progress is not None:
                await progress(len(results), len(chunks))

        try:
            async with asyncio.TaskGroup() as group:
                for chunk in chunks:
                    group.create_task(counted(chunk))
        except BaseExceptionGroup as failures:
            # The first failure is the caller's error; the group is an asyncio detail.
            raise failures.exceptions[0] from None
        return results, counts["calls"], counts["reused"]

    async def _plan_source(
        self,
        tenant: TenantId,
        history: TenantHistory,
        source: SourceId,
        chunks: Sequence[Chunk],
        headings: Sequence[tuple[str, ...]],
        results: Mapping[ChunkId, Extraction | FailedChunk],
        schema: Schema,
        metadata: dict[str, JsonValue],
        content_hash: str,
        base: IngestReport,
    ) -> tuple[list[GraphEvent], IngestReport]:
        report = base.model_copy(deep=True)
        known = history.sources.get(source)
        if _unchanged(known, content_hash, metadata):
            return [], IngestReport(source_id=source, unchanged=True, chunks=len(chunks))
        current_ids = {chunk.id for chunk in chunks}
        previous_ids = list(known.chunk_ids) if known else []
        removed = [chunk_id for chunk_id in previous_ids if chunk_id not in current_ids]
        report.chunks_removed = len(removed)
        changes = ChangeSet(history)
        changes.remove_chunks(source, removed)
        # Passages whose extraction is (re)done now lose what they said before, if anything.
        changes.remove_chunks(source, [c for c in results if c in set(previous_ids)])
        stored_before = {
            chunk.id: chunk for chunk in await self._chunks.get_by_source(tenant, source)
        }
        dropped: dict[str, int] = {}
        mentions: list[Mention] = []
        mention_chunk: list[int] = []
        statements: list[tuple[int, str, str, str, str | None]] = []
        failed: list[FailedChunk] = []
        for position, chunk in enumerate(chunks):
            result = results.get(chunk.id)
            if isinstance(result, FailedChunk):
                failed.append(result)
                continue
            if result is None:
                continue
            for key, count in _extraction_drops(result).items():
                dropped[key] = dropped.get(key, 0) + count
            for entity in result.entities:
                spec = schema.entity_type(entity.type)
                if spec is None:
                    dropped["unknown_entity_type"] = dropped.get("unknown_entity_type", 0) + 1
                    continue
                mentions.append(
                    Mention(
                        type=spec.name,
                        name=entity.name,
                        attributes=dict(entity.attributes),
                        description=entity.description,
                        source_id=source,
                        chunk_id=chunk.id,
                    )
                )
                mention_chunk.append(position)
            for statement in result.relationships:
                statements.append(
                    (
                        position,
                        statement.subject,
                        _relationship_type(schema, statement.type),
                        statement.object,
                        statement.description,
                    )
                )
        # One name, one type: a passage's guess yields to the document's and the tenant's votes.
        mentions, retyped = await vote_types(
            self._graph, history, tenant, schema, mentions, mention_chunk
        )
        if retyped:
            dropped["type_conflict"] = dropped.get("type_conflict", 0) + retyped
        decisions = await self._resolver.resolve(
            self._graph, tenant, mentions, resolution_context(history, schema)
        )
        entity_of, audits = self._apply_decisions(
            tenant, changes, mentions, decisions, base.model, report
        )
        by_chunk_name: dict[tuple[int, str], EntityId] = {}
        chunk_entities: dict[int, set[EntityId]] = {}
        for index, mention in enumerate(mentions):
            position = mention_chunk[index]
            by_chunk_name.setdefault((position, _fold(mention.name)), entity_of[index])
            chunk_entities.setdefault(position, set()).add(entity_of[index])
        relationships = 0
        asserted: set[RelationshipId] = set()
        for position, subject, relationship_type, obj, description in statements:
            subject_id = by_chunk_name.get((position, _fold(subject)))
            object_id = by_chunk_name.get((position, _fold(obj)))
            if (
                subject_id is None
                or object_id is None
                or _refused(schema, changes, relationship_type, subject_id, object_id, dropped)
            ):
                if subject_id is None or object_id is None:
                    _count(dropped, _relationship_problem(schema, relationship_type))
                continue
            asserted.add(
                changes.assert_relationship(
                    subject_id,
                    relationship_type,
                    object_id,
                    Support(
                        source_id=source,
                        chunk_id=chunks[position].id,
                        description=description,
                        model=base.model,
                    ),
                )
            )
            relationships += 1
        own_entities, audited = _audited_merges(tenant, changes, audits)
        events = own_entities + changes.events() + audited
        stored_chunks = []
        for position, chunk in enumerate(chunks):
            if chunk.id in results:
                linked = tuple(sorted(chunk_entities.get(position, set()), key=str))
            else:
                before = stored_before.get(chunk.id)
                linked = before.entity_ids if before is not None else ()
            linked = tuple(e for e in linked if changes.is_live(e))
            passage_metadata: dict[str, JsonValue] = dict(metadata)
            if headings[position]:
                # Where in the document the passage is, for citations ("Tutorial > Modules").
                passage_metadata["headings"] = list(headings[position])
            stored_chunks.append(
                StoredChunk(**chunk.model_dump(), entity_ids=linked, metadata=passage_metadata)
            )
        events.append(
            SourceIngested(
                source_id=source,
                content_hash=content_hash,
                metadata=metadata,
                chunks=stored_chunks,
                removed_chunk_ids=removed,
                failed_chunk_ids=[item.chunk_id for item in failed],
            )
        )
        events.extend(_possible_matches(decisions, entity_of))
        report.relationships = relationships
        report.relationships_created = len(asserted - set(history.relationships))
        report.dropped = dict(sorted(dropped.items()))
        report.failed_chunks = failed
        return events, report

    def _apply_decisions(
        self,
        tenant: TenantId,
        changes: ChangeSet,
        mentions: Sequence[Mention],
        decisions: Sequence[Decision],
        model: str | None,
        report: IngestReport | ImportReport,
    ) -> tuple[list[EntityId], list[tuple[EntityId, Evidence, Decision]]]:
        """Add each mention's evidence to its entity; returns each mention's entity and the
        matches to record as audited merges."""
        if len(decisions) != len(mentions):
            raise RedstringError(
                f"the resolver returned {len(decisions)} decisions for {len(mentions)} mentions"
            )
        group_ids: dict[int, EntityId] = {}
        entity_of: list[EntityId] = []
        created: set[EntityId] = set()
        matched: set[EntityId] = set()
        audits: list[tuple[EntityId, Evidence, Decision]] = []
        for decision in sorted(decisions, key=lambda d: d.mention_index):
            mention = mentions[decision.mention_index]
            if decision.entity_id is not None:
                # In the store, possibly losing its evidence in this change: it keeps the id.
                entity_id = decision.entity_id
                matched.add(entity_id)
            else:
                if decision.group not in group_ids:
                    first = mention
                    group_ids[decision.group] = EntityId(
                        derived_id(
                            "entity",
                            tenant,
                            first.source_id,
                            first.chunk_id or "",
                            first.ref or "",
                            first.type,
                            first.name,
                        )
                    )
                entity_id = group_ids[decision.group]
                created.add(entity_id)
            evidence = Evidence(
                source_id=mention.source_id,
                chunk_id=mention.chunk_id,
                ref=mention.ref,
                name=mention.name,
                type=mention.type,
                description=mention.description,
                attributes=mention.attributes,
                model=model,
            )
            changes.add(entity_id, [evidence])
            if decision.audited and decision.entity_id is not None:
                audits.append((entity_id, evidence, decision))
            entity_of.append(entity_id)
        report.entities_created = len(created)
        report.entities_matched = len(matched - created)
        return entity_of, audits

    # -- import ---------------------------------------------------------------------------

    async def import_records(
        self,
        tenant: TenantId,
        entities: Sequence[EntityRecord],
        relationships: Sequence[RelationshipRecord],
        schema: Schema,
    ) -> ImportReport:
        """Resolve and record already-extracted records (validated by the caller)."""

        async def plan(history: TenantHistory) -> tuple[list[GraphEvent], ImportReport]:
            report = ImportReport(records=len(entities) + len(relationships))
            dropped: dict[str, int] = {}
            specs = [schema.entity_type(record.type) for record in entities]
            kept = [record for record, spec in zip(entities, specs, strict=True) if spec]
            kept_types = [spec.name for spec in specs if spec]
            if len(kept) != len(entities):
                dropped["unknown_entity_type"] = len(entities) - len(kept)
            mentions = [
                Mention(
                    type=kept_type,
                    name=record.name,
                    attributes=dict(record.attributes),
                    description=record.description,
                    source_id=SourceId(record.source),
                    ref=record.ref,
                )
                for record, kept_type in zip(kept, kept_types, strict=True)
            ]
            changes = ChangeSet(history)
            context = resolution_context(history, schema)
            estimated: list[GraphEvent] = []
            if isinstance(self._resolver, LearningResolver):
                # Weights learned from these records (when the tenant has grown enough) are
                # recorded first, and these records are resolved with them (ADR 0035).
                learned = self._resolver.estimate(mentions, context)
                for entity_type, weights in sorted(learned.items()):
                    estimated.append(
                        ResolutionWeightsEstimated(
                            entity_type=entity_type, weights=weights.to_json()
                        )
                    )
                if learned:
                    context = replace(context, weights={**context.weights, **learned})
            decisions = await self._resolver.resolve(self._graph, tenant, mentions, context)
            entity_of, audits = self._apply_decisions(
                tenant, changes, mentions, decisions, None, report
            )
            refs = {record.ref: entity_of[i] for i, record in enumerate(kept)}
            count = 0
            for record in relationships:
                subject_id, object_id = refs.get(record.subject), refs.get(record.object)
                kind = _relationship_type(schema, record.type)
                if (
                    subject_id is None
                    or object_id is None
                    or _refused(schema, changes, kind, subject_id, object_id, dropped)
                ):
                    if subject_id is None or object_id is None:
                        _count(dropped, _relationship_problem(schema, kind))
                    continue
                changes.assert_relationship(
                    subject_id,
                    kind,
                    object_id,
                    Support(
                        source_id=SourceId(record.source),
                        ref=f"{record.subject}|{kind}|{record.object}",
                        attributes=dict(record.attributes),
                    ),
                )
                count += 1
            own_entities, audited = _audited_merges(tenant, changes, audits)
            events = estimated + own_entities + changes.events() + audited
            by_source: dict[SourceId, dict[str, EntityId]] = {}
            for index, kept_record in enumerate(kept):
                source_refs = by_source.setdefault(SourceId(kept_record.source), {})
                source_refs[kept_record.ref] = entity_of[index]
            for source_id in sorted(by_source):
                events.append(RecordsImported(source_id=source_id, refs=by_source[source_id]))
            events.extend(_possible_matches(decisions, entity_of))
            report.refs = refs
            report.relationships = count
            report.dropped = dict(sorted(dropped.items()))
            return events, report

        return await self._write(tenant, plan)

    # -- merges ---------------------------------------------------------------------------

    async def merge(
        self,
        tenant: TenantId,
        keep: EntityId,
        absorb: EntityId,
        *,
        rule: str = "manual",
        score: float | None = None,
        explanation: Mapping[str, JsonValue] | None = None,
    ) -> EntityId:
        """Merge ``absorb`` into ``keep`` (ids or aliases); returns the surviving entity id.

        The absorbed entity becomes an alias; its evidence, aliases and edges move to the
        survivor. Raises :class:`UnknownEntityError` for an id naming nothing and
        :class:`MergeRefusedError` for different types or a pair kept apart by an unmerge.
        """

        async def plan(history: TenantHistory) -> tuple[list[GraphEvent], EntityId]:
            winner = _live(history, keep)
            loser = _live(history, absorb)
            if winner == loser:
                return [], winner
            if frozenset({winner, loser}) in history.keep_apart:
                raise MergeRefusedError(
                    f"entities {winner} and {loser} were unmerged and are kept apart; they "
                    "will not be merged again"
                )
            kept, gone = history.entities[winner], history.entities[loser]
            if kept.entity.type != gone.entity.type:
                raise MergeRefusedError(
                    f"cannot merge a {gone.entity.type} ({gone.entity.name!r}) into a "
                    f"{kept.entity.type} ({kept.entity.name!r}): types must match"
                )
            entity, names = entity_state(winner, add_evidence(kept.evidence, gone.evidence))
            events: list[GraphEvent] = []
            edges: dict[str, tuple[str, EntityId, EntityId, list[Support]]] = {}
            for relationship_id in history.relationships_touching(loser):
                old = history.relationships[relationship_id]
                events.append(RelationshipRetracted(relationship_id=relationship_id))
                rel = old.relationship
                subject = winner if rel.subject_id == loser else rel.subject_id
                obj = winner if rel.object_id == loser else rel.object_id
                new_id = relationship_id_for(subject, rel.type, obj)
                existing = history.relationships.get(new_id)
                if str(new_id) in edges:
                    base = edges[str(new_id)][3]
                else:
                    base = list(existing.supports) if existing is not None else []
                edges[str(new_id)] = (rel.type, subject, obj, add_supports(base, old.supports))
            events.append(
                EntitiesMerged(
                    winner_id=winner,
                    loser_id=loser,
                    loser_name=gone.entity.name,
                    entity=entity,
                    names=names,
                    moved_aliases=[
                        Alias(alias_id=a.alias_id, canonical_id=winner, name=a.name)
                        for a in history.aliases_of(loser)
                    ],
                    score=score,
                    rule=rule,
                    explanation=dict(explanation or {}),
                )
            )
            for key in sorted(edges):
                kind, subject, obj, supports = edges[key]
                new_id = relationship_id_for(subject, kind, obj)
                events.append(
                    RelationshipAsserted(
                        relationship=relationship_state(new_id, kind, subject, obj, supports),
                        support_added=supports,
                    )
                )
            return events, winner

        return await self._write(tenant, plan)

    async def unmerge(self, tenant: TenantId, alias: EntityId) -> EntityId:
        """Undo the merge that made ``alias`` an alias; returns the restored entity's id.

        The restored entity gets back the evidence it brought to the merge (what of it still
        exists); edges stated in passages where only it is mentioned move back to it. The pair
        is kept apart from then on: :meth:`merge` refuses it. Raises
        :class:`MergeRefusedError` when ``alias`` is not an alias made by a merge.
        """

        async def plan(history: TenantHistory) -> tuple[list[GraphEvent], EntityId]:
            current = history.aliases.get(alias)
            record = next(
                (m for m in reversed(history.merges) if m.loser_id == alias and not m.undone),
                None,
            )
            if current is None or record is None:
                raise MergeRefusedError(
                    f"{alias} is not an alias left by a merge in this tenant; list merges "
                    "with KnowledgeGraph.merges()"
                )
            winner = current.canonical_id
            known = history.entities[winner]
            moving = {item.key for item in record.loser_evidence}
            back = [item for item in known.evidence if item.key in moving]
            keep = [item for item in known.evidence if item.key not in moving]
            if not back or not keep:
                raise MergeRefusedError(
                    f"cannot unmerge {alias}: "
                    + ("none of its evidence remains" if not back else "it holds all evidence")
                )
            restored, restored_names = entity_state(alias, back)
            entity, names = entity_state(winner, keep)
            back_chunks = {item.chunk_id for item in back if item.chunk_id is not None}
            keep_chunks = {item.chunk_id for item in keep if item.chunk_id is not None}
            events: list[GraphEvent] = [
                EntitiesUnmerged(
                    winner_id=winner,
                    restored=restored,
                    restored_names=restored_names,
                    restored_evidence=back,
                    entity=entity,
                    names=names,
                    restored_chunks=sorted(back_chunks),
                    winner_left_chunks=sorted(back_chunks - keep_chunks),
                )
            ]
            only_restored = back_chunks - keep_chunks
            for relationship_id in history.relationships_touching(winner):
                old = history.relationships[relationship_id]
                moved = [s for s in old.supports if s.chunk_id in only_restored]
                if not moved:
                    continue
                stays = [s for s in old.supports if s.chunk_id not in only_restored]
                rel = old.relationship
                if stays:
                    events.append(
                        RelationshipAsserted(
                            relationship=relationship_state(
                                rel.id, rel.type, rel.subject_id, rel.object_id, stays
                            ),
                            support_removed_chunks=sorted(
                                {s.chunk_id for s in moved if s.chunk_id is not None}
                            ),
                        )
                    )
                else:
                    events.append(RelationshipRetracted(relationship_id=rel.id))
                subject = alias if rel.subject_id == winner else rel.subject_id
                obj = alias if rel.object_id == winner else rel.object_id
                new_id = relationship_id_for(subject, rel.type, obj)
                events.append(
                    RelationshipAsserted(
                        relationship=relationship_state(new_id, rel.type, subject, obj, moved),
                        support_added=moved,
                    )
                )
            return events, alias

        return await self._write(tenant, plan)

    # -- deletion and rebuild -------------------------------------------------------------

    async def delete_source(self, tenant: TenantId, source: SourceId) -> DeleteReport:
        """Remove a source's passages and every fact only it supported."""

        async def plan(history: TenantHistory) -> tuple[list[GraphEvent], DeleteReport]:
            known = history.sources.get(source)
            if known is None:
                return [], DeleteReport(source_id=source, existed=False)
            changes = ChangeSet(history)
            changes.remove_source(source)
            events = changes.events()
            events.append(SourceDeleted(source_id=source))
            outcome = changes.outcome
            return events, DeleteReport(
                source_id=source,
                existed=True,
                chunks_removed=len(known.chunk_ids),
                entities_removed=outcome.entities_retracted,
                entities_updated=outcome.entities_updated,
                relationships_removed=outcome.relationships_retracted,
            )

        return await self._write(tenant, plan)

    async def delete_tenant(self, tenant: TenantId) -> int:
        """Erase the tenant everywhere: projections, checkpoints and the log itself; returns
        how many events the log held.

        The ``TenantDeleted`` marker makes a process that reads the log before the erasure
        completes finish it; one that folded the tenant earlier finds its history's last
        event gone at its next read (:meth:`sync`).
        """
        async with self._lock(tenant):
            marker = encode(tenant, "tenant-deleted", TenantDeleted())
            await self._events.append(tenant, GRAPH_STREAM, [marker])
            return max(0, await self._finish_erasure(tenant) - 1)

    async def _finish_erasure(self, tenant: TenantId) -> int:
        # The projector knows every store: passage vectors and retired models' too.
        await self._projector.erase(tenant)
        erased = await self._events.delete_by_tenant(tenant)
        forgotten = self._histories.pop(tenant, None)
        if forgotten is not None:
            forgotten.deleted = True
        return erased

    async def rebuild(self, tenant: TenantId) -> int:
        """Empty the tenant's projections and replay its whole log; returns events applied."""
        async with self._lock(tenant):
            await self._projector.reset(tenant)
            self._histories.pop(tenant, None)
            history = TenantHistory()
            applied = await self._projector.catch_up(tenant, after=0, observer=history.apply_all)
            self._histories[tenant] = history
            return applied


def _audited_merges(
    tenant: TenantId,
    changes: ChangeSet,
    audits: Sequence[tuple[EntityId, Evidence, Decision]],
) -> tuple[list[GraphEvent], list[GraphEvent]]:
    """Events that record audited matches as merges: the mention as an entity, then merged.

    Returns the events to put before the change set's (each mention's own entity) and after
    it (the merges, each carrying the winner's final state).
    """
    before: list[GraphEvent] = []
    after: list[GraphEvent] = []
    seen: set[EntityId] = set()
    for winner, evidence, decision in audits:
        loser = EntityId(
            derived_id(
                "mention",
                tenant,
                evidence.source_id,
                evidence.chunk_id or "",
                evidence.ref or "",
                evidence.type,
                evidence.name,
            )
        )
        if loser in seen or loser == winner:
            continue
        seen.add(loser)
        own, own_names = entity_state(loser, [evidence])
        before.append(EntityCreated(entity=own, names=own_names, evidence_added=[evidence]))
        entity, names = changes.state(winner)
        after.append(
            EntitiesMerged(
                winner_id=winner,
                loser_id=loser,
                loser_name=evidence.name,
                entity=entity,
                names=names,
                score=decision.score,
                rule=decision.rule,
                explanation=dict(decision.explanation),
            )
        )
    return before, after


def _live(history: TenantHistory, entity_id: EntityId) -> EntityId:
    found = history.resolve(entity_id)
    if found is None:
        raise UnknownEntityError(f"the tenant holds no entity or alias {entity_id}")
    return found


def _fold(name: str) -> str:
    return " ".join(name.casefold().split())


def resolution_context(history: TenantHistory, schema: Schema) -> ResolutionContext:
    """What the resolver may know of the tenant: the kinds its schema declares per type, the
    weights its log recorded, its size, and a sample of its stored entities (ADR 0035)."""
    entities = history.entities

    def sample(entity_type: str, limit: int) -> list[Entity]:
        typed = [item.entity for item in entities.values() if item.entity.type == entity_type]
        step = max(1, len(typed) // limit)
        return typed[::step][:limit]

    kinds = {
        spec.name: {key_form(key): FieldKind(kind) for key, kind in spec.attribute_kinds().items()}
        for spec in schema.entity_types
    }
    return ResolutionContext(
        kinds=kinds,
        weights=dict(history.weights),
        entities=len(entities),
        records=history.records_imported,
        sample=sample,
    )


def _relationship_type(schema: Schema, relationship_type: str) -> str:
    """The declared spelling of a loosely matched relationship type; unknown ones unchanged
    (they are refused and counted where they are used)."""
    spec = schema.relationship_type(relationship_type)
    return relationship_type if spec is None else spec.name


def _relationship_problem(schema: Schema, relationship_type: str) -> str:
    """Why a statement with a missing endpoint is dropped: its type first, then the endpoint."""
    if schema.relationship_type(relationship_type) is None:
        return "unknown_relationship_type"
    return "dangling_relationship"


def _count(dropped: dict[str, int], reason: str) -> None:
    dropped[reason] = dropped.get(reason, 0) + 1


def _refused(
    schema: Schema,
    changes: ChangeSet,
    relationship_type: str,
    subject_id: EntityId,
    object_id: EntityId,
    dropped: dict[str, int],
) -> bool:
    """True (and counted) when the schema refuses the statement between these entities."""
    if schema.relationship_type(relationship_type) is None:
        _count(dropped, "unknown_relationship_type")
        return True
    subject_type = changes.entity_type(subject_id)
    object_type = changes.entity_type(object_id)
    if not schema.allows(relationship_type, subject_type, object_type):
        _count(dropped, "relationship_pattern")
        return True
    return False


def _unchanged(
    known: SourceHistory | None, content_hash: str, metadata: Mapping[str, JsonValue]
) -> bool:
    """The source already holds this text and metadata, with no passage left to retry."""
    return (
        known is not None
        and known.content_hash == content_hash
        and not known.failed_chunk_ids
        and known.metadata == metadata
    )


def _extraction_drops(extraction: Extraction) -> dict[str, int]:
    return dict(extraction.dropped)


def _possible_matches(
    decisions: Sequence[Decision], entity_of: Sequence[EntityId]
) -> list[GraphEvent]:
    found: dict[tuple[str, str], PossibleMatchRecorded] = {}
    for decision in decisions:
        if decision.possible_match is None:
            continue
        entity_id = entity_of[decision.mention_index]
        if entity_id == decision.possible_match:
            continue
        key = (str(entity_id), str(decision.possible_match))
        found.setdefault(
            key,
            PossibleMatchRecorded(
                entity_id=entity_id,
                candidate_id=decision.possible_match,
                score=decision.score,
                rule=decision.rule,
                explanation=decision.explanation,
            ),
        )
    return [found[key] for key in sorted(found)]
