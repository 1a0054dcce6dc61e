"""How long ``Retriever.query`` takes at 10k entities and 20k passages, on memory and PostgreSQL.

Run with ``uv run --frozen --no-sync python -m benchmarks.retrieval_latency`` (``--quick`` for
a tenth of the sizes, ``--only memory`` or ``--only postgres``). PostgreSQL is the one named
by ``REDSTRING_TEST_POSTGRES_DSN`` or, without it, a pgserver started in a temporary
directory and deleted at exit. Offline: the embedding model is the bundled static one.

The measured tenant holds 10,000 entities (people, organisations, places with generated
names), 30,000 relationships and 20,000 passages of ~80 words drawn from the Velmar corpus's
own word frequencies (so "the", "of" and "and" are as common as in English prose) with two
or three entity names each; nine other tenants hold a tenth of that each. Two kinds of
question, 200 each, after 20 of warm-up: with very common words ("Where did X work before
the merger of the ...?") and of content words only. ``query`` runs with k=10, depth=1 and no
cache, so every query embeds its text. Beside it, each part is timed alone over the same
questions (one call of each port the query makes), so the total can be read as a sum. The
stores hold the static model's vectors (embedding 30,000 texts with MiniLM takes an hour
here); the MiniLM row times the query embedding the in-memory default adds, and the depth-0
row is the query without the graph walk (ADR 0034).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.corpus import load_corpus
from redstring.domain.chunk_ranking import bm25, query_terms, tokenize
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import EntityId, RelationshipId, SourceId, TenantId
from redstring.domain.models import Entity, Provenance, Relationship
from redstring.domain.vector import VectorRecord
from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.projections.passage_vectors import project_passage_vectors
from redstring.projections.projector import entity_text
from redstring.retrieval import Retriever
from redstring.vector.adapters.memory import InMemoryVectorStore

TENANTS = [TenantId(f"tenant-{n}") for n in range(10)]
SEED = 20261203
QUERIES = 200
WARM_UP = 20
BATCH = 1_000
SYLLABLES = ("ka", "lo", "ve", "ri", "tan", "mor", "sel", "dun", "ak", "ber", "ost", "vin")


@dataclass(frozen=True)
class Sizes:
    entities: int
    chunks: int
    relationships_per_entity: int = 3


FULL = Sizes(10_000, 20_000)
QUICK = Sizes(1_000, 2_000)


@dataclass
class Stores:
    graph: GraphStore
    vectors: VectorStore
    passages: VectorStore
    chunks: ChunkStore


def percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _name(rng: random.Random) -> str:
    def word() -> str:
        return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()

    return f"{word()} {word()}"


class World:
    """A generated tenant: entities, relationships and passages, deterministic per seed."""

    def __init__(self, sizes: Sizes, rng: random.Random) -> None:
        corpus = load_corpus()
        counts = Counter(token for d in corpus.documents for token in tokenize(d.text))
        self.vocabulary = list(counts)
        self.weights = [float(counts[word]) for word in self.vocabulary]
        self.common = [word for word, _ in counts.most_common(30)]
        self.rare = [word for word, count in counts.items() if count <= 2 and len(word) > 4]
        kinds = ("Person", "Organization", "Location")
        self.entities = [
            Entity(
                id=EntityId(uuid.UUID(int=rng.getrandbits(128), version=4)),
                type=kinds[n % 3],
                name=f"{_name(rng)} {n}",
                provenance=Provenance(model="bench/generated"),
            )
            for n in range(sizes.entities)
        ]
        self.chunks: list[StoredChunk] = []
        for n in range(sizes.chunks):
            named = rng.sample(self.entities, rng.randint(2, 3))
            words = rng.choices(self.vocabulary, weights=self.weights, k=80)
            for offset, entity in enumerate(named):
                words.insert(20 * offset + rng.randint(0, 19), entity.name)
            source = SourceId(f"doc-{n // 10}.md")
            text = " ".join(words) + "."
            self.chunks.append(
                StoredChunk(
                    id=chunk_id(source, text),
                    source_id=source,
                    chunk_index=n % 10,
                    text=text,
                    char_start=0,
                    char_end=len(text),
                    entity_ids=tuple(entity.id for entity in named),
                )
            )
        holders: dict[EntityId, list[StoredChunk]] = {}
        for chunk in self.chunks:
            for entity_id in chunk.entity_ids:
                holders.setdefault(entity_id, []).append(chunk)
        self.relationships = []
        for chunk in rng.sample(self.chunks, min(len(self.chunks), sizes.entities * 3 // 2)):
            subject, obj = chunk.entity_ids[0], chunk.entity_ids[1]
            self.relationships.append(
                Relationship(
                    id=RelationshipId(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    type=rng.choice(("WORKS_FOR", "LOCATED_IN", "KNOWS")),
                    subject_id=subject,
                    object_id=obj,
                    provenance=Provenance(chunk_ids=(chunk.id,), model="bench/generated"),
                )
            )
        self.rng = rng

    def question(self, common: bool) -> str:
        entity = self.rng.choice(self.entities)
        rare = self.rng.sample(self.rare, 2)
        if common:
            filler = self.rng.sample(self.common, 4)
            return f"Where did {entity.name} {rare[0]} {filler[0]} the {rare[1]} of {filler[1]}?"
        return f"{entity.name} {rare[0]} {rare[1]}"


async def write(
    world: World,
    stores: Stores,
    tenant: TenantId,
    embeddings: EmbeddingProvider,
    share: float = 1.0,
) -> None:
    """Write ``share`` of the world for ``tenant`` through the ports, in batches."""
    entities = world.entities[: int(len(world.entities) * share)]
    kept = {entity.id for entity in entities}
    chunks = [
        c
        for c in world.chunks[: int(len(world.chunks) * share)]
        if all(e in kept for e in c.entity_ids)
    ]
    held = {c.id for c in chunks}
    relationships = [
        r
        for r in world.relationships
        if r.subject_id in kept
        and r.object_id in kept
        and all(c in held for c in r.provenance.chunk_ids)
    ]
    for offset in range(0, len(entities), BATCH):
        batch = entities[offset : offset + BATCH]
        await stores.graph.upsert_entities(tenant, batch)
        vectors = await embeddings.embed([entity_text(e, [e.name]) for e in batch])
        await stores.vectors.upsert_many(
            tenant,
            [
                VectorRecord(
                    entity_id=e.id, vector=v, metadata={"entity_type": e.type, "name": e.name}
                )
                for e, v in zip(batch, vectors, strict=True)
            ],
        )
    for offset in range(0, len(relationships), BATCH):
        await stores.graph.upsert_relationships(tenant, relationships[offset : offset + BATCH])
    for offset in range(0, len(chunks), BATCH):
        batch = chunks[offset : offset + BATCH]
        await stores.chunks.upsert_many(tenant, batch)
        await project_passage_vectors(stores.passages, embeddings, tenant, batch)


async def timed(call: Callable[[], Awaitable[Any]]) -> list[float]:
    for _ in range(WARM_UP):
        await call()
    samples = []
    for _ in range(QUERIES):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


async def measure(
    label: str, stores: Stores, world: World, embeddings: EmbeddingProvider
) -> list[str]:
    retriever = Retriever(
        graph=stores.graph,
        vectors=stores.vectors,
        chunks=stores.chunks,
        embeddings=embeddings,
        passage_vectors=stores.passages,
    )
    lines = []
    for common in (True, False):
        questions = [world.question(common) for _ in range(QUERIES + WARM_UP)]
        kind = "with very common words" if common else "content words only"
        lines += await _measure_kind(label, kind, questions, retriever, stores, world, embeddings)
    return lines


async def _measure_kind(
    label: str,
    kind: str,
    questions: list[str],
    retriever: Retriever,
    stores: Stores,
    world: World,
    embeddings: EmbeddingProvider,
) -> list[str]:
    tenant = TENANTS[0]
    vectors = await embeddings.embed_query(questions)
    minilm = _minilm()
    paying = Retriever(
        graph=stores.graph,
        vectors=stores.vectors,
        chunks=stores.chunks,
        embeddings=_PayingMiniLM(embeddings, minilm),
        passage_vectors=stores.passages,
    )
    parts: dict[str, Callable[[int], Awaitable[Any]]] = {
        "query (all of it)": lambda n: retriever.query(tenant, questions[n], k=10),
        "query, paying MiniLM's query embedding (the default)": lambda n: paying.query(
            tenant, questions[n], k=10
        ),
        # The row above asked each of these questions once: now each vector is kept.
        "query, paying MiniLM, each question again (its vector kept)": lambda n: paying.query(
            tenant, questions[n], k=10
        ),
        "query without the graph walk (depth 0)": lambda n: retriever.query(
            tenant, questions[n], k=10, depth=0
        ),
        "embed_query": lambda n: embeddings.embed_query([questions[n]]),
        "embed_query with MiniLM (int8, 384-d; the in-memory default)": lambda n: (
            minilm.embed_query([questions[n]])
        ),
        "entity vector search": lambda n: stores.vectors.search(tenant, vectors[n], k=10),
        "passage vector search": lambda n: stores.passages.search(tenant, vectors[n], k=10),
        "lexical_candidates + bm25": lambda n: _lexical(stores.chunks, tenant, questions[n]),
        "neighbours depth 1 (one seed)": lambda n: stores.graph.neighbours(
            tenant, world.entities[n].id, depth=1
        ),
    }
    lines = []
    for part, call in parts.items():
        cursor = iter(range(QUERIES + WARM_UP))
        samples = await timed(lambda call=call, cursor=cursor: call(next(cursor)))
        lines.append(
            f"| {label} | {kind} | {part} | {ms(percentile(samples, 0.5))} | "
            f"{ms(percentile(samples, 0.95))} |"
        )
    return lines


_LOADED: list[EmbeddingProvider] = []


class _PayingMiniLM:
    """The stores' model's vectors, at MiniLM's cost: each query is embedded by both and the
    stored model's vector returned, so a query pays what the default model costs (the stores
    hold static vectors: embedding 30,000 texts with MiniLM takes too long here)."""

    def __init__(self, stored: EmbeddingProvider, minilm: EmbeddingProvider) -> None:
        self._stored = stored
        self._minilm = minilm

    @property
    def model(self) -> str:
        return self._stored.model

    @property
    def dimension(self) -> int:
        return self._stored.dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._stored.embed(texts)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        await self._minilm.embed_query(texts)
        return await self._stored.embed_query(texts)


def _minilm() -> EmbeddingProvider:
    """MiniLM, loaded once: its query cost is measured beside the static model's."""
    if not _LOADED:
        from redstring.embeddings.adapters.onnx import OnnxEmbeddingProvider

        _LOADED.append(OnnxEmbeddingProvider.minilm())
    return _LOADED[0]


