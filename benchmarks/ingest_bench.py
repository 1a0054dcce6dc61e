"""The event-sourced core: model calls per chunk, pipeline overhead per chunk, and overlap.

Run with ``uv run --frozen --no-sync python -m benchmarks.ingest_bench`` (``--quick`` for a
smoke test; ``--large N`` sets the big tenant's entity count, default 100,000).
PostgreSQL rows are measured when ``REDSTRING_TEST_POSTGRES_DSN`` names a server (as
``scripts/test`` exports it); otherwise the benchmark starts pgserver in a temporary directory.

* **Model calls per chunk** with an instant extractor that counts calls: first ingest,
  unchanged re-ingest, rebuild, delete.
* **Overhead per chunk** (the extractor is instant, so this is everything else: chunking,
  log reads and appends, resolution, projection, embedding with a fake provider): measured
  with 1k and with N entities already in the tenant (loaded through ``import_records``), and
  the ratio of the two: how per-chunk cost grows with the tenant.
* **Overlap**: an extractor that sleeps 200 ms per call, concurrency 16, 160 chunks.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable

from benchmarks.support import start_pgserver
from redstring import KnowledgeGraph
from redstring.domain.extraction import ExtractedEntity, ExtractedRelationship, Extraction
from redstring.domain.schema import Schema
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ingest.service import IngestSettings

FIRST = ["Amara", "Bruno", "Chen", "Dana", "Eli", "Farah", "Goran", "Hana", "Ivo", "Jia"]
LAST = ["Okafor", "Diaz", "Wei", "Ivers", "Stone", "Nasser", "Petrov", "Sato", "Novak", "Lin"]
ORGS = ["Okafor Labs", "Northwind", "Bluefin Systems", "Harbor Bank", "Quill Press"]


class CountingExtractor:
    """Instant extractor: two people and an organisation per passage, optionally slow."""

    def __init__(self, delay: float = 0.0) -> None:
        self.calls = 0
        self.delay = delay

    @property
    def model(self) -> str:
        return "bench/counting-1"

    async def extract(self, text: str, schema: Schema) -> Extraction:
        self.calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        words = text.split()
        person = f"{words[0]} {words[1]}"
        other = f"{words[5]} {words[6]}" if len(words) > 6 else person
        org = next((name for name in ORGS if name in text), ORGS[0])
        return Extraction(
            entities=[
                ExtractedEntity(name=person, type="Person"),
                ExtractedEntity(name=other, type="Person"),
                ExtractedEntity(name=org, type="Organization"),
            ],
            relationships=[ExtractedRelationship(subject=person, type="WORKS_FOR", object=org)],
        )


def document(index: int, paragraphs: int) -> str:
    lines = []
    for p in range(paragraphs):
        n = index * paragraphs + p
        a = f"{FIRST[n % 10]} {LAST[(n // 10) % 10]}{n // 100}"
        b = f"{FIRST[(n + 3) % 10]} {LAST[(n // 7) % 10]}{n // 100}"
        lines.append(f"{a} works for {ORGS[n % 5]} and met {b} there in spring of year {n}.")
    return "\n\n".join(lines)


SETTINGS = IngestSettings(chunk_chars=120, chunk_overlap=0)


async def preload(kg: KnowledgeGraph, tenant: str, entities: int) -> None:
    batch = 5_000
    for start in range(0, entities, batch):
        await kg.import_records(
            tenant,
            [
                {
                    "kind": "entity",
                    "ref": f"r{i}",
                    "type": "Person",
                    "name": f"Preloaded Person {i}",
                    "source": f"preload-{start}",
                }
                for i in range(start, min(entities, start + batch))
            ],
        )


async def per_chunk_ms(kg: KnowledgeGraph, tenant: str, docs: int, offset: int) -> float:
    chunks = 0
    started = time.perf_counter()
    for index in range(docs):
        report = await kg.ingest(tenant, f"doc-{offset + index}.md", document(offset + index, 10))
        chunks += report.chunks
    return (time.perf_counter() - started) * 1000 / chunks


async def run_backend(
    name: str,
    build: Callable[[CountingExtractor], Awaitable[KnowledgeGraph]],
    large: int,
    docs: int,
) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    extractor = CountingExtractor()
    kg = await build(extractor)
    async with kg:
        first_chunks = 0
        for index in range(5):
            first_chunks += (await kg.ingest("calls", f"d{index}.md", document(index, 10))).chunks
        rows.append(
            (name, "model calls per chunk, first ingest", f"{extractor.calls / first_chunks:.2f}")
        )
        before = extractor.calls
        for index in range(5):
            await kg.ingest("calls", f"d{index}.md", document(index, 10))
        rows.append((name, "model calls, unchanged re-ingest", str(extractor.calls - before)))
        before = extractor.calls
        await kg.rebuild("calls")
        rows.append((name, "model calls, rebuild", str(extractor.calls - before)))
        before = extractor.calls
        await kg.delete_source("calls", "d0.md")
        rows.append((name, "model calls, delete", str(extractor.calls - before)))

        await preload(kg, "small", 1_000)
        await per_chunk_ms(kg, "small", 2, 1_000)  # warm-up
        small = statistics.median(
            [await per_chunk_ms(kg, "small", docs, 2_000 + r * docs) for r in range(3)]
        )
        await preload(kg, "large", large)
        await per_chunk_ms(kg, "large", 2, 1_000)
        big = statistics.median(
            [await per_chunk_ms(kg, "large", docs, 2_000 + r * docs) for r in range(3)]
        )
        rows.append((name, "overhead per chunk, 1k entities (ms)", f"{small:.2f}"))
        rows.append((name, f"overhead per chunk, {large:,} entities (ms)", f"{big:.2f}"))
        rows.append((name, "growth ratio (large / 1k)", f"{big / small:.2f}"))
    return rows


async def overlap() -> tuple[str, str, str]:
    extractor = CountingExtractor(delay=0.2)
    settings = IngestSettings(chunk_chars=120, chunk_overlap=0, extraction_concurrency=16)
    kg = KnowledgeGraph.in_memory(
        embeddings=FakeEmbeddingProvider(dimension=32), extractor=extractor, settings=settings
    )
    text = document(900, 160)
    started = time.perf_counter()
    report = await kg.ingest("overlap", "long.md", text)
    took = time.perf_counter() - started
    return (
        "memory",
        f"overlap: {report.chunks} chunks at 200 ms/call, concurrency 16 (s)",
        f"{took:.2f}",
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--large", type=int, default=100_000)
    args = parser.parse_args()
    large = 5_000 if args.quick else args.large
    docs = 2 if args.quick else 6

    def memory(extractor: CountingExtractor) -> Awaitable[KnowledgeGraph]:
        async def build() -> KnowledgeGraph:
            return KnowledgeGraph.in_memory(
                embeddings=FakeEmbeddingProvider(dimension=32),
                extractor=extractor,
                settings=SETTINGS,
            )

        return build()

    rows = await run_backend("memory", memory, large, docs)
    dsn = os.environ.get("REDSTRING_TEST_POSTGRES_DSN", "").strip()
    stop: Callable[[], None] | None = None
    if not dsn:
        dsn, stop = start_pgserver("ingest-bench")
    try:
        import asyncpg

        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=8)
        await pool.execute(
            "DROP TABLE IF EXISTS bench_chunk_terms, bench_chunks, bench_vectors, "
            "bench_events, bench_checkpoints, bench_keys, bench_relationships, "
            "bench_aliases, bench_entities CASCADE"
        )

        def postgres(extractor: CountingExtractor) -> Awaitable[KnowledgeGraph]:
            return KnowledgeGraph.on_postgres(
                pool,
                embeddings=FakeEmbeddingProvider(dimension=32),
                extractor=extractor,
                settings=SETTINGS,
                prefix="bench_",
            )

        rows += await run_backend("postgres", postgres, large if not args.quick else 5_000, docs)
        await pool.close()
    finally:
        if stop is not None:
            stop()
    rows.append(await overlap())
    width = max(len(row[1]) for row in rows)
    print(f"{'backend':<9} {'measure':<{width}} value")
    for backend, measure, value in rows:
        print(f"{backend:<9} {measure:<{width}} {value}")


if __name__ == "__main__":
    asyncio.run(main())
