"""How fast the Postgres adapters are on one machine, against floors measured in the same run.

Run with ``uv run --frozen --no-sync python -m benchmarks.postgres_bench`` (``--quick`` runs
a tenth of every size, for a smoke test). It starts its own PostgreSQL 16 + pgvector from the
``pgserver`` package in a temporary directory, talks to it over a unix socket, and deletes it
at exit.

1. Vector search: 10k, then 100k vectors of dimension 384 spread evenly over ten tenants;
   each query searches one tenant (k=10). The floor is numpy over the same tenant's vectors,
   doing the same arithmetic per query (dot products and norms, then the top k). The table
   gives p50/p95 of both and their ratio.
2. Bulk upserts: entities (with blocking keys), vectors and chunks (with their term rows),
   written through the adapters in batches; rows per second.
3. Graph neighbours at depth 2 (direction both) over 100k random edges among 20k entities.
4. Lexical candidates + BM25 (domain.chunk_ranking) over 20k chunks of Zipf-distributed words,
   for questions of four words drawn by the same distribution, for four content words, and
   for the first kind again with a stop-word list applied to the question before the store
   is asked (the corpus's 100 most frequent words, about what an English list holds). The
   last row measures what such a list in ``query_terms`` would buy; the library has none.
   Each kind runs with the default posting budget and with none (the contract before ADR
   0020, the baseline of the same run), over the same questions, and reports how much of the
   unbounded top 10 the budget keeps.

``--only chunks`` (or ``vectors``, ``graph``) runs one section.
"""

from __future__ import annotations

import os

# One thread for numpy's BLAS, set before numpy is imported: a PostgreSQL backend scans on one
# core, so the floor it is compared with does too (and threads fighting other processes on a
# shared 2-core machine made the numpy figures slower, not faster).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import asyncio
import random
import statistics
import tempfile
import time
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np

from redstring.chunks.adapters.postgres import PostgresChunkStore
from redstring.domain.chunk_ranking import (
    DEFAULT_POSTING_BUDGET,
    bm25,
    query_terms,
    term_frequencies,
)
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.ids import EntityId, RelationshipId, SourceId, TenantId
from redstring.domain.models import Entity, Relationship
from redstring.domain.vector import VectorRecord
from redstring.graph.adapters.postgres import PostgresGraphStore
from redstring.vector.adapters.pgvector import PgVectorStore

DIMENSION = 384
TENANTS = [TenantId(f"tenant-{n}") for n in range(10)]
K = 10
QUERIES = 200
WARM_UP = 20
SEED = 20261202
STOP_WORDS = 100
SECTIONS = ("vectors", "graph", "chunks")


@dataclass(frozen=True)
class Sizes:
    vector_steps: tuple[int, ...]
    graph_entities: int
    graph_edges: int
    chunks: int
    batch: int


FULL = Sizes((10_000, 100_000), 20_000, 100_000, 20_000, 1_000)
QUICK = Sizes((1_000, 10_000), 2_000, 10_000, 2_000, 500)


def percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f}"


async def timed(call: Callable[[], Awaitable[Any]], count: int) -> list[float]:
    for _ in range(WARM_UP):
        await call()
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


def start_server(directory: Path) -> str:
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    import pgserver  # benchmark infrastructure; the library never imports it

    server = pgserver.get_server(directory, cleanup_mode="delete")  # type: ignore[attr-defined]
    server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
    return str(server.get_uri())


# --- 1 and 2: vectors -------------------------------------------------------------------------


