"""The projector: applies a tenant's events to the graph, vector and passage stores.

With a ``passage_vectors`` store it also keeps one embedding per passage there
(:mod:`redstring.projections.passage_vectors`): a source's new passages are embedded when it
is ingested, and its removed ones forgotten when it is replaced or deleted.

Each tenant's progress is a checkpoint in the event log (``EventLog.checkpoint``), saved after
each page of events has been written. A crash between the writes and the checkpoint re-applies
that page, which changes nothing: events carry whole states and every store write is an
idempotent upsert or delete. Re-applying an entity that has since become an alias, or an
alias whose id was a live entity, is handled here so that replaying any suffix of the log is
safe. ``rebuild`` empties the tenant's projections and replays its whole log; it must arrive at
the state incremental projection reached (the property tests compare them).

Consecutive entity writes and consecutive relationship writes are batched into one store
call each, and every vector write of a page is embedded in one provider call.

With a :class:`~redstring.projections.vector_space.VectorSpace`, vectors are written only
while the tenant's vectors are that model's: a tenant embedded with another model keeps its
graph and passages current and gets no vectors of a second model beside the first (ADR
0047). ``rebuild`` (:meth:`Projector.reset`, then a replay) re-embeds it with this model and
empties the ``retired`` vector stores (other models' tables) of it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from pydantic import JsonValue

from redstring.domain.chunks import Chunk, StoredChunk
from redstring.domain.events import StoredEvent
from redstring.domain.graph_events import (
    AliasAdded,
    EntitiesMerged,
    EntitiesUnmerged,
    EntityCreated,
    EntityEvidenceAdded,
    EntityRetracted,
    EntityUpdated,
    RelationshipAsserted,
    RelationshipRetracted,
    RelationshipSupportAdded,
    SourceDeleted,
    SourceIngested,
    TenantDeleted,
    decode,
)
from redstring.domain.history import DESCRIPTION_ATTRIBUTE
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.domain.models import Alias, Entity, Relationship
from redstring.domain.vector import VectorRecord
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import ENTITY_TYPE_KEY, VectorStore
from redstring.projections.checkpoints import PROJECTIONS
from redstring.projections.embedding import embed_each
from redstring.projections.passage_vectors import (
    forget_passage_vectors,
    project_passage_vectors,
)
from redstring.projections.vector_space import VectorSpace

PageObserver = Callable[[Sequence[StoredEvent]], Awaitable[None] | None]


def entity_text(entity: Entity, names: Sequence[str]) -> str:
    """What is embedded for an entity: name, type, other surface names and description.

    Aliases and the description make a question using a nickname or a property find the
    entity; the type disambiguates a person from a company of the same name.
    """
    others = [name for name in names if name != entity.name]
    parts = [f"{entity.name} ({entity.type})."]
    if others:
        parts.append("Also known as " + ", ".join(others) + ".")
    description = entity.attributes.get(DESCRIPTION_ATTRIBUTE)
    if isinstance(description, str) and description.strip():
        parts.append(description.strip())
    return " ".join(parts)


@dataclass
class _Page:
    """Writes gathered from consecutive events, flushed in order before any other kind."""

    entities: dict[EntityId, Entity] = field(default_factory=dict)
    relationships: dict[str, Relationship] = field(default_factory=dict)
    vector_texts: dict[EntityId, tuple[str, dict[str, JsonValue]]] = field(default_factory=dict)
    vector_deletes: set[EntityId] = field(default_factory=set)
    embeds: bool = True
    """False while the tenant's vectors are another model's: no vector is written."""


class Projector:
    """Projects a tenant's log into the graph, vector and passage stores, resumably."""

    def __init__(
        self,
        *,
        graph: GraphStore,
        vectors: VectorStore,
        chunks: ChunkStore,
        events: EventLog,
        embeddings: EmbeddingProvider,
        passage_vectors: VectorStore | None = None,
        page_size: int = 500,
        vector_space: VectorSpace | None = None,
        retired_vectors: Sequence[VectorStore] = (),
    ) -> None:
        """``vector_space`` records which model's vectors the stores hold (``None``: the
        stores are trusted to hold this model's); ``retired_vectors`` are stores of other
        models, emptied of a tenant when it is rebuilt or deleted."""
        self._graph = graph
        self._vectors = vectors
        self._chunks = chunks
        self._events = events
        self._embeddings = embeddings
        self._passage_vectors = passage_vectors
        self._page_size = page_size
        self._space = vector_space
        self._retired = tuple(retired_vectors)

    async def catch_up(
        self, tenant: TenantId, *, after: int | None = None, observer: PageObserver | None = None
    ) -> int:
        """Apply every event after the tenant's checkpoint; returns how many were applied.

        ``observer`` sees every page read, starting after ``after`` when that is earlier than
        the checkpoint (events up to the checkpoint are shown but not re-applied), so a
        caller folding the same log shares the reads.
        """
        checkpoint = await self._events.checkpoint(tenant, PROJECTIONS)
        position = checkpoint if after is None else min(after, checkpoint)
        applied = 0
        embeds: bool | None = None
        while True:
            page = await self._events.read(tenant, after=position, limit=self._page_size)
            if not page:
                return applied
            if observer is not None:
                result = observer(page)
                if result is not None:
                    await result
            fresh = [stored for stored in page if stored.position > checkpoint]
            if fresh:
                if embeds is None:
                    embeds = await self._embeds(tenant, checkpoint)
                await self._apply(tenant, fresh, embeds=embeds)
                checkpoint = fresh[-1].position
                await self._events.save_checkpoint(tenant, PROJECTIONS, checkpoint)
                applied += len(fresh)
            position = page[-1].position

    async def reset(self, tenant: TenantId) -> None:
        """Empty the tenant's projections (other models' vector stores too) and rewind its
        checkpoint, ready for a replay that embeds with this projector's model."""
        await self.erase(tenant)
        await self._events.save_checkpoint(tenant, PROJECTIONS, 0)
        if self._space is not None:
            await self._space.restart(tenant)

    async def erase(self, tenant: TenantId) -> None:
        """Delete everything the projections hold of the tenant: graph, passages and the
        vectors of every store, retired models' included. Leaves the log and checkpoints."""
        await self._graph.delete_by_tenant(tenant)
        await self._chunks.delete_by_tenant(tenant)
        await self._delete_vectors(tenant)

    async def vectors_current(self, tenant: TenantId) -> bool:
        """True when the tenant's vector stores hold this model's vectors (or none yet)."""
        return True if self._space is None else await self._space.current(tenant)

    async def _embeds(self, tenant: TenantId, checkpoint: int) -> bool:
        return True if self._space is None else await self._space.enter(tenant, checkpoint)

    async def _delete_vectors(self, tenant: TenantId) -> None:
        await self._vectors.delete_by_tenant(tenant)
        if self._passage_vectors is not None:
            await self._passage_vectors.delete_by_tenant(tenant)
        for retired in self._retired:
            await retired.delete_by_tenant(tenant)

    async def _apply(
        self, tenant: TenantId, page: Sequence[StoredEvent], *, embeds: bool = True
    ) -> None:
        pending = _Page(embeds=embeds)
        for stored in page:
            event = decode(stored)
            if isinstance(event, EntityEvidenceAdded | RelationshipSupportAdded):
                continue  # the state did not change: nothing to write
            if isinstance(event, EntityCreated | EntityUpdated):
                if pending.relationships:
                    await self._flush_graph(tenant, pending)
                pending.entities[event.entity.id] = event.entity
                self._vector_upsert(pending, event.entity, event.names)
            elif isinstance(event, RelationshipAsserted):
                if pending.entities:
                    await self._flush_graph(tenant, pending)
                pending.relationships[str(event.relationship.id)] = event.relationship
            else:
                await self._flush_graph(tenant, pending)
                await self._apply_one(tenant, event, pending)
        await self._flush_graph(tenant, pending)
        await self._flush_vectors(tenant, pending)

    async def _apply_one(self, tenant: TenantId, event: object, pending: _Page) -> None:
        if isinstance(event, EntityRetracted):
            await self._graph.delete_entities(tenant, [event.entity_id])
            self._vector_delete(pending, event.entity_id)
        elif isinstance(event, RelationshipRetracted):
            await self._graph.delete_relationship(tenant, event.relationship_id)
        elif isinstance(event, EntitiesMerged):
            await self._merge(tenant, event, pending)
        elif isinstance(event, EntitiesUnmerged):
            await self._unmerge(tenant, event, pending)
        elif isinstance(event, AliasAdded):
            await self._alias(tenant, event.alias)
        elif isinstance(event, SourceIngested):
            before = await self._source_chunk_ids(tenant, event.source_id)
            await self._chunks.replace_source(tenant, event.source_id, event.chunks)
            await self._project_passages(tenant, before, event.chunks, pending)
        elif isinstance(event, SourceDeleted):
            before = await self._source_chunk_ids(tenant, event.source_id)
            await self._chunks.delete_by_source(tenant, event.source_id)
            await self._project_passages(tenant, before, [], pending)
        elif isinstance(event, TenantDeleted):
            await self.erase(tenant)
            pending.vector_texts.clear()
            pending.vector_deletes.clear()

    async def _source_chunk_ids(self, tenant: TenantId, source: SourceId) -> set[ChunkId]:
        """The source's chunk ids before a change, when passage vectors need to follow it."""
        if self._passage_vectors is None:
            return set()
        return {chunk.id for chunk in await self._chunks.get_by_source(tenant, source)}

    async def _project_passages(
        self,
        tenant: TenantId,
        before: set[ChunkId],
        after: Sequence[StoredChunk],
        pending: _Page,
    ) -> None:
        """Embed the source's passages and forget its removed ones.

        Every passage of the source is (re-)embedded, not only the new ones: a crash between
        the chunk write and this one leaves the chunks looking current on replay, and a
        vector is written by key, so writing it again is harmless.
        """
        if self._passage_vectors is None or not pending.embeds:
            return
        kept = {chunk.id for chunk in after}
        await forget_passage_vectors(self._passage_vectors, tenant, before - kept)
        await project_passage_vectors(self._passage_vectors, self._embeddings, tenant, after)

    async def _merge(self, tenant: TenantId, event: EntitiesMerged, pending: _Page) -> None:
        winner, loser = event.winner_id, event.loser_id
        await self._upsert_entities(tenant, [event.entity])
        await self._graph.delete_entities(tenant, [loser])
        await self._alias(tenant, Alias(alias_id=loser, canonical_id=winner, name=event.loser_name))
        for alias in event.moved_aliases:
            await self._alias(tenant, alias)
        mentioning = await self._chunks.get_by_entity(tenant, loser)
        if mentioning:
            await self._chunks.upsert_many(
                tenant, [_relinked(c, loser, winner) for c in mentioning]
            )
        self._vector_delete(pending, loser)
        self._vector_upsert(pending, event.entity, event.names)

    async def _unmerge(self, tenant: TenantId, event: EntitiesUnmerged, pending: _Page) -> None:
        restored = event.restored
        await self._graph.remove_alias(tenant, restored.id)
        await self._upsert_entities(tenant, [event.entity, restored])
        relink = set(event.restored_chunks) | set(event.winner_left_chunks)
        if relink:
            found = await self._chunks.get_many(tenant, relink)
            changed = []
            for chunk_id in sorted(found):
                chunk = found[chunk_id].model_copy(deep=True)
                ids = set(chunk.entity_ids)
                if chunk_id in event.restored_chunks:
                    ids.add(restored.id)
                if chunk_id in event.winner_left_chunks:
                    ids.discard(event.winner_id)
                chunk.entity_ids = tuple(sorted(ids, key=str))
                changed.append(chunk)
            await self._chunks.upsert_many(tenant, changed)
        self._vector_upsert(pending, event.entity, event.names)
        self._vector_upsert(pending, restored, event.restored_names)

    async def _alias(self, tenant: TenantId, alias: Alias) -> None:
        # On a replay the alias id may still be a live entity from an earlier event of the
        # same page; the merge that made it an alias removed it, so remove it again.
        await self._graph.delete_entities(tenant, [alias.alias_id])
        await self._graph.upsert_alias(tenant, alias)

    async def _flush_graph(self, tenant: TenantId, pending: _Page) -> None:
        if pending.entities:
            await self._upsert_entities(tenant, list(pending.entities.values()))
            pending.entities.clear()
        if pending.relationships:
            await self._graph.upsert_relationships(tenant, list(pending.relationships.values()))
            pending.relationships.clear()

    async def _upsert_entities(self, tenant: TenantId, entities: list[Entity]) -> None:
        try:
            await self._graph.upsert_entities(tenant, entities)
        except ValueError:
            # A replay can meet an entity that a later event (already applied before a crash)
            # turned into an alias: drop those aliases, the later event restores them.
            ids = [entity.id for entity in entities]
            resolved = await self._graph.resolve_entity_ids(tenant, ids)
            for entity_id in ids:
                if resolved.get(entity_id, entity_id) != entity_id:
                    await self._graph.remove_alias(tenant, entity_id)
            await self._graph.upsert_entities(tenant, entities)

    def _vector_upsert(self, pending: _Page, entity: Entity, names: Sequence[str]) -> None:
        if not pending.embeds:
            return
        pending.vector_deletes.discard(entity.id)
        metadata: dict[str, JsonValue] = {ENTITY_TYPE_KEY: entity.type, "name": entity.name}
        pending.vector_texts[entity.id] = (entity_text(entity, names), metadata)

    def _vector_delete(self, pending: _Page, entity_id: EntityId) -> None:
        if not pending.embeds:
            return
        pending.vector_texts.pop(entity_id, None)
        pending.vector_deletes.add(entity_id)

    async def _flush_vectors(self, tenant: TenantId, pending: _Page) -> None:
        for entity_id in sorted(pending.vector_deletes, key=str):
            await self._vectors.delete(tenant, entity_id)
        if pending.vector_texts:
            ids = list(pending.vector_texts)
            texts = [pending.vector_texts[entity_id][0] for entity_id in ids]
            vectors = await embed_each(self._embeddings, texts)
            records = [
                VectorRecord(
                    entity_id=entity_id, vector=vector, metadata=pending.vector_texts[entity_id][1]
                )
                for entity_id, vector in zip(ids, vectors, strict=True)
                if vector
            ]
            if records:
                await self._vectors.upsert_many(tenant, records)
            # An entity the model gives no direction keeps no vector (found by name and
            # graph only), the same after a rebuild.
            for entity_id, vector in zip(ids, vectors, strict=True):
                if not vector:
                    await self._vectors.delete(tenant, entity_id)

    async def passages_without_vectors(self, chunks: Sequence[Chunk]) -> set[ChunkId]:
        """The chunks this projector would store without a passage vector: those the model
        gives no direction (none when there is no passage vector store). Writes nothing."""
        if self._passage_vectors is None or not chunks:
            return set()
        texts = list(dict.fromkeys(chunk.text for chunk in chunks))
        vectors = await embed_each(self._embeddings, texts)
        undirected = {text for text, vector in zip(texts, vectors, strict=True) if not vector}
        return {chunk.id for chunk in chunks if chunk.text in undirected}


def _relinked(chunk: StoredChunk, loser: EntityId, winner: EntityId) -> StoredChunk:
    ids = [winner if entity_id == loser else entity_id for entity_id in chunk.entity_ids]
    relinked = chunk.model_copy(deep=True)
    relinked.entity_ids = tuple(sorted(set(ids), key=str))
    return relinked
