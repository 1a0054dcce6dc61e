"""Entity resolution through ``KnowledgeGraph.import_records``: quality, order, speed, growth.

Run with ``uv run --frozen --no-sync python -m benchmarks.resolution_bench`` (``--quick`` for
a smoke test; ``--seeds`` sets how many seeds, default 5; ``--large`` the big tenant, default
100,000 entities; ``--postgres`` adds PostgreSQL rows, using ``REDSTRING_TEST_POSTGRES_DSN`` or
a pgserver started in a temporary directory).

* **Quality**: pairwise precision, recall and F1 against the gold clusters of
  ``benchmarks.resolution_data`` (about 5,000 records per seed), for the two scenarios:
  names + address + postcode + date of birth ("full") and names + locality only. The
  exact-name resolver is measured on the same records as the baseline.
* **Order**: the same records in reverse order; the F1 difference.
* **Speed**: 5,000 records imported and resolved on memory, end to end and the resolver's
  own share, against the exact-name resolver in the same process.
* **Growth**: the per-record cost of importing 500 new records into a tenant that already
  holds 1,000 and ``--large`` entities.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence

from benchmarks.resolution_data import Scenario, generate, pairwise_scores
from benchmarks.support import print_table, start_pgserver
from redstring import KnowledgeGraph
from redstring.domain.ids import TenantId
from redstring.domain.resolution import LearnedWeights
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ingest.evidence_resolver import EvidenceResolver
from redstring.ingest.resolution import (
    Decision,
    ExactNameResolver,
    LearningResolver,
    Mention,
    ResolutionContext,
    Resolver,
)
from redstring.ports.graph_store import GraphStore

Build = Callable[[Resolver], Awaitable[KnowledgeGraph]]
RECORDS_PER_ENTITY = 2.33  # the generator's mean cluster size


class TimedResolver:
    """Wraps a resolver and adds up the time spent inside it."""

    def __init__(self, inner: Resolver) -> None:
        self.inner = inner
        self.seconds = 0.0

    async def resolve(
        self,
        graph: GraphStore,
        tenant: TenantId,
        mentions: Sequence[Mention],
        context: ResolutionContext | None = None,
    ) -> list[Decision]:
        started = time.perf_counter()
        try:
            return await self.inner.resolve(graph, tenant, mentions, context)
        finally:
            self.seconds += time.perf_counter() - started


class TimedLearningResolver(TimedResolver):
    """A timed resolver that also learns, timing its estimates with its decisions."""

    def __init__(self, inner: LearningResolver) -> None:
        super().__init__(inner)
        self.learner = inner

    def estimate(
        self, mentions: Sequence[Mention], context: ResolutionContext
    ) -> dict[str, LearnedWeights]:
        started = time.perf_counter()
        try:
            return self.learner.estimate(mentions, context)
        finally:
            self.seconds += time.perf_counter() - started


def timed(inner: Resolver) -> TimedResolver:
    """``inner`` timed, keeping its ability to learn when it has one."""
    if isinstance(inner, LearningResolver):
        return TimedLearningResolver(inner)
    return TimedResolver(inner)


async def memory(resolver: Resolver) -> KnowledgeGraph:
    return KnowledgeGraph.in_memory(
        embeddings=FakeEmbeddingProvider(dimension=32), resolver=resolver
    )


async def quality(
    build: Build, resolver: Resolver, scenario: Scenario, seed: int, reverse: bool = False
) -> tuple[float, float, float]:
    data = generate(seed, int(5_000 / RECORDS_PER_ENTITY), scenario)
    records = list(reversed(data.records)) if reverse else data.records
    async with await build(resolver) as kg:
        report = await kg.import_records("bench", records)
        live = await kg.graph.resolve_entity_ids(TenantId("bench"), set(report.refs.values()))
    predicted: dict[str, object] = {ref: live.get(e, e) for ref, e in report.refs.items()}
    return pairwise_scores(predicted, data.gold)


async def quality_rows(build: Build, backend: str, seeds: Sequence[int]) -> list[list[str]]:
    rows: list[list[str]] = []
    for scenario in ("full", "locality"):
        for name, make in (("evidence", EvidenceResolver), ("exact name", ExactNameResolver)):
            scores = [await quality(build, make(), scenario, seed) for seed in seeds]
            precision = [s[0] for s in scores]
            recall = [s[1] for s in scores]
            f1 = [s[2] for s in scores]
            rows.append(
                [
                    backend,
                    scenario,
                    name,
                    f"{statistics.mean(precision):.4f} (min {min(precision):.4f})",
                    f"{statistics.mean(recall):.4f}",
                    f"{statistics.mean(f1):.4f} (min {min(f1):.4f})",
                ]
            )
        forward = await quality(build, EvidenceResolver(), scenario, seeds[0])
        backward = await quality(build, EvidenceResolver(), scenario, seeds[0], reverse=True)
        rows.append(
            [
                backend,
                scenario,
                "evidence, reversed order",
                "",
                "",
                f"dF1 {backward[2] - forward[2]:+.4f}",
            ]
        )
    return rows


async def speed_rows(build: Build, backend: str) -> list[list[str]]:
    data = generate(11, int(5_000 / RECORDS_PER_ENTITY), "full")
    rows: list[list[str]] = []
    totals: dict[str, float] = {}
    for name, inner in (("evidence", EvidenceResolver()), ("exact name", ExactNameResolver())):
        timed_resolver = timed(inner)
        async with await build(timed_resolver) as kg:
            started = time.perf_counter()
            await kg.import_records("speed", data.records)
            total = time.perf_counter() - started
        totals[name] = total
        rows.append(
            [
                backend,
                f"{len(data.records):,} records imported, {name} resolver (s)",
                f"{total:.2f}",
                f"resolver {timed_resolver.seconds:.2f} s",
            ]
        )
    rows.append(
        [
            backend,
            "ratio evidence / exact name (end to end)",
            f"{totals['evidence'] / totals['exact name']:.2f}",
            "",
        ]
    )
    return rows


async def preload(kg: KnowledgeGraph, tenant: str, entities: int) -> None:
    """``entities`` distinct generated things (one record each), imported 5,000 at a time."""
    data = generate(1_000 + entities, entities, "full")
    seen: set[int] = set()
    records = []
    for record in data.records:
        cluster = data.gold[str(record["ref"])]
        if cluster not in seen:
            seen.add(cluster)
            records.append({**record, "source": f"preload-{len(records) // 5_000}"})
    for start in range(0, len(records), 5_000):
        await kg.import_records(tenant, records[start : start + 5_000])


async def per_record_ms(kg: KnowledgeGraph, tenant: str, seed: int) -> tuple[float, float]:
    data = generate(seed, 215, "full")
    resolver = kg.resolver
    before = resolver.seconds if isinstance(resolver, TimedResolver) else 0.0
    started = time.perf_counter()
    await kg.import_records(tenant, data.records)
    took = time.perf_counter() - started
    inside = (resolver.seconds - before) if isinstance(resolver, TimedResolver) else 0.0
    return 1000 * took / len(data.records), 1000 * inside / len(data.records)


async def growth_rows(build: Build, backend: str, large: int) -> list[list[str]]:
    rows: list[list[str]] = []
    costs: dict[int, tuple[float, float]] = {}
    for size in (1_000, large):
        async with await build(timed(EvidenceResolver())) as kg:
            await preload(kg, "grow", size)
            await per_record_ms(kg, "grow", 90)  # warm-up
            samples = [await per_record_ms(kg, "grow", 91 + r) for r in range(3)]
        costs[size] = (
            statistics.median(s[0] for s in samples),
            statistics.median(s[1] for s in samples),
        )
        rows.append(
            [
                backend,
                f"per record, 500 records into {size:,} entities (ms)",
                f"{costs[size][0]:.2f}",
                f"resolver {costs[size][1]:.2f} ms",
            ]
        )
    small, big = costs[1_000], costs[large]
    rows.append(
        [
            backend,
            f"growth ratio ({large:,} / 1,000)",
            f"{big[0] / small[0]:.2f}",
            f"resolver {big[1] / small[1]:.2f}",
        ]
    )
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    seeds = list(range(1, 1 + (2 if args.quick else args.seeds)))
    large = 10_000 if args.quick else args.large

    print_table(
        ["backend", "scenario", "resolver", "precision", "recall", "F1"],
        await quality_rows(memory, "memory", seeds),
    )
    speed = await speed_rows(memory, "memory")
    speed += await growth_rows(memory, "memory", large)
    if args.postgres:
        import asyncpg

        dsn = os.environ.get("REDSTRING_TEST_POSTGRES_DSN", "").strip()
        stop: Callable[[], None] | None = None
        if not dsn:
            dsn, stop = start_pgserver("resolution-bench")
        try:
            pool = await asyncpg.create_pool(dsn, min_size=1, max_size=8)
            counter = iter(range(1_000_000))

            async def postgres(resolver: Resolver) -> KnowledgeGraph:
                # A fresh table prefix per graph: every measurement starts from empty tables.
                return await KnowledgeGraph.on_postgres(
                    pool,
                    embeddings=FakeEmbeddingProvider(dimension=32),
                    resolver=resolver,
                    prefix=f"rb{next(counter)}_",
                )

            print_table(
                ["backend", "scenario", "resolver", "precision", "recall", "F1"],
                await quality_rows(postgres, "postgres", seeds[:1]),
            )
            speed += await speed_rows(postgres, "postgres")
            speed += await growth_rows(postgres, "postgres", min(large, 20_000))
            await pool.close()
        finally:
            if stop is not None:
                stop()
    print_table(["backend", "measure", "value", "detail"], speed)


if __name__ == "__main__":
    asyncio.run(main())
