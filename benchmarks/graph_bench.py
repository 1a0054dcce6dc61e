"""The three GraphStore adapters on one workload, with the in-memory store as the baseline.

Run with ``uv run --frozen --no-sync python -m benchmarks.graph_bench`` (``--quick`` runs a
tenth of the graph, for a smoke test; ``--only memory`` runs the in-memory store alone).
Backends come from the environment when it names them (``REDSTRING_TEST_NEO4J_URI``,
``REDSTRING_TEST_POSTGRES_DSN``, as ``scripts/test`` exports them); otherwise the benchmark
starts its own: Neo4j through ``scripts/lib/neo4j.sh`` (the launcher under ``infra/``) and
PostgreSQL through ``pgserver``, both in a temporary directory and both stopped at exit. On a
server it did not start it writes only its own two tenants and deletes them again.

The workload, identical for every store:

1. Bulk upsert of 10k entities (two blocking keys each: a unique name key and a key shared
   by 20 entities) and 50k random relationships among them, in batches of 1,000 through
   ``upsert_entities`` / ``upsert_relationships`` (one UNWIND query per batch on Neo4j).
   A second tenant of 10k entities is loaded too, so every read has rows to skip.
2. ``neighbours`` at depth 2, direction both, from random entities (median 108 reached).
3. ``find_by_blocking_keys`` for 100 keys (50 unique, 50 shared: about 1,050 entities).
4. ``delete_by_tenant`` of the 10k-entity, 50k-edge tenant.

The ratio columns divide by the in-memory store's figure from the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import tempfile
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.models import Entity, Relationship
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ports.graph_store import GraphStore

ROOT = Path(__file__).resolve().parent.parent
TENANT = TenantId("graph-bench")
OTHER = TenantId("graph-bench-other")
BATCH = 1_000
SHARED_KEY_GROUP = 20
QUERIES = 200
WARM_UP = 20
SEED = 20261202


@dataclass(frozen=True)
class Sizes:
    entities: int
    edges: int
    keys: int


FULL = Sizes(entities=10_000, edges=50_000, keys=100)
QUICK = Sizes(entities=1_000, edges=5_000, keys=100)


@dataclass
class Result:
    store: str
    entity_rate: float
    edge_rate: float
    neighbours: list[float]
    keys: list[float]
    delete_seconds: float
    reached: float
    found: float


def percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def timed(call: Callable[[], Awaitable[Any]], count: int) -> list[float]:
    for _ in range(WARM_UP):
        await call()
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


def workload(sizes: Sizes, rng: random.Random) -> tuple[list[Entity], list[Relationship]]:
    groups = max(1, sizes.entities // SHARED_KEY_GROUP)
    entities = [
        Entity(
            id=EntityId(uuid.UUID(int=rng.getrandbits(128), version=4)),
            type="Person",
            name=f"person {n}",
            attributes={"rank": n},
            blocking_keys=(f"Person|n:person {n}", f"Person|p:P{n % groups:04d}"),
        )
        for n in range(sizes.entities)
    ]
    ids = [entity.id for entity in entities]
    edges = [
        Relationship(
            id=RelationshipId(uuid.UUID(int=rng.getrandbits(128), version=4)),
            type=rng.choice(("KNOWS", "WORKS_FOR")),
            subject_id=rng.choice(ids),
            object_id=rng.choice(ids),
        )
        for _ in range(sizes.edges)
    ]
    return entities, edges


async def measure(
    name: str, store: GraphStore, sizes: Sizes, entities: list[Entity], edges: list[Relationship]
) -> Result:
    rng = random.Random(SEED)
    await store.delete_by_tenant(TENANT)
    await store.delete_by_tenant(OTHER)
    start = time.perf_counter()
    for offset in range(0, len(entities), BATCH):
        await store.upsert_entities(TENANT, entities[offset : offset + BATCH])
    entity_rate = len(entities) / (time.perf_counter() - start)
    for offset in range(0, len(entities), BATCH):
        await store.upsert_entities(OTHER, entities[offset : offset + BATCH])
    start = time.perf_counter()
    for offset in range(0, len(edges), BATCH):
        await store.upsert_relationships(TENANT, edges[offset : offset + BATCH])
    edge_rate = len(edges) / (time.perf_counter() - start)

    ids = [entity.id for entity in entities]
    reached: list[int] = []

    async def walk() -> None:
        found = await store.neighbours(TENANT, rng.choice(ids), depth=2, direction="both")
        reached.append(len(found))

    unique_keys = [key for entity in entities for key in entity.blocking_keys if "|n:" in key]
    shared_keys = sorted(
        {key for entity in entities for key in entity.blocking_keys} - set(unique_keys)
    )
    found: list[int] = []

    async def lookup() -> None:
        half = sizes.keys // 2
        keys = rng.sample(unique_keys, half) + rng.sample(shared_keys, sizes.keys - half)
        by_key = await store.find_by_blocking_keys(TENANT, keys)
        found.append(sum(len(hits) for hits in by_key.values()))

    walks = await timed(walk, QUERIES)
    lookups = await timed(lookup, QUERIES)
    start = time.perf_counter()
    await store.delete_by_tenant(TENANT)
    delete_seconds = time.perf_counter() - start
    await store.delete_by_tenant(OTHER)
    return Result(
        name,
        entity_rate,
        edge_rate,
        walks,
        lookups,
        delete_seconds,
        sorted(reached)[len(reached) // 2],
        sorted(found)[len(found) // 2],
    )


# --- backends -------------------------------------------------------------------------------


@asynccontextmanager
async def neo4j_store(stack: AsyncExitStack) -> AsyncIterator[tuple[str, GraphStore]]:
    from redstring.graph.adapters.neo4j import Neo4jGraphStore

    uri = os.environ.get("REDSTRING_TEST_NEO4J_URI", "").strip()
    label = "Neo4j (REDSTRING_TEST_NEO4J_URI)"
    if not uri:
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="graph-bench-")))
        uri = start_neo4j(home / "neo4j")
        stack.callback(stop_neo4j, home / "neo4j")
        label = "Neo4j (started here)"
    store = await Neo4jGraphStore.connect(uri, None)
    try:
        await store.ensure_schema()
        print(f"{label} at {uri}")
        yield "neo4j", store
    finally:
        await store.close()


def start_neo4j(home: Path) -> str:
    # The JVM watches this Python process and exits with it even if stop_neo4j never runs.
    script = (
        "source scripts/lib/common.sh; source scripts/lib/neo4j.sh; "
        f"REDSTRING_NEO4J_WATCH_PID={os.getpid()} start_neo4j '{home}' >&2 && "
        'printf "%s" "$REDSTRING_TEST_NEO4J_URI"'
    )
    started = time.perf_counter()
    uri = subprocess.run(
        ["bash", "-c", script], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    print(f"Neo4j launcher up in {time.perf_counter() - started:.1f} s")
    return uri


def stop_neo4j(home: Path) -> None:
    script = f"source scripts/lib/common.sh; source scripts/lib/neo4j.sh; stop_neo4j '{home}'"
    subprocess.run(["bash", "-c", script], cwd=ROOT, check=False, capture_output=True)


@asynccontextmanager
async def postgres_store(stack: AsyncExitStack) -> AsyncIterator[tuple[str, GraphStore]]:
    from redstring.graph.adapters.postgres import PostgresGraphStore

    dsn = os.environ.get("REDSTRING_TEST_POSTGRES_DSN", "").strip()
    label = "PostgreSQL (REDSTRING_TEST_POSTGRES_DSN)"
    if not dsn:
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import pgserver  # benchmark infrastructure; the library never imports it

        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="graph-bench-")))
        dsn = str(pgserver.get_server(home / "pgdata", cleanup_mode="delete").get_uri())
        label = "PostgreSQL (pgserver, started here)"
    store = await PostgresGraphStore.connect(dsn, prefix="graph_bench_")
    try:
        print(f"{label}")
        yield "postgres", store
    finally:
        await store.close()


@asynccontextmanager
async def memory_store(stack: AsyncExitStack) -> AsyncIterator[tuple[str, GraphStore]]:
    async with InMemoryGraphStore() as store:
        yield "in-memory", store


# --- report ---------------------------------------------------------------------------------


def table(results: list[Result], sizes: Sizes) -> str:
    base = results[0]

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.2f}"

    header = (
        "| store | entities/s | edges/s | neighbours d2 p50 ms | p95 ms | x base p50 "
        f"| {sizes.keys} keys p50 ms | p95 ms | x base p50 | delete_by_tenant s |"
    )
    lines = [header, "|" + " --- |" * 10]
    for r in results:
        n50, k50 = percentile(r.neighbours, 0.5), percentile(r.keys, 0.5)
        lines.append(
            f"| {r.store} | {r.entity_rate:,.0f} | {r.edge_rate:,.0f} "
            f"| {ms(n50)} | {ms(percentile(r.neighbours, 0.95))} "
            f"| {n50 / percentile(base.neighbours, 0.5):.1f} "
            f"| {ms(k50)} | {ms(percentile(r.keys, 0.95))} "
            f"| {k50 / percentile(base.keys, 0.5):.1f} | {r.delete_seconds:.2f} |"
        )
    lines.append(
        f"\n{sizes.entities:,} entities, {sizes.edges:,} edges, batches of {BATCH:,}; "
        f"{QUERIES} timed queries after {WARM_UP} warm-up; median {results[0].reached:.0f} "
        f"entities reached at depth 2, {results[0].found:.0f} found per {sizes.keys}-key lookup."
    )
    return "\n".join(lines)


async def run(sizes: Sizes, only: set[str] | None) -> None:
    entities, edges = workload(sizes, random.Random(SEED))
    results: list[Result] = []
    backends = {"in-memory": memory_store, "postgres": postgres_store, "neo4j": neo4j_store}
    for name, backend in backends.items():
        if only is not None and name not in only and name != "in-memory":
            continue
        async with AsyncExitStack() as stack:
            name, store = await stack.enter_async_context(backend(stack))
            results.append(await measure(name, store, sizes, entities, edges))
            print(f"{name}: done", flush=True)
    print(table(results, sizes))
    print("load average (1, 5, 15 min) at the end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the graph")
    parser.add_argument(
        "--only",
        action="append",
        choices=("memory", "postgres", "neo4j"),
        help="run the in-memory baseline and only the named backends (memory: no other)",
    )
    arguments = parser.parse_args()
    only = set(arguments.only) if arguments.only else None
    asyncio.run(run(QUICK if arguments.quick else FULL, only))


if __name__ == "__main__":
    main()
