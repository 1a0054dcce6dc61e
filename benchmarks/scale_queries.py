"""Queries on the dense scale graph: the bounded reads against the reads they replaced.

Run with ``uv run --frozen --no-sync python -m benchmarks.scale_queries`` (``--documents N``
of ``benchmarks.scale_corpus`` ingested in memory, ``--queries N`` per kind, ``--profile
FILE`` for a cProfile of the bounded queries). One graph, one process: each question is asked
twice in turn, once as the retriever reads today ("bounded": a linked entity's passages cut
in the store with the rest of the question's order, the neighbourhood's edges only *among*
the entities read, ADR 0039) and once with the stores ignoring those bounds ("unbounded":
every passage naming the entity and every edge touching a reached one, what was read before),
the order alternating per question. Printed per variant and kind of question: p50 / p95 /
p99 ms and the rows each store call returned per query (what the query read).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import random
import time
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from benchmarks.scale_bench import TENANT, WARM_UP, percentile
from benchmarks.scale_corpus import SCALE_SCHEMA, Corpus, HashedEmbeddings, InstantModel
from benchmarks.support import print_table
from redstring import KnowledgeGraph
from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.chunks import StoredChunk
from redstring.domain.ids import ChunkId, EntityId, TenantId
from redstring.domain.models import Relationship
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.extraction.llm import LlmExtractor
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.vector.adapters.memory import InMemoryVectorStore

BOUNDED, UNBOUNDED = "bounded", "unbounded"


class Switch:
    """Whether the stores drop the bounds asked of them, and the rows each call returned."""

    def __init__(self) -> None:
        self.unbounded = False
        self.rows: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()

    def count(self, name: str, rows: int) -> None:
        self.calls[name] += 1
        self.rows[name] += rows


class SwitchedGraph(InMemoryGraphStore):
    def __init__(self, switch: Switch) -> None:
        super().__init__()
        self.switch = switch

    async def get_relationships_for(
        self, tenant_id: TenantId, entity_ids: Collection[EntityId], *, among: bool = False
    ) -> list[Relationship]:
        among = among and not self.switch.unbounded
        found = await super().get_relationships_for(tenant_id, entity_ids, among=among)
        self.switch.count("graph.get_relationships_for", len(found))
        return found


class SwitchedChunks(InMemoryChunkStore):
    def __init__(self, switch: Switch) -> None:
        super().__init__()
        self.switch = switch

    async def get_by_entity(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        limit: int | None = None,
        prefer: Sequence[ChunkId] = (),
    ) -> list[StoredChunk]:
        if self.switch.unbounded:
            limit, prefer = None, ()
        found = await super().get_by_entity(tenant_id, entity_id, limit=limit, prefer=prefer)
        self.switch.count("chunks.get_by_entity", len(found))
        return found

    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        found = await super().get_many(tenant_id, chunk_ids)
        self.switch.count("chunks.get_many", len(found))
        return found


def build(switch: Switch, model: InstantModel) -> KnowledgeGraph:
    embeddings = HashedEmbeddings()
    return KnowledgeGraph(
        graph=SwitchedGraph(switch),
        vectors=InMemoryVectorStore(dimension=embeddings.dimension),
        chunks=SwitchedChunks(switch),
        events=InMemoryEventLog(),
        embeddings=embeddings,
        extractor=LlmExtractor(model),
        schema=SCALE_SCHEMA,
        passage_vectors=InMemoryVectorStore(dimension=embeddings.dimension),
    )


async def ingest_corpus(graph: KnowledgeGraph, corpus: Corpus, documents: int) -> None:
    """Ingest the first ``documents`` of the corpus, say what the graph holds, then collect
    and freeze, so that the queries pay their own cost, not a full collection of the graph."""
    started = time.perf_counter()
    for index in range(documents):
        await graph.ingest(TENANT, f"doc-{index:05d}.md", corpus.document(index))
    stats = await graph.stats(TENANT)
    print(
        f"{documents:,} documents in {time.perf_counter() - started:.0f} s: "
        f"{stats.entities:,} entities, {stats.relationships:,} relationships\n"
    )
    gc.collect()
    gc.freeze()


async def run(arguments: argparse.Namespace) -> None:
    corpus = Corpus()
    switch = Switch()
    graph = build(switch, InstantModel(corpus.types))
    await ingest_corpus(graph, corpus, arguments.documents)
    profiler = cProfile.Profile() if arguments.profile else None
    rng = random.Random(20261204)
    rows = []
    for common in (True, False):
        asked = [corpus.question(rng, common=common) for _ in range(arguments.queries + WARM_UP)]
        samples: dict[str, list[float]] = {BOUNDED: [], UNBOUNDED: []}
        reads: dict[str, Counter[str]] = {BOUNDED: Counter(), UNBOUNDED: Counter()}
        for turn, text in enumerate(asked):
            order = (BOUNDED, UNBOUNDED) if turn % 2 == 0 else (UNBOUNDED, BOUNDED)
            for variant in order:
                switch.unbounded = variant == UNBOUNDED
                switch.rows.clear()
                profiling = profiler is not None and variant == BOUNDED and turn >= WARM_UP
                before = time.perf_counter()
                if profiling and profiler is not None:
                    profiler.enable()
                await graph.query(TENANT, text)
                if profiling and profiler is not None:
                    profiler.disable()
                if turn >= WARM_UP:
                    samples[variant].append(time.perf_counter() - before)
                    reads[variant].update(switch.rows)
        for variant in (BOUNDED, UNBOUNDED):
            got = samples[variant]
            per_query = {name: n / len(got) for name, n in sorted(reads[variant].items())}
            rows.append(
                [
                    "with very common words" if common else "content words only",
                    variant,
                    " / ".join(f"{1000 * percentile(got, p):.1f}" for p in (0.5, 0.95, 0.99)),
                    ", ".join(f"{name} {n:.0f}" for name, n in per_query.items()),
                ]
            )
    switch.unbounded = False
    gc.unfreeze()
    await graph.close()
    print_table(["questions", "reads", "p50 / p95 / p99 ms", "rows returned per query"], rows)
    if profiler is not None:
        profiler.dump_stats(arguments.profile)
        print(f"profile of the bounded queries: {arguments.profile}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1000, help="documents to ingest")
    parser.add_argument("--queries", type=int, default=50, help="questions per kind")
    parser.add_argument("--profile", help="write a cProfile of the bounded queries here")
    arguments: Any = parser.parse_args()
    asyncio.run(run(arguments))


if __name__ == "__main__":
    main()
