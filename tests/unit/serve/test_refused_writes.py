"""A document the graph cannot hold is refused before anything is written, on every path a
client can send it (issue 26, finding 1): the tenant keeps working afterwards.

The world runs the bundled offline embedding model, the one that gives no direction to text
made only of characters its tokenizer drops.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.testclient import TestClient

from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider
from tests.admission_cases import NOTHING_TO_EMBED
from tests.serve_world import TENANT_A, as_tenant, finished_job, running_server, serving


def _events(client: TestClient | httpx2.Client, headers: dict[str, str]) -> int:
    count: int = client.get("/v1/stats", headers=headers).json()["events"]
    return count


def _still_usable(client: TestClient, headers: dict[str, str]) -> None:
    for path in ("/v1/stats", "/v1/sources", "/v1/export", "/v1/merges"):
        answer = client.get(path, headers=headers)
        assert answer.status_code == 200, (path, answer.text)
    gone = client.delete("/v1/sources/bad.md", headers=headers)
    assert gone.status_code == 404, gone.text
    rebuilt = client.post("/v1/rebuild", headers=headers)
    assert finished_job(client, headers, rebuilt.json())["state"] == "succeeded"
    good = {"source": "good.md", "text": "Eli Stone works for Harbor Bank."}
    assert client.post("/v1/documents", json=good, headers=headers).status_code == 200


def test_a_document_with_nothing_to_embed_is_refused_on_every_http_path() -> None:
    """JSON, upload (a .txt holding only a byte-order mark too) and batch: 422 or a failed
    outcome naming the source, no event, and every later call works."""
    with serving(embeddings=LocalStaticEmbeddingProvider.bundled()) as (client, world):
        headers = as_tenant(world, TENANT_A)
        before = _events(client, headers)
        for text in NOTHING_TO_EMBED:
            sent = client.post(
                "/v1/documents", json={"source": "bad.md", "text": text}, headers=headers
            )
            assert sent.status_code == 422, (text, sent.text)
            stats = client.get("/v1/stats", headers=headers)
            assert (stats.status_code, stats.json().get("events")) == (200, before), stats.text
            assert "nothing the embedding model can embed" in sent.json()["detail"]
            upload = client.post(
                "/v1/documents/file",
                files={"file": ("bad.md", text.encode(), "text/markdown")},
                headers=headers,
            )
            assert upload.status_code == 422, (text, upload.text)
            batch = {"documents": [{"source": "bad.md", "text": text}]}
            job = finished_job(
                client,
                headers,
                client.post("/v1/documents/batch", json=batch, headers=headers).json(),
            )
            outcome: dict[str, Any] = job["result"]["documents"][0]
            assert (job["state"], outcome["failed"]) == ("succeeded", True), job
        bom = client.post(
            "/v1/documents/file",
            files={"file": ("bom.txt", b"\xef\xbb\xbf", "text/plain")},
            headers=headers,
        )
        assert bom.status_code == 422, bom.text
        assert _events(client, headers) == before
        _still_usable(client, headers)


async def test_a_document_with_nothing_to_embed_is_refused_over_mcp() -> None:
    """``add_document`` answers a tool error and the tenant is untouched."""
    with running_server(embeddings=LocalStaticEmbeddingProvider.bundled()) as (url, world):
        headers = as_tenant(world, TENANT_A)
        http = httpx2.AsyncClient(headers=headers, timeout=30)
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
            for text in NOTHING_TO_EMBED:
                result = await mcp.call_tool("add_document", {"source": "bad.md", "text": text})
                assert result.is_error, result
                assert "nothing the embedding model can embed" in result.content[0].text
            stats = await mcp.read_resource("redstring://stats")
            assert json.loads(stats.contents[0].text)["sources"] == 2
        with httpx2.Client(base_url=url, timeout=30) as plain:
            assert plain.get("/v1/sources", headers=headers).json()["total"] == 2
