"""A generated tenant for the graph view: ``entities`` entities of five types, relationships
whose ends follow a heavy-tailed choice (a few hubs, many leaves, as real graphs have), and
passages naming them in a few dozen sources. Deterministic for a seed."""

from __future__ import annotations

import random
import uuid

from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import EntityId, RelationshipId, SourceId
from redstring.domain.models import Entity, Relationship
from redstring.ingest.reports import GraphSnapshot, SnapshotEntity

TYPES = ("Person", "Organization", "Location", "Product", "Event")
RELATIONSHIP_TYPES = ("WORKS_FOR", "LOCATED_IN", "PRODUCES", "PARTICIPATED_IN", "FOUNDED")
_NAMESPACE = uuid.UUID("6b1f0c2e-6d3a-4a8e-9a43-0c8f1d1b7a10")


def synthetic_snapshot(
    entities: int, relationships: int, *, seed: int = 7, sources: int = 40
) -> GraphSnapshot:
    """The tenant ``view`` with that many entities and (distinct) relationships."""
    rng = random.Random(seed)
    ids = [EntityId(uuid.uuid5(_NAMESPACE, f"e{n}")) for n in range(entities)]
    weights = [1.0 / (n + 1) ** 0.9 for n in range(entities)]
    edges: dict[tuple[int, int, str], None] = {}
    while len(edges) < relationships:
        subject = rng.choices(range(entities), weights)[0]
        obj = rng.randrange(entities)
        if subject != obj:
            edges[(subject, obj, rng.choice(RELATIONSHIP_TYPES))] = None
    source_ids = [SourceId(f"docs/file-{n:03d}.md") for n in range(sources)]
    chunks: list[StoredChunk] = []
    mentioned: dict[int, list[SourceId]] = {}
    for start in range(0, entities, 4):
        group = list(range(start, min(entities, start + 4)))
        source = source_ids[(start // 4) % sources]
        text = " ".join(f"Name{n} Surname{n % 97} appears here with the others." for n in group)
        index = sum(1 for c in chunks if c.source_id == source)
        chunks.append(
            StoredChunk(
                id=chunk_id(source, text),
                source_id=source,
                chunk_index=index,
                text=text,
                entity_ids=tuple(ids[n] for n in group),
            )
        )
        for n in group:
            mentioned.setdefault(n, []).append(source)
    snapshot_entities = [
        SnapshotEntity(
            entity=Entity(id=ids[n], type=TYPES[n % len(TYPES)], name=f"Name{n} Surname{n % 97}"),
            sources=sorted(set(mentioned.get(n, []))),
            names=[f"Name{n} Surname{n % 97}", f"N{n} alias"],
        )
        for n in range(entities)
    ]
    snapshot_relationships = [
        Relationship(
            id=RelationshipId(uuid.uuid5(_NAMESPACE, f"r{s}-{o}-{t}")),
            type=t,
            subject_id=ids[s],
            object_id=ids[o],
        )
        for s, o, t in edges
    ]
    return GraphSnapshot(
        tenant_id="view",
        entities=sorted(snapshot_entities, key=lambda item: str(item.entity.id)),
        relationships=sorted(snapshot_relationships, key=lambda item: str(item.id)),
        passages=sorted(chunks, key=lambda c: (c.source_id, c.chunk_index)),
    )
