"""Erasing a tenant on PostgreSQL with several server processes (issue 26, finding 2).

Before, `redstring delete-tenant` removed the passages and little else that a running
server could see. The server kept answering the tenant's stats and export from its folded
history until restarted, the tenant's keys stayed valid, and its jobs (input text included)
stayed readable. Here:

* two services over one database stand for two worker processes: the one that did not
  erase forgets the tenant (history, verified secrets, running jobs) and answers as if it
  never existed;
* ``redstring serve --workers 2`` with Redis, erased through ``DELETE /v1/tenants/{t}`` and
  through ``redstring delete-tenant``: afterwards every table of the database and every
  Redis key and value is searched for the tenant's markers, and none is found.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import requests
from redis.asyncio import Redis

from redstring import KnowledgeGraph
from redstring.cache.adapters.memory import MemoryCache
from redstring.domain.extraction import Extraction
from redstring.domain.schema import Schema
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.serve import JobRunner, Service
from redstring.serve.keys import fast_hasher
from redstring.serve.postgres import (
    PostgresJobStore,
    PostgresKeyStore,
    PostgresSignal,
    ServerTables,
)
from tests.cli_runner import EXTRACTOR, clean_environment, invoke, serving
from tests.erasure_support import (
    marked_document,
    markers_of,
    new_marked_tenant_name,
    seed_marked_tenant,
    token_of,
    traces,
)
from tests.ingest_support import VocabularyExtractor
from tests.integration.redis.conftest import redis_url  # noqa: F401 - the fixture
from tests.serve_world import open_world

pytestmark = pytest.mark.integration


class _Held(VocabularyExtractor):
    """Holds every passage naming Zyqua until ``release`` is set (a long extraction)."""

    def __init__(self) -> None:
        super().__init__(people=(*VocabularyExtractor().people, "Zyqua Vorlax"))
        self.release = asyncio.Event()
        self.holding = asyncio.Event()

    async def extract(self, text: str, schema: Schema) -> Extraction:
        if "Zyqua" in text:
            self.holding.set()
            await self.release.wait()
        return await super().extract(text, schema)


@asynccontextmanager
async def _second_worker(
    postgres_dsn: str, prefix: str, extractor: VocabularyExtractor
) -> AsyncIterator[Service]:
    """Another server process over the same tables: its own pool, graph, caches, signal."""
    from redstring.postgres.pool import create_pool

    pool = await create_pool(postgres_dsn, max_size=4)
    graph = await KnowledgeGraph.on_postgres(
        pool, embeddings=FakeEmbeddingProvider(dimension=16), extractor=extractor, prefix=prefix
    )
    tables = ServerTables(pool, prefix=prefix)
    service = Service(
        graph=graph,
        keys=PostgresKeyStore(tables, hasher=fast_hasher()),
        jobs=JobRunner(graph, PostgresJobStore(tables), lease_seconds=2.0),
        cache=MemoryCache(),
        signal=PostgresSignal(tables),
        signal_seconds=0.1,
    )
    watcher = asyncio.create_task(service.watch(since=await service.signal.current()))
    try:
        yield service
    finally:
        watcher.cancel()
        await service.jobs.close()
        await graph.close()
        await pool.close()


async def _database_traces(dsn: str, markers: tuple[str, ...]) -> list[str]:
    """Every row of every table in the database, as text, that holds a marker."""
    conn = await asyncpg.connect(dsn)
    try:
        tables = await conn.fetch(
            "SELECT schemaname, tablename FROM pg_tables "
            "WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        )
        found = []
        for row in tables:
            name = f'"{row["schemaname"]}"."{row["tablename"]}"'
            for (text,) in await conn.fetch(f"SELECT t::text FROM {name} t"):
                if any(marker in text for marker in markers):
                    found.append(f"{name}: {text[:160]}")
        return found
    finally:
        await conn.close()


async def _redis_traces(url: str, markers: tuple[str, ...]) -> list[str]:
    """Every Redis key, and every value under it, that holds a marker."""
    client = Redis.from_url(url, decode_responses=True)
    found = []
    try:
        async for key in client.scan_iter(count=1000):
            kind = await client.type(key)
            if kind == "string":
                values = [await client.get(key) or ""]
            elif kind == "zset":
                values = list(await client.zrange(key, 0, -1))
            elif kind == "hash":
                values = [f"{k}={v}" for k, v in (await client.hgetall(key)).items()]
            elif kind == "list":
                values = list(await client.lrange(key, 0, -1))
            elif kind == "set":
                values = list(await client.smembers(key))
            else:
                values = []
            if any(marker in text for marker in markers for text in (key, *values)):
                found.append(f"{key} ({kind})")
    finally:
        await client.aclose()
    return found


async def test_another_worker_forgets_an_erased_tenant(postgres_dsn: str) -> None:
    """The worker that did not erase refuses the keys at once, reads the tenant as empty at
    once, and within its signal beat holds nothing of it in memory."""
    async with open_world(postgres_dsn=postgres_dsn) as world:
        marked = await seed_marked_tenant(world.service, new_marked_tenant_name())
        async with _second_worker(postgres_dsn, world.prefix, VocabularyExtractor()) as other:
            assert (await other.admit(marked.key, "127.0.0.1")).tenant == marked.tenant
            assert (await other.graph.stats(marked.tenant)).sources == 3  # text, import, job
            assert traces(other, marked.markers)

            await world.service.delete_tenant(marked.tenant)  # type: ignore[arg-type]

            with pytest.raises(Exception, match="not valid"):
                await other.admit(marked.key, "127.0.0.1")
            stats = await other.graph.stats(marked.tenant)
            assert (stats.sources, stats.entities, stats.events) == (0, 0, 0)
            for _ in range(50):
                if not traces(other, marked.markers):
                    break
                await asyncio.sleep(0.1)
            assert traces(other, marked.markers) == []
            assert traces(world.service, marked.markers) == []
        assert await _database_traces(postgres_dsn, marked.markers) == []


async def test_a_write_running_elsewhere_during_an_erasure_keeps_nothing(
    postgres_dsn: str,
) -> None:
    """A job of the tenant held mid-extraction in another worker: the erasure stops it, and
    when its extraction returns nothing of it reaches the database."""
    async with open_world(postgres_dsn=postgres_dsn) as world:
        tenant = new_marked_tenant_name()
        _, key = await world.service.keys.create(tenant=tenant)
        held = _Held()
        async with _second_worker(postgres_dsn, world.prefix, held) as other:
            await other.graph.ingest(tenant, "qz-first.md", "Bruno Diaz works for Northwind.")
            documents = [{"source": "qz-secret.md", "text": marked_document(tenant)}]
            await other.jobs.submit(tenant, "ingest", {"documents": documents}, total=1)  # type: ignore[arg-type]
            await asyncio.wait_for(held.holding.wait(), 30)

            await world.service.delete_tenant(tenant)  # type: ignore[arg-type]
            await asyncio.sleep(0.5)  # the other worker's signal beat
            held.release.set()
            await other.jobs.wait()
            # A direct write that was already extracting when the tenant (holding one
            # document again) went:
            held.release.clear()
            held.holding.clear()
            await other.graph.ingest(tenant, "qz-first.md", "Bruno Diaz works for Northwind.")
            running = asyncio.create_task(
                other.graph.ingest(tenant, "qz-late.md", marked_document(tenant))
            )
            await asyncio.wait_for(held.holding.wait(), 30)
            await world.service.delete_tenant(tenant)  # type: ignore[arg-type]
            held.release.set()
            with pytest.raises(Exception, match="deleted while this write ran"):
                await running
        assert await _database_traces(postgres_dsn, markers_of(tenant, key)) == []


def test_two_server_processes_with_redis_keep_no_trace_of_an_erased_tenant(
    postgres_dsn: str,
    redis_url: str,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    """``serve --workers 2 --redis-url``: one tenant erased by the admin endpoint, one by
    ``redstring delete-tenant`` while the server runs. Both workers refuse the keys and
    answer for an empty tenant at once; no table or Redis key holds a marker."""
    config = tmp_path / "config.toml"
    config.write_text("")
    options = {"postgres_dsn": postgres_dsn, "redis_url": redis_url}

    def key(tenant: str | None) -> dict[str, Any]:
        args = ("keys", "create", "--json") + (("--admin",) if tenant is None else ())
        made = invoke(args, config_file=config, options={**options, "tenant": tenant or "x"})
        assert made.exit_code == 0, made
        created: dict[str, Any] = json.loads(made.stdout)
        return created

    admin_key = key(None)
    admin = {"Authorization": f"Bearer {admin_key['key']}"}
    by_api, by_cli = new_marked_tenant_name(), new_marked_tenant_name()
    keys = {tenant: key(tenant)["key"] for tenant in (by_api, by_cli)}
    serve_options = [
        "--workers", "2", "--postgres-dsn", postgres_dsn, "--redis-url", redis_url,
        "--extractor", EXTRACTOR, "--config", str(config),
    ]  # fmt: skip
    with serving(serve_options, env=clean_environment({})) as base:
        jobs = {}
        for tenant, secret in keys.items():
            headers = {"Authorization": f"Bearer {secret}"}
            document = {
                "source": "qz-secret.md",
                "text": marked_document(tenant),
                "metadata": {"qzmeta": token_of(tenant)},
            }
            assert requests.post(f"{base}/v1/documents", json=document, headers=headers).ok
            batch = {
                "documents": [{"source": "qz-job.md", "text": f"Zyqua met {token_of(tenant)}."}]
            }
            jobs[tenant] = requests.post(
                f"{base}/v1/documents/batch", json=batch, headers=headers
            ).json()["job_id"]
            for _ in range(8):  # spread over both workers: each folds the tenant
                assert requests.post(
                    f"{base}/v1/query", json={"text": "Zyqua Vorlax"}, headers=headers
                ).ok
                stats = requests.get(f"{base}/v1/stats", headers=headers).json()
                assert stats["sources"] >= 1, (tenant, stats)

        gone = requests.delete(f"{base}/v1/tenants/{by_api}", headers=admin)
        assert gone.status_code == 200, gone.text
        erased = invoke(
            ("delete-tenant", "--yes", "--json"),
            config_file=config,
            options={**options, "tenant": by_cli},
        )
        assert erased.exit_code == 0, erased
        assert json.loads(erased.stdout)["keys"] == 1

        for tenant, secret in keys.items():
            headers = {"Authorization": f"Bearer {secret}"}
            named = {**admin, "X-Redstring-Tenant": tenant}
            for _ in range(8):
                # Refused either way: 401, or 429 once this address has sent too many keys
                # that name no key (the budget is shared through Redis).
                assert requests.get(f"{base}/v1/stats", headers=headers).status_code in {401, 429}
                stats = requests.get(f"{base}/v1/stats", headers=named).json()
                assert (stats["sources"], stats["events"]) == (0, 0), (tenant, stats)
                job = requests.get(f"{base}/v1/jobs/{jobs[tenant]}", headers=named)
                assert job.status_code == 404, job.text
                export = requests.get(f"{base}/v1/export", headers=named).text
                assert f"Ref{token_of(tenant)}" not in export
        markers = tuple(m for t, s in keys.items() for m in markers_of(t, s))
        assert asyncio.run(_database_traces(postgres_dsn, markers)) == []
        assert asyncio.run(_redis_traces(redis_url, markers)) == []
    invoke(("keys", "revoke", admin_key["key_id"]), config_file=config, options=options)
