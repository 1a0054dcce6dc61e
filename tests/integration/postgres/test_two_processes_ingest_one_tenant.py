"""Two processes ingesting overlapping documents into one tenant at once.

They must end with the graph one process doing the same documents in sequence builds: the
same entities (no duplicates from a race), the same relationships, the same passages.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import asyncpg
import pytest

from redstring import KnowledgeGraph
from tests.integration.postgres.ingest_worker import build_graph_args, ingest_all
from tests.integration.postgres.test_knowledge_graph import wipe

pytestmark = pytest.mark.integration

PREFIX = "kgrace_"
ROOT = Path(__file__).resolve().parents[3]


async def graph_summary(kg: KnowledgeGraph, tenant: str) -> dict[str, object]:
    snapshot = await kg.export(tenant)
    names = {item.entity.id: item.entity.name for item in snapshot.entities}
    return {
        "entities": sorted(names.values()),
        "relationships": sorted(
            (r.type, names[r.subject_id], names[r.object_id]) for r in snapshot.relationships
        ),
        "passages": sorted((p.source_id, p.text) for p in snapshot.passages),
    }


async def test_two_processes_end_with_the_sequential_graph(
    pool: asyncpg.Pool, postgres_dsn: str
) -> None:
    """Optimistic concurrency on the tenant's graph stream makes racing writers serialise."""
    kg = await KnowledgeGraph.on_postgres(pool, prefix=PREFIX, **build_graph_args())  # type: ignore[arg-type]
    await wipe(pool, PREFIX)
    await ingest_all(kg, "sequential", 0)
    expected = await graph_summary(kg, "sequential")

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.integration.postgres.ingest_worker",
            postgres_dsn,
            PREFIX,
            "racing",
            str(worker),
            cwd=ROOT,
            env=env,
            stderr=asyncio.subprocess.PIPE,
        )
        for worker in (0, 3)
    ]
    for worker in workers:
        _, err = await asyncio.wait_for(worker.communicate(), timeout=240)
        assert worker.returncode == 0, err.decode()
    racing = await graph_summary(kg, "racing")
    assert racing == expected
    entities = racing["entities"]
    assert isinstance(entities, list)
    assert len(entities) == len(set(entities))
    await kg.close()
