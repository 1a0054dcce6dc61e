"""The Velmar corpus written into stores as a perfect extraction and resolution would leave it.

Retrieval is measured apart from extraction: every passage names exactly the gold entities
mentioned in it (by any of their gold names, longest name first, so "Port Harlow" inside
"Port Harlow Chamber of Commerce" is not the town), every entity is embedded as the core
embeds it (``projections.projector.entity_text`` with all its gold names), and every gold
relationship carries as provenance the passages of its stating documents that name both
ends. Passages are cut by ``domain.chunking.chunk_text`` and embedded into a passage store.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

from redstring.corpus import Corpus, GoldEntity
from redstring.domain.blocking import blocking_keys
from redstring.domain.chunking import chunk_text
from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId, TenantId
from redstring.domain.models import Entity, Provenance, Relationship
from redstring.domain.vector import VectorRecord
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.projections.passage_vectors import project_passage_vectors
from redstring.projections.projector import entity_text

CHUNK_CHARS = 400
CHUNK_OVERLAP = 60
GOLD_MODEL = "gold/velmar"


@dataclass
class GoldWorld:
    """Ids of what was written: gold entity id <-> store id, and every passage."""

    entity_ids: dict[str, EntityId] = field(default_factory=dict)
    gold_ids: dict[EntityId, str] = field(default_factory=dict)
    chunks: list[StoredChunk] = field(default_factory=list)


def _gold_uuid(tenant: TenantId, kind: str, key: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"redstring-bench/{tenant}/{kind}/{key}")


def mentions(text: str, entities: tuple[GoldEntity, ...]) -> list[str]:
    """Gold entity ids named in ``text``, in order of first mention; longer names win."""
    found: list[tuple[int, int, str]] = []
    for entity in entities:
        for name in entity.names:
            for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
                found.append((match.start(), match.end(), entity.id))
    found.sort(key=lambda hit: (-(hit[1] - hit[0]), hit[0]))
    taken: list[tuple[int, int]] = []
    kept: list[tuple[int, str]] = []
    for start, end, entity_id in found:
        if any(start < t_end and t_start < end for t_start, t_end in taken):
            continue
        taken.append((start, end))
        kept.append((start, entity_id))
    return list(dict.fromkeys(entity_id for _, entity_id in sorted(kept)))


async def write_gold_world(
    corpus: Corpus,
    tenant: TenantId,
    *,
    graph: GraphStore,
    vectors: VectorStore,
    passages: VectorStore,
    chunks: ChunkStore,
    embeddings: EmbeddingProvider,
) -> GoldWorld:
    """Write the corpus for ``tenant`` through the ports; returns the id maps."""
    world = GoldWorld()
    for gold in corpus.entities:
        entity_id = EntityId(_gold_uuid(tenant, "entity", gold.id))
        world.entity_ids[gold.id] = entity_id
        world.gold_ids[entity_id] = gold.id
    named: dict[ChunkId, list[str]] = {}
    for document in corpus.documents:
        for chunk in chunk_text(
            SourceId(document.id),
            document.text,
            max_chars=CHUNK_CHARS,
            overlap_chars=CHUNK_OVERLAP,
        ):
            here = mentions(chunk.text, corpus.entities)
            named[chunk.id] = here
            world.chunks.append(
                StoredChunk(
                    **chunk.model_dump(),
                    entity_ids=tuple(world.entity_ids[g] for g in here),
                )
            )
    entities = []
    texts = []
    for gold in corpus.entities:
        evidence = tuple(c.id for c in world.chunks if gold.id in named[c.id])
        entity = Entity(
            id=world.entity_ids[gold.id],
            type=gold.type,
            name=gold.name,
            # Indexed under every surface name, as the core's history fold does.
            blocking_keys=tuple(
                sorted(
                    {
                        key
                        for name in (gold.name, *gold.names)
                        for key in blocking_keys(gold.type, name)
                    }
                )
            ),
            provenance=Provenance(
                source_id=SourceId(gold.documents[0]), chunk_ids=evidence[:5], model=GOLD_MODEL
            ),
        )
        entities.append(entity)
        texts.append(entity_text(entity, gold.names))
    relationships = []
    for gold_relationship in corpus.relationships:
        key = f"{gold_relationship.subject}|{gold_relationship.type}|{gold_relationship.object}"
        evidence = tuple(
            c.id
            for c in world.chunks
            if c.source_id in gold_relationship.documents
            and gold_relationship.subject in named[c.id]
            and gold_relationship.object in named[c.id]
        )
        relationships.append(
            Relationship(
                id=RelationshipId(_gold_uuid(tenant, "relationship", key)),
                type=gold_relationship.type,
                subject_id=world.entity_ids[gold_relationship.subject],
                object_id=world.entity_ids[gold_relationship.object],
                provenance=Provenance(chunk_ids=evidence, model=GOLD_MODEL),
            )
        )
    await graph.upsert_entities(tenant, entities)
    await graph.upsert_relationships(tenant, relationships)
    embedded = await embeddings.embed(texts)
    await vectors.upsert_many(
        tenant,
        [
            VectorRecord(
                entity_id=entity.id,
                vector=vector,
                metadata={"entity_type": entity.type, "name": entity.name},
            )
            for entity, vector in zip(entities, embedded, strict=True)
        ],
    )
    await chunks.upsert_many(tenant, world.chunks)
    await project_passage_vectors(passages, embeddings, tenant, world.chunks)
    return world