async def _lexical(chunks: ChunkStore, tenant: TenantId, question: str) -> None:
    terms = query_terms(question)
    bm25(await chunks.lexical_candidates(tenant, terms), terms, limit=10)


async def run_memory(world: World, embeddings: EmbeddingProvider, sizes: Sizes) -> list[str]:
    stores = Stores(
        InMemoryGraphStore(),
        InMemoryVectorStore(dimension=embeddings.dimension),
        InMemoryVectorStore(dimension=embeddings.dimension),
        InMemoryChunkStore(),
    )
    await _load(world, stores, embeddings)
    return await measure("memory", stores, world, embeddings)


async def _load(world: World, stores: Stores, embeddings: EmbeddingProvider) -> None:
    start = time.perf_counter()
    await write(world, stores, TENANTS[0], embeddings)
    for tenant in TENANTS[1:]:
        await write(world, stores, tenant, embeddings, share=0.1)
    print(f"loaded in {time.perf_counter() - start:.0f} s")


async def run_postgres(world: World, embeddings: EmbeddingProvider, sizes: Sizes) -> list[str]:
    import asyncpg

    from redstring.chunks.adapters.postgres import PostgresChunkStore
    from redstring.graph.adapters.postgres import PostgresGraphStore
    from redstring.vector.adapters.pgvector import PgVectorStore

    with tempfile.TemporaryDirectory(prefix="redstring-latency-") as directory:
        dsn = os.environ.get("REDSTRING_TEST_POSTGRES_DSN") or _start(Path(directory))
        pool = await asyncpg.create_pool(dsn, min_size=2, max_size=8)
        prefix = f"latency_{uuid.uuid4().hex[:6]}_"
        stores = Stores(
            PostgresGraphStore(pool, prefix=prefix),
            PgVectorStore(pool, dimension=embeddings.dimension, prefix=prefix),
            PgVectorStore(pool, dimension=embeddings.dimension, prefix=prefix + "passage_"),
            PostgresChunkStore(pool, prefix=prefix),
        )
        try:
            for store in (stores.graph, stores.vectors, stores.passages, stores.chunks):
                await store.ensure_schema()  # type: ignore[attr-defined]
            await _load(world, stores, embeddings)
            tables = await pool.fetch(
                "SELECT tablename FROM pg_tables WHERE tablename LIKE $1", prefix + "%"
            )
            for row in tables:
                await pool.execute(f'VACUUM ANALYZE "{row["tablename"]}"')
            return await measure("PostgreSQL", stores, world, embeddings)
        finally:
            for row in await pool.fetch(
                "SELECT tablename FROM pg_tables WHERE tablename LIKE $1", prefix + "%"
            ):
                await pool.execute(f'DROP TABLE IF EXISTS "{row["tablename"]}" CASCADE')
            await pool.close()


def _start(directory: Path) -> str:
    from benchmarks.postgres_bench import start_server

    return start_server(directory / "pgdata")


async def main_async(sizes: Sizes, only: Sequence[str]) -> None:
    embeddings = LocalStaticEmbeddingProvider.bundled()
    world = World(sizes, random.Random(SEED))
    print(
        f"measured tenant: {len(world.entities):,} entities, {len(world.relationships):,} "
        f"relationships, {len(world.chunks):,} passages; nine others a tenth each; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    lines = [
        "| store | questions | part | p50 ms | p95 ms |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    if "memory" in only:
        lines += await run_memory(world, embeddings, sizes)
    if "postgres" in only:
        lines += await run_postgres(world, embeddings, sizes)
    print("\n".join(lines))
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    global QUERIES, WARM_UP
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument("--only", choices=("memory", "postgres"), action="append")
    parser.add_argument("--queries", type=int, default=QUERIES, help="questions per kind")
    arguments = parser.parse_args()
    QUERIES, WARM_UP = arguments.queries, max(1, arguments.queries // 10)
    asyncio.run(
        main_async(QUICK if arguments.quick else FULL, arguments.only or ("memory", "postgres"))
    )


if __name__ == "__main__":
    main()