async def vector_section(pool: asyncpg.Pool, sizes: Sizes, rng: np.random.Generator) -> list[str]:
    store = PgVectorStore(pool, dimension=DIMENSION, prefix="bench_")
    await store.ensure_schema()
    lines = [
        f"vector search, dimension 384, k=10, one tenant of ten ({QUERIES} queries; ms)",
        f"{'vectors':>9} {'tenant':>7} {'pg p50':>8} {'pg p95':>8} {'np p50':>8} {'np p95':>8}"
        f" {'p50 x':>6} {'p95 x':>6}",
    ]
    throughput: list[float] = []
    per_tenant: dict[TenantId, np.ndarray] = {
        t: np.empty((0, DIMENSION), np.float32) for t in TENANTS
    }
    for total in sizes.vector_steps:
        for tenant in TENANTS:
            while len(per_tenant[tenant]) < total // len(TENANTS):
                count = min(sizes.batch, total // len(TENANTS) - len(per_tenant[tenant]))
                matrix = rng.standard_normal((count, DIMENSION), dtype=np.float32)
                records = [
                    VectorRecord(
                        entity_id=EntityId(uuid.uuid4()),
                        vector=row.tolist(),
                        metadata={"entity_type": "Person"},
                    )
                    for row in matrix
                ]
                start = time.perf_counter()
                await store.upsert_many(tenant, records)
                throughput.append(count / (time.perf_counter() - start))
                per_tenant[tenant] = np.vstack([per_tenant[tenant], matrix])
        await pool.execute(f"ANALYZE {store.table}")
        tenant = TENANTS[0]
        queries = rng.standard_normal((QUERIES + WARM_UP, DIMENSION), dtype=np.float32)
        cursor = iter(queries.tolist())

        async def search(tenant: TenantId = tenant, cursor: Iterator[list[float]] = cursor) -> None:
            await store.search(tenant, next(cursor), k=K)

        pg = await timed(search, QUERIES)
        corpus = per_tenant[tenant]
        np_samples = []
        for query in queries[WARM_UP:]:
            start = time.perf_counter()
            norms = np.sqrt(np.einsum("ij,ij->i", corpus, corpus)) * np.linalg.norm(query)
            scores = (corpus @ query) / norms
            top = np.argpartition(-scores, K)[:K]
            top[np.argsort(-scores[top])].tolist()
            np_samples.append(time.perf_counter() - start)
        p50, p95 = percentile(pg, 0.5), percentile(pg, 0.95)
        n50, n95 = percentile(np_samples, 0.5), percentile(np_samples, 0.95)
        lines.append(
            f"{total:>9} {len(corpus):>7} {ms(p50)} {ms(p95)} {ms(n50)} {ms(n95)}"
            f" {p50 / n50:6.1f} {p95 / n95:6.1f}"
        )
    lines.append(
        f"vector upsert: {statistics.median(throughput):,.0f} rows/s median over batches of "
        f"{sizes.batch}"
    )
    return lines


# --- 2 and 3: graph ---------------------------------------------------------------------------


async def graph_section(pool: asyncpg.Pool, sizes: Sizes, rng: random.Random) -> list[str]:
    store = PostgresGraphStore(pool, prefix="bench_")
    await store.ensure_schema()
    tenant, other = TENANTS[0], TENANTS[1]
    entities = [
        Entity(
            id=EntityId(uuid.uuid4()),
            type="Person",
            name=f"person {n}",
            attributes={"rank": n},
            blocking_keys=(f"Person|n:person {n}", f"Person|p:P{n % 1000:03d}"),
        )
        for n in range(sizes.graph_entities)
    ]
    start = time.perf_counter()
    for offset in range(0, len(entities), sizes.batch):
        await store.upsert_entities(tenant, entities[offset : offset + sizes.batch])
    entity_rate = len(entities) / (time.perf_counter() - start)
    # A second tenant of the same size, so every lookup has another tenant's rows to skip.
    for offset in range(0, len(entities), sizes.batch):
        await store.upsert_entities(other, entities[offset : offset + sizes.batch])
    ids = [entity.id for entity in entities]
    edges = [
        Relationship(
            id=RelationshipId(uuid.uuid4()),
            type=rng.choice(("KNOWS", "WORKS_FOR")),
            subject_id=rng.choice(ids),
            object_id=rng.choice(ids),
        )
        for _ in range(sizes.graph_edges)
    ]
    start = time.perf_counter()
    for offset in range(0, len(edges), sizes.batch):
        await store.upsert_relationships(tenant, edges[offset : offset + sizes.batch])
    edge_rate = len(edges) / (time.perf_counter() - start)
    for table in store.tables:
        await pool.execute(f"ANALYZE {table}")
    reached: list[int] = []

    async def walk() -> None:
        found = await store.neighbours(tenant, rng.choice(ids), depth=2, direction="both")
        reached.append(len(found))

    samples = await timed(walk, QUERIES)
    return [
        f"entity upsert (2 blocking keys each): {entity_rate:,.0f} rows/s; "
        f"relationship upsert: {edge_rate:,.0f} rows/s",
        f"neighbours depth 2, both directions, {sizes.graph_edges:,} edges among "
        f"{sizes.graph_entities:,} entities: p50 {ms(percentile(samples, 0.5)).strip()} ms, "
        f"p95 {ms(percentile(samples, 0.95)).strip()} ms "
        f"(median {statistics.median(reached):.0f} entities returned)",
    ]


# --- 2 and 4: chunks --------------------------------------------------------------------------


async def chunk_section(pool: asyncpg.Pool, sizes: Sizes, rng: random.Random) -> list[str]:
    store = PostgresChunkStore(pool, prefix="bench_")
    await store.ensure_schema()
    tenant = TENANTS[0]
    vocabulary = [f"w{n}" for n in range(5_000)]
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]

    def words(count: int) -> list[str]:
        return rng.choices(vocabulary, weights=weights, k=count)

    chunks = []
    for n in range(sizes.chunks):
        source = SourceId(f"doc-{n // 20}.md")
        text = " ".join(words(120)) + f" unique{n}."
        chunks.append(
            StoredChunk(
                id=chunk_id(source, text),
                source_id=source,
                chunk_index=n % 20,
                text=text,
                char_start=0,
                char_end=len(text),
            )
        )
    term_rows = sum(len(term_frequencies(chunk.text)) for chunk in chunks)
    start = time.perf_counter()
    for offset in range(0, len(chunks), sizes.batch):
        await store.upsert_many(tenant, chunks[offset : offset + sizes.batch])
    chunk_rate = len(chunks) / (time.perf_counter() - start)
    # Another tenant's copy of the corpus: the term lookup must skip it, not scan it.
    for offset in range(0, len(chunks), sizes.batch):
        await store.upsert_many(TENANTS[1], chunks[offset : offset + sizes.batch])
    # What autovacuum does to a table that has stopped changing; without it the visibility
    # map is empty and index-only scans fall back to the heap.
    for table in store.tables:
        await pool.execute(f"VACUUM ANALYZE {table}")
    lines = [
        f"chunk upsert (~120 words each): {chunk_rate:,.0f} chunks/s "
        f"({chunk_rate * term_rows / len(chunks):,.0f} term rows/s)"
    ]
    # A stop list is the corpus's most frequent words; the first 100 ranks of this Zipf
    # vocabulary hold 57% of its tokens, as the ~100 words of an English list do of English.
    stop_words = frozenset(vocabulary[:STOP_WORDS])
    question_kinds: dict[str, tuple[Callable[[], list[str]], frozenset[str]]] = {
        "4 words drawn by corpus frequency (stop-word-like terms included)": (
            lambda: words(4),
            frozenset(),
        ),
        "4 content words (frequency ranks 100-5000)": (
            lambda: rng.sample(vocabulary[STOP_WORDS:], 4),
            frozenset(),
        ),
        f"4 words drawn by corpus frequency, the {STOP_WORDS} most frequent dropped "
        "(a stop list; not in the library)": (lambda: words(4), stop_words),
    }
    budgets: tuple[int | None, ...] = (DEFAULT_POSTING_BUDGET, None)
    for label, (question, dropped) in question_kinds.items():
        questions = [
            [t for t in query_terms(" ".join(question())) if t not in dropped]
            for _ in range(QUERIES + WARM_UP)
        ]
        top: dict[int | None, list[list[str]]] = {}
        for budget in budgets:
            candidates: list[int] = []
            fetch: list[float] = []
            ranked: list[list[str]] = []
            cursor = iter(questions)

            async def rank(
                budget: int | None = budget,
                cursor: Iterator[list[str]] = cursor,
                fetch: list[float] = fetch,
                candidates: list[int] = candidates,
                ranked: list[list[str]] = ranked,
            ) -> None:
                terms = next(cursor)
                start = time.perf_counter()
                stats = await store.lexical_candidates(tenant, terms, posting_budget=budget)
                fetch.append(time.perf_counter() - start)
                hits = bm25(stats, terms, limit=10)
                candidates.append(len(stats.candidates))
                ranked.append([hit.chunk_id for hit in hits])

            samples = await timed(rank, QUERIES)
            fetched = fetch[WARM_UP:]
            top[budget] = ranked[WARM_UP:]
            agreement = ""
            if budget is not None:
                agreement = "; top-10 overlap with no budget: see the next line"
            lines.append(
                f"lexical candidates + BM25 over {sizes.chunks:,} chunks, {label}, "
                f"posting_budget={budget}: "
                f"p50 {ms(percentile(samples, 0.5)).strip()} ms, "
                f"p95 {ms(percentile(samples, 0.95)).strip()} ms; of which lexical_candidates "
                f"p50 {ms(percentile(fetched, 0.5)).strip()} ms, "
                f"p95 {ms(percentile(fetched, 0.95)).strip()} ms "
                f"(median {statistics.median(candidates[WARM_UP:]):,.0f} candidates){agreement}"
            )
        overlaps = [
            len(set(bounded) & set(full)) / len(full)
            for bounded, full in zip(top[DEFAULT_POSTING_BUDGET], top[None], strict=True)
            if full
        ]
        exact = sum(
            bounded == full
            for bounded, full in zip(top[DEFAULT_POSTING_BUDGET], top[None], strict=True)
        )
        lines.append(
            f"  top-10 of posting_budget={DEFAULT_POSTING_BUDGET} against no budget: mean "
            f"overlap {statistics.fmean(overlaps) if overlaps else 1.0:.3f}, identical lists "
            f"{exact}/{len(top[None])}"
        )
    return lines


async def run(sizes: Sizes, sections: Sequence[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="redstring-bench-") as directory:
        dsn = start_server(Path(directory) / "pgdata")
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=4)
        try:
            version = await pool.fetchval("SELECT version()")
            extension = await pool.fetchval(
                "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
            )
            print(f"{version.split(',')[0]}, pgvector {extension}; load average {_load()}")
            lines = []
            if "vectors" in sections:
                lines += await vector_section(pool, sizes, np.random.default_rng(SEED))
            if "graph" in sections:
                lines += await graph_section(pool, sizes, random.Random(SEED))
            if "chunks" in sections:
                lines += await chunk_section(pool, sizes, random.Random(SEED))
        finally:
            await pool.close()
    print("\n".join(lines))
    print(f"load average at the end: {_load()}")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of every size")
    parser.add_argument("--only", choices=SECTIONS, action="append", help="run only this section")
    arguments = parser.parse_args()
    asyncio.run(run(QUICK if arguments.quick else FULL, arguments.only or SECTIONS))


if __name__ == "__main__":
    main()
