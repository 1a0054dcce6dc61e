"""Two tenants' worth of graph behind the servers, for the HTTP and MCP tests.

``open_world`` opens a :class:`Service` on the in-memory graph or on PostgreSQL (a fresh
table prefix per world), creates one API key per tenant and an admin key, and seeds each
tenant with documents whose names and source ids differ, so anything of tenant B that
reaches tenant A's caller can be recognised in a response body.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from argon2 import PasswordHasher
from starlette.testclient import TestClient

from redstring import KnowledgeGraph
from redstring.cache.adapters.memory import MemoryCache
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ports.cache import Cache
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.serve import (
    InMemoryJobStore,
    InMemoryKeyStore,
    JobRunner,
    Limits,
    Service,
    create_app,
)
from redstring.serve.keys import KeyStore, fast_hasher
from redstring.serve.mcp_server import mount_mcp
from redstring.serve.signal import InMemorySignal, Signal
from tests.ingest_support import VocabularyExtractor

TENANT_A = "acme"
TENANT_B = "bluefin"
DOCS_A = {
    "a/okafor.md": "Amara Okafor works for Okafor Labs. Amara Okafor lives in Lagos.",
    "a/diaz.md": "Bruno Diaz works for Northwind in Lisbon.",
}
DOCS_B = {
    "b/secret-chen.md": "Chen Wei works for Bluefin Systems. Chen Wei moved to Osaka.",
    "b/secret-ivers.md": "Dana Ivers works for Harbor Bank.",
}
B_NAMES = ("Chen Wei", "Bluefin Systems", "Osaka", "Dana Ivers", "Harbor Bank")


@dataclass
class World:
    """The open service and everything a test needs to call it as each tenant."""

    service: Service
    keys: dict[str, str] = field(default_factory=dict)
    entity_ids: dict[str, list[str]] = field(default_factory=dict)
    prefix: str = ""
    """The PostgreSQL table prefix (empty in memory)."""


@asynccontextmanager
async def open_world(
    *,
    postgres_dsn: str | None = None,
    limits: Limits | None = None,
    cache: Cache | None = None,
    embeddings: EmbeddingProvider | None = None,
    hasher: PasswordHasher | None = None,
    extractor: VocabularyExtractor | None = None,
) -> AsyncIterator[World]:
    """A seeded world, closed (and its PostgreSQL tables dropped) on exit."""
    embeddings = embeddings or FakeEmbeddingProvider(dimension=16)
    extractor = extractor or VocabularyExtractor()
    cache = cache or MemoryCache()
    prefix = f"serve_{uuid.uuid4().hex[:8]}_"
    keys: KeyStore
    if postgres_dsn is None:
        graph = KnowledgeGraph.in_memory(embeddings=embeddings, extractor=extractor, cache=cache)
        keys = InMemoryKeyStore(hasher=hasher or fast_hasher())
        jobs = JobRunner(graph, InMemoryJobStore(), lease_seconds=2.0)
        signal: Signal = InMemorySignal()
    else:
        from redstring.postgres.pool import create_pool
        from redstring.serve.postgres import (
            PostgresJobStore,
            PostgresKeyStore,
            PostgresSignal,
            ServerTables,
        )

        pool = await create_pool(postgres_dsn, max_size=5)
        graph = await KnowledgeGraph.on_postgres(
            pool, embeddings=embeddings, extractor=extractor, cache=cache, prefix=prefix
        )
        tables = ServerTables(pool, prefix=prefix)
        await tables.ensure_schema()
        keys = PostgresKeyStore(tables, hasher=hasher or fast_hasher())
        jobs = JobRunner(graph, PostgresJobStore(tables), lease_seconds=2.0)
        signal = PostgresSignal(tables)
    service = Service(
        graph=graph,
        keys=keys,
        jobs=jobs,
        cache=cache,
        limits=limits or Limits(),
        signal=signal,
        signal_seconds=0.1,
    )
    world = World(service=service, prefix=prefix if postgres_dsn is not None else "")
    try:
        for tenant, documents in ((TENANT_A, DOCS_A), (TENANT_B, DOCS_B)):
            _, world.keys[tenant] = await keys.create(tenant=tenant, name=f"{tenant} test key")
            for source, text in documents.items():
                await graph.ingest(tenant, source, text)
            snapshot = await graph.export(tenant)
            world.entity_ids[tenant] = [str(item.entity.id) for item in snapshot.entities]
        _, world.keys["admin"] = await keys.create(tenant=None, name="admin test key")
        yield world
    finally:
        await jobs.close()
        await graph.close()
        if postgres_dsn is not None:
            async with pool.acquire() as conn:
                tables_left = await conn.fetch(
                    "SELECT tablename FROM pg_tables WHERE tablename LIKE $1", prefix + "%"
                )
                for row in tables_left:
                    await conn.execute(f'DROP TABLE IF EXISTS "{row["tablename"]}" CASCADE')
            await pool.close()


def _opener(
    holder: dict[str, World], world_options: dict[str, object]
) -> Callable[[], AbstractAsyncContextManager[Service]]:
    """Opens a world as the app's service and leaves it in ``holder`` for the test."""

    @asynccontextmanager
    async def open_service() -> AsyncIterator[Service]:
        async with open_world(**world_options) as world:  # type: ignore[arg-type]
            holder["world"] = world
            yield world.service

    return open_service


@contextmanager
def serving(**world_options: object) -> Iterator[tuple[TestClient, World]]:
    """The HTTP API over a fresh world, through Starlette's test client (lifespan included)."""
    holder: dict[str, World] = {}
    app = create_app(_opener(holder, world_options))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, holder["world"]


def finished_job(client: TestClient, headers: dict[str, str], job: dict[str, Any]) -> Any:
    """``job`` polled until it has succeeded or failed (at most 30 s)."""
    deadline = time.monotonic() + 30
    while job["state"] not in {"succeeded", "failed"} and time.monotonic() < deadline:
        time.sleep(0.05)
        job = client.get(f"/v1/jobs/{job['job_id']}", headers=headers).json()
    return job


def as_tenant(world: World, tenant: str) -> dict[str, str]:
    """The headers of a request made with ``tenant``'s key."""
    return {"Authorization": f"Bearer {world.keys[tenant]}"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def running_server(
    *, network: dict[str, Any] | None = None, **world_options: object
) -> Iterator[tuple[str, World]]:
    """A uvicorn server in a thread over a fresh world (MCP mounted at /mcp); yields its
    base URL and the world. ``network`` replaces uvicorn's host and port options (as
    ``redstring.cli.serving.uvicorn_options`` makes them)."""
    holder: dict[str, World] = {}
    port = free_port()
    listen = network or {"host": "127.0.0.1", "port": port}
    port = int(listen["port"])
    config = uvicorn.Config(
        create_app(_opener(holder, world_options), mount=mount_mcp),
        log_level="error",
        **listen,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", holder["world"]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
