"""Exact scans against a per-tenant HNSW index in pgvector, at 10k-100k rows per tenant.

Run with ``uv run --frozen --no-sync python -m benchmarks.vector_index_bench`` (``--sizes
10000,100000``, ``--dimension 64``, ``--queries 100``). It starts its own pgserver (PostgreSQL
16.2 + pgvector 0.6.2) in a temporary directory unless ``REDSTRING_TEST_POSTGRES_DSN`` names a
server, and drops its table at exit.

One table shaped like ``PgVectorStore``'s (``tenant_id``, ``entity_id``, ``embedding``, a
b-tree on ``(tenant_id, entity_id)``), the measured tenant holding N vectors beside nine
tenants of N/10 each. Vectors are clustered like real embeddings (a few hundred centres,
unit-normalised noise around them), seeded. For each size: the exact top 10 by cosine
distance for the tenant (what ``PgVectorStore.search`` runs), then the same query through a
partial HNSW index over the tenant's rows (``WHERE tenant_id = '<tenant>'``, m=16,
ef_construction=64) at ``hnsw.ef_search`` 40 and 100, with recall@10 against the exact answer,
build time and p50/p95 latency of each.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
import uuid

from benchmarks.support import print_table, start_pgserver

TABLE = "bench_vector_index"
CENTRES = 300


def _vectors(
    rng: random.Random, count: int, dimension: int, centres: list[list[float]]
) -> list[list[float]]:
    out = []
    for _ in range(count):
        centre = rng.choice(centres)
        vector = [c + rng.gauss(0, 0.35) for c in centre]
        norm = sum(x * x for x in vector) ** 0.5
        out.append([x / norm for x in vector])
    return out


def _literal(vector: list[float]) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in vector) + "]"


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _p50_p95(samples: list[float]) -> str:
    return f"{1000 * percentile(samples, 0.5):.1f} / {1000 * percentile(samples, 0.95):.1f}"


async def measure(dsn: str, size: int, dimension: int, queries: int) -> list[list[str]]:
    import asyncpg

    rng = random.Random(size)
    centres = [[rng.gauss(0, 1) for _ in range(dimension)] for _ in range(CENTRES)]
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        await connection.execute(f"DROP TABLE IF EXISTS {TABLE}")
        await connection.execute(
            f"CREATE TABLE {TABLE} (tenant_id text NOT NULL, entity_id uuid NOT NULL, "
            f"embedding vector({dimension}) NOT NULL, PRIMARY KEY (tenant_id, entity_id))"
        )
        tenants = [("measured", size)] + [(f"other-{n}", size // 10) for n in range(9)]
        for tenant, count in tenants:
            rows = [
                (tenant, uuid.UUID(int=rng.getrandbits(128), version=4), _literal(vector))
                for vector in _vectors(rng, count, dimension, centres)
            ]
            await connection.executemany(f"INSERT INTO {TABLE} VALUES ($1, $2, $3::vector)", rows)
        await connection.execute(f"ALTER TABLE {TABLE} ALTER COLUMN embedding SET STORAGE PLAIN")
        await connection.execute(f"VACUUM ANALYZE {TABLE}")
        asked = [_literal(v) for v in _vectors(rng, queries, dimension, centres)]
        exact_sql = (
            f"SELECT entity_id FROM {TABLE} WHERE tenant_id = $1 "
            "ORDER BY embedding <=> $2::vector, entity_id LIMIT 10"
        )
        exact, exact_times = [], []
        for vector in asked:
            started = time.perf_counter()
            rows = await connection.fetch(exact_sql, "measured", vector)
            exact_times.append(time.perf_counter() - started)
            exact.append({row["entity_id"] for row in rows})
        lines = [
            [
                f"{size:,}",
                "exact scan (today)",
                "",
                _p50_p95(exact_times),
                "1.000",
            ]
        ]
        started = time.perf_counter()
        await connection.execute(
            f"CREATE INDEX {TABLE}_measured_hnsw ON {TABLE} USING hnsw "
            "(embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64) "
            "WHERE tenant_id = 'measured'"
        )
        built = time.perf_counter() - started
        # A literal tenant predicate, so the planner can use the partial index.
        index_sql = (
            f"SELECT entity_id FROM {TABLE} WHERE tenant_id = 'measured' "
            "ORDER BY embedding <=> $1::vector LIMIT 10"
        )
        for ef in (40, 100):
            await connection.execute(f"SET hnsw.ef_search = {ef}")
            times, recalls = [], []
            for vector, truth in zip(asked, exact, strict=True):
                started = time.perf_counter()
                rows = await connection.fetch(index_sql, vector)
                times.append(time.perf_counter() - started)
                recalls.append(len({row["entity_id"] for row in rows} & truth) / len(truth))
            explained = await connection.fetch(
                "EXPLAIN " + index_sql.replace("$1", f"'{asked[0]}'")
            )
            plan = " ".join(row[0] for row in explained)
            lines.append(
                [
                    f"{size:,}",
                    f"partial HNSW, ef_search {ef}" + ("" if "hnsw" in plan else " (NOT USED)"),
                    f"{built:.1f}",
                    _p50_p95(times),
                    f"{statistics.mean(recalls):.3f}",
                ]
            )
        return lines
    finally:
        await connection.execute(f"DROP TABLE IF EXISTS {TABLE}")
        await connection.close()


async def main_async(sizes: list[int], dimension: int, queries: int) -> None:
    dsn = os.environ.get("REDSTRING_TEST_POSTGRES_DSN", "").strip()
    stop = None
    if not dsn:
        dsn, stop = start_pgserver("vector-index")
    try:
        print(f"load average {os.getloadavg()[0]:.1f}; dimension {dimension}")
        lines = []
        for size in sizes:
            lines += await measure(dsn, size, dimension, queries)
        print_table(["tenant rows", "search", "index build s", "p50 / p95 ms", "recall@10"], lines)
    finally:
        if stop is not None:
            stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--dimension", type=int, default=64)
    parser.add_argument("--queries", type=int, default=100)
    arguments = parser.parse_args()
    sizes = [int(size) for size in arguments.sizes.split(",")]
    asyncio.run(main_async(sizes, arguments.dimension, arguments.queries))


if __name__ == "__main__":
    main()
