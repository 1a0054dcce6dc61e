"""The servers on PostgreSQL: tenant isolation, keys in the database, and jobs that survive a
restart of the server that took them."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import httpx
import pytest

from redstring import KnowledgeGraph
from redstring.domain.extraction import Extraction
from redstring.domain.schema import Schema
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.serve.jobs import JobRunner
from redstring.serve.keys import fast_hasher
from redstring.serve.postgres import PostgresJobStore, PostgresKeyStore, ServerTables
from tests.ingest_support import VocabularyExtractor
from tests.serve_bad_input import check_bad_input_writes_nothing, check_injection_strings_are_data
from tests.serve_isolation import check_foreign_source_ids_stay_apart, check_isolation
from tests.serve_world import running_server, serving

pytestmark = pytest.mark.integration


def test_tenant_isolation_on_postgres(postgres_dsn: str) -> None:
    """The isolation property, every store in PostgreSQL."""
    with serving(postgres_dsn=postgres_dsn) as (client, world):
        check_isolation(client, world, max_examples=40)
        check_foreign_source_ids_stay_apart(client, world)


def test_bad_input_and_injection_strings_on_postgres(postgres_dsn: str) -> None:
    """Clean 4xx that write nothing; SQL-looking strings stored verbatim; tables intact."""
    with (
        running_server(postgres_dsn=postgres_dsn) as (url, world),
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        check_bad_input_writes_nothing(client, world)
        check_injection_strings_are_data(client, world)


async def test_keys_are_hashed_and_revocable_in_postgres(pool: asyncpg.Pool) -> None:
    """The table holds an Argon2id hash, never the secret; a key revoked by another process
    opens nothing from the very next request, though this one verified it a moment ago."""
    prefix = f"keys_{uuid.uuid4().hex[:8]}_"
    tables = ServerTables(pool, prefix=prefix)
    await tables.ensure_schema()
    store = PostgresKeyStore(tables, hasher=fast_hasher())
    elsewhere = PostgresKeyStore(tables, hasher=fast_hasher())  # another server process
    record, secret = await store.create(tenant="acme", name="ci")
    stored = await pool.fetchval(f"SELECT key_hash FROM {tables.keys}")
    assert stored.startswith("$argon2id$")
    assert secret.split("_", 2)[2] not in stored
    principal = await store.authenticate(secret)
    assert principal is not None
    assert principal.tenant == "acme"
    await elsewhere.revoke(record.key_id)
    assert await store.authenticate(secret) is None
    assert [key.key_id for key in await store.list_keys("acme")] == [record.key_id]
    for table in (tables.keys, tables.jobs, tables.signals):
        await pool.execute(f"DROP TABLE {table}")


class _Stalling(VocabularyExtractor):
    """Blocks forever on a passage containing 'STALL' (the server dies there)."""

    async def extract(self, text: str, schema: Schema) -> Extraction:
        if "STALL" in text:
            await asyncio.Event().wait()
        return await super().extract(text, schema)


async def test_a_job_survives_a_server_restart(pool: asyncpg.Pool) -> None:
    """A server stops mid-job; the next one resumes it after the lease and finishes it."""
    prefix = f"jobs_{uuid.uuid4().hex[:8]}_"
    tables = ServerTables(pool, prefix=prefix)
    await tables.ensure_schema()
    embeddings = FakeEmbeddingProvider(dimension=16)
    documents = [
        {"source": f"r/{number}.md", "text": f"Eli Stone works for Northwind {number}."}
        for number in range(4)
    ]
    documents[2]["text"] += " STALL"
    first = await KnowledgeGraph.on_postgres(
        pool, embeddings=embeddings, extractor=_Stalling(), prefix=prefix
    )
    runner = JobRunner(first, PostgresJobStore(tables), lease_seconds=0.5)
    job = await runner.submit("acme", "ingest", {"documents": documents}, total=4)
    store = PostgresJobStore(tables)
    for _ in range(200):
        seen = await store.get("acme", job.job_id)
        if seen is not None and seen.done == 2:
            break
        await asyncio.sleep(0.02)
    await runner.close()  # the server stops mid-job
    stopped = await store.get("acme", job.job_id)
    assert stopped is not None
    assert (stopped.state, stopped.done) == ("running", 2)
    assert await store.get("other-tenant", job.job_id) is None

    documents_fixed = VocabularyExtractor()  # the restarted server's model no longer stalls
    second = await KnowledgeGraph.on_postgres(
        pool, embeddings=embeddings, extractor=documents_fixed, prefix=prefix
    )
    restarted = JobRunner(second, PostgresJobStore(tables), lease_seconds=0.5)
    assert await restarted.resume() == 0  # the first server's lease still holds
    await asyncio.sleep(0.6)
    assert await restarted.resume() == 1
    await restarted.wait()
    finished = await store.get("acme", job.job_id)
    assert finished is not None
    assert finished.state == "succeeded", finished.error
    assert (finished.done, finished.attempts) == (4, 2)
    assert sorted(str(info.source_id) for info in await second.sources("acme")) == [
        "r/0.md", "r/1.md", "r/2.md", "r/3.md",
    ]  # fmt: skip
    rows = await pool.fetch("SELECT tablename FROM pg_tables WHERE tablename LIKE $1", prefix + "%")
    for row in rows:
        await pool.execute(f'DROP TABLE "{row["tablename"]}" CASCADE')
