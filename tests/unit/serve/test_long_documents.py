"""A long document is a job with progress, not a held request (issue 26, finding 4).

Past ``Limits.max_held_document_chars`` (or with ``Prefer: respond-async``) an ingest answers
``202`` with a job whose ``done`` of ``total`` counts the document's passages; a short one is
still ingested while the request waits.
"""

from __future__ import annotations

import asyncio
import json

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider
from redstring.serve import Limits
from tests.serve_world import TENANT_A, as_tenant, finished_job, running_server, serving

LIMITS = Limits(max_held_document_chars=2_000)
SENTENCE = "Eli Stone works for Harbor Bank in Lisbon. "
LONG = SENTENCE * 150  # about 6,500 characters: several passages


def test_a_long_document_is_a_job_counting_its_passages() -> None:
    """202 with a job; it ends succeeded with done == total == the passages extracted."""
    with serving(limits=LIMITS) as (client, world):
        headers = as_tenant(world, TENANT_A)
        accepted = client.post(
            "/v1/documents", json={"source": "long.md", "text": LONG}, headers=headers
        )
        assert accepted.status_code == 202, accepted.text
        job = finished_job(client, headers, accepted.json())
        assert (job["kind"], job["state"]) == ("document", "succeeded"), job
        assert job["result"]["source_id"] == "long.md"
        assert job["done"] == job["total"] == job["result"]["chunks_new"] >= 2
        sources = client.get("/v1/sources", headers=headers).json()["items"]
        assert "long.md" in [item["source_id"] for item in sources]


def test_a_short_document_waits_unless_the_client_prefers_a_job() -> None:
    """Under the limit: 200 with the report; with Prefer: respond-async: 202 and said so."""
    with serving(limits=LIMITS) as (client, world):
        headers = as_tenant(world, TENANT_A)
        held = client.post(
            "/v1/documents", json={"source": "s.md", "text": SENTENCE}, headers=headers
        )
        assert held.status_code == 200, held.text
        preferred = client.post(
            "/v1/documents",
            json={"source": "t.md", "text": SENTENCE},
            headers={**headers, "Prefer": "respond-async"},
        )
        assert preferred.status_code == 202, preferred.text
        assert preferred.headers["Preference-Applied"] == "respond-async"
        assert finished_job(client, headers, preferred.json())["state"] == "succeeded"


def test_a_long_document_that_cannot_be_stored_fails_its_job_and_writes_nothing() -> None:
    """Refused inside the job (here: nothing the bundled model can embed), the job says why
    and the tenant gains nothing."""
    with serving(limits=LIMITS, embeddings=LocalStaticEmbeddingProvider.bundled()) as (
        client,
        world,
    ):
        headers = as_tenant(world, TENANT_A)
        before = client.get("/v1/stats", headers=headers).json()["events"]
        sent = client.post(
            "/v1/documents", json={"source": "long.md", "text": "\x02" * 5_000}, headers=headers
        )
        assert sent.status_code == 202, sent.text
        job = finished_job(client, headers, sent.json())
        assert job["state"] == "failed"
        assert "nothing the embedding model can embed" in job["error"]
        assert client.get("/v1/stats", headers=headers).json()["events"] == before


async def test_over_mcp_a_long_document_answers_a_job_to_follow() -> None:
    """add_document returns the job; get_job reports it done."""
    with running_server(limits=LIMITS) as (url, world):
        http = httpx2.AsyncClient(headers=as_tenant(world, TENANT_A), timeout=30)
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
            added = await mcp.call_tool("add_document", {"source": "m.md", "text": LONG})
            job = json.loads(added.content[0].text)
            assert job["kind"] == "document"
            # The server runs its own event loop in another thread: follow the job over
            # MCP, as a client would, rather than waiting on the runner's tasks.
            state = job["state"]
            for _ in range(600):
                seen = await mcp.call_tool("get_job", {"job_id": job["job_id"]})
                state = json.loads(seen.content[0].text)["state"]
                if state not in {"queued", "running"}:
                    break
                await asyncio.sleep(0.05)
            assert state == "succeeded", state
            missing = await mcp.call_tool("get_job", {"job_id": "0" * 32})
            assert missing.is_error
