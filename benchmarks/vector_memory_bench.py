"""InMemoryVectorStore: the numpy matrix path against the pure-Python scan, in one process.

Run with ``uv run --frozen --no-sync python -m benchmarks.vector_memory_bench`` (``--quick``
for a tenth of the sizes). Ten tenants; the measured one holds 10,000 and then 20,000 records
of 64 components (the bundled model's width), the other nine a tenth of that each. Each
search is ``k=10``, with and without an ``entity_types`` filter; the first search after a
write rebuilds the tenant's matrix and is timed separately. Both stores hold the same records
and return identical results (``tests/unit/vector/test_memory_store.py`` checks it).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from benchmarks.support import print_table
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.testing.strategies import random_entity_id
from redstring.vector.adapters.memory import InMemoryVectorStore

DIMENSION = 64


def records(rng: random.Random, count: int) -> list[VectorRecord]:
    return [
        VectorRecord(
            entity_id=random_entity_id(),
            vector=[rng.gauss(0.0, 1.0) for _ in range(DIMENSION)],
            metadata={"entity_type": rng.choice(["Person", "Organization", "Location"])},
        )
        for _ in range(count)
    ]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def measure(size: int, queries: int, rng: random.Random) -> list[list[str]]:
    measured = TenantId("measured")
    stores = {
        "scan": InMemoryVectorStore(dimension=DIMENSION, vectorised=False),
        "matrix": InMemoryVectorStore(dimension=DIMENSION, vectorised=True),
    }
    data = {TenantId(f"other-{n}"): records(rng, size // 10) for n in range(9)}
    data[measured] = records(rng, size)
    rows: list[list[str]] = []
    questions = [[rng.gauss(0.0, 1.0) for _ in range(DIMENSION)] for _ in range(queries)]
    timings: dict[tuple[str, str], list[float]] = {}
    for name, store in stores.items():
        started = time.perf_counter()
        for tenant, batch in data.items():
            await store.upsert_many(tenant, batch)
        timings[(name, "upsert_many (all tenants), s")] = [time.perf_counter() - started]
        started = time.perf_counter()
        await store.search(measured, questions[0], k=10)
        timings[(name, "first search after writes, ms")] = [1000 * (time.perf_counter() - started)]
        for label, types in (("search k=10, ms", None), ("search k=10, one type, ms", ["Person"])):
            spent = []
            for question in questions:
                started = time.perf_counter()
                await store.search(measured, question, k=10, entity_types=types)
                spent.append(1000 * (time.perf_counter() - started))
            timings[(name, label)] = spent
    labels = list(dict.fromkeys(label for _, label in timings))
    for label in labels:
        scan, matrix = timings[("scan", label)], timings[("matrix", label)]
        rows.append(
            [
                f"{size:,}",
                label,
                f"{statistics.median(scan):.2f} / {percentile(scan, 0.95):.2f}",
                f"{statistics.median(matrix):.2f} / {percentile(matrix, 0.95):.2f}",
                f"{statistics.median(scan) / statistics.median(matrix):.1f}x",
            ]
        )
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rng = random.Random(7)
    sizes = [1_000, 2_000] if args.quick else [10_000, 20_000]
    rows: list[list[str]] = []
    for size in sizes:
        rows += await measure(size, 20 if args.quick else 100, rng)
    header = ["records", "measure", "scan p50 / p95", "matrix p50 / p95", "scan / matrix"]
    print_table(header, rows)


if __name__ == "__main__":
    asyncio.run(main())
