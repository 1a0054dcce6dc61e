"""What a hostile client sends gets a 4xx problem and writes nothing (issue 26, findings 3
and 6): deep nesting, lone surrogates, control characters in source ids, bodies over the
limit however they are sent. Each case is a request the probe of issue 26 reported (a 500,
an event written, a 400 where 413 belongs), on JSON, JSON Lines, multipart and MCP.

The server is real (uvicorn on a free port): chunked bodies and raw bytes reach it as a
client sends them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from redstring.serve import Limits
from tests.serve_world import TENANT_A, World, as_tenant, running_server

DEEP = 100_000
RECORD = '{"kind": "entity", "ref": "r", "type": "Person", "name": "Eli Stone"'


def _events(client: httpx.Client, headers: dict[str, str]) -> int:
    count: int = client.get("/v1/stats", headers=headers).json()["events"]
    return count


def _sent(
    client: httpx.Client, headers: dict[str, str], path: str, body: bytes, kind: str
) -> httpx.Response:
    return client.post(path, content=body, headers={**headers, "Content-Type": kind})


BAD: tuple[tuple[str, bytes, str, str], ...] = (
    ("/v1/import", (RECORD + ', "attributes": {"x": ' + "[" * DEEP + "]" * DEEP + "}}").encode(),
     "application/x-ndjson", "body.line 1"),
    ("/v1/import", (RECORD + ', "attributes": {"x": "\\ud800"}}').encode(),
     "application/x-ndjson", "body.line 1.attributes.x"),
    ("/v1/documents", b'{"source": "s.md", "text": "Eli Stone.", "metadata": {"k": "\\ud800"}}',
     "application/json", "body.metadata.k"),
    ("/v1/documents", b'{"source": "s.md", "text": "Eli Stone.", "metadata": {"\\udc00": 1}}',
     "application/json", "body.metadata.\\udc00"),
    ("/v1/documents/batch", b'{"documents": [{"source": "\\ud800", "text": "Eli Stone."}]}',
     "application/json", "body.documents.0.source"),
    ("/v1/documents/batch", b'{"documents": [{"source": "s.md", "text": "Eli \\udfff"}]}',
     "application/json", "body.documents.0.text"),
    ("/v1/documents/batch",
     b'{"documents": [{"source": "s.md", "text": "Eli.", "metadata": {"\\ud800": 1}}]}',
     "application/json", "body.documents.0.metadata.\\ud800"),
    ("/v1/query", b'{"text": "Eli \\ud800"}', "application/json", "body.text"),
    ("/v1/documents", json.dumps({"source": "a\r\nb.md", "text": "Eli Stone."}).encode(),
     "application/json", "body.source"),
    ("/v1/documents", json.dumps({"source": "\x1b[31mred.md", "text": "Eli Stone."}).encode(),
     "application/json", "body.source"),
)  # fmt: skip


def test_every_hostile_body_is_a_422_naming_the_field_and_writes_nothing() -> None:
    """Deep JSON Lines, lone surrogates in any string or key, control characters in a
    source id: 422 (never 500), the field named by its path, and no event added."""
    with running_server() as (url, world), httpx.Client(base_url=url, timeout=60) as client:
        headers = as_tenant(world, TENANT_A)
        before = _events(client, headers)
        for path, body, kind, field in BAD:
            answer = _sent(client, headers, path, body, kind)
            assert answer.status_code == 422, (path, body[:80], answer.text[:500])
            assert answer.headers["content-type"] == "application/problem+json"
            fields = [item["field"] for item in answer.json().get("errors") or []]
            assert any(item.startswith(field) for item in fields), (path, field, answer.text)
            assert _events(client, headers) == before, (path, body[:80])
        # A JSON body nested that deep cannot be read at all: a 400, not a 500.
        deep = b'{"source": "s.md", "text": "x", "metadata": {"k": ' + b"[" * DEEP + b"]" * DEEP
        assert (
            _sent(client, headers, "/v1/documents", deep + b"}}", "application/json").status_code
            == 400
        )


def _chunks(total: int, piece: int = 64 * 1024) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield b" " * min(piece, total - sent)
        sent += piece


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/v1/documents", "application/json"),
        ("/v1/import", "application/x-ndjson"),
        ("/v1/documents/file", "multipart/form-data; boundary=xyz"),
        ("/mcp", "application/json"),
    ],
)
def test_a_body_over_the_limit_is_a_413_however_it_is_sent(path: str, kind: str) -> None:
    """Declared (Content-Length) or streamed (chunked), JSON, JSON Lines, multipart or MCP:
    past max_body_bytes the answer is 413, never the 400 of a parser that saw half a body."""
    with (
        running_server(limits=Limits(max_body_bytes=100_000)) as (url, world),
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        headers = {**as_tenant(world, TENANT_A), "Content-Type": kind}
        declared = client.post(path, content=b" " * 200_000, headers=headers)
        assert declared.status_code == 413, (path, declared.text[:300])
        streamed = client.post(path, content=_chunks(200_000), headers=headers)
        assert streamed.status_code == 413, (path, streamed.text[:300])
        assert streamed.headers["content-type"] == "application/problem+json"


async def _tool(world: World, url: str, name: str, arguments: dict[str, Any]) -> Any:
    http = httpx2.AsyncClient(headers=as_tenant(world, TENANT_A), timeout=30)
    async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
        return await mcp.call_tool(name, arguments)


async def test_an_mcp_source_id_with_a_line_break_is_a_tool_error() -> None:
    """The same source-id rule as over HTTP, named in the tool's error."""
    with running_server() as (url, world):
        refused = await _tool(world, url, "add_document", {"source": "a\r\nb.md", "text": "Eli."})
        assert refused.is_error
        assert "invalid source id" in refused.content[0].text


def test_a_lone_surrogate_in_mcp_arguments_is_never_a_server_error() -> None:
    """No client library will even encode one, so it is sent raw: a JSON-RPC error, never a
    5xx, and the tenant is untouched."""
    with running_server() as (url, world), httpx.Client(base_url=url, timeout=30) as client:
        headers = {
            **as_tenant(world, TENANT_A),
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        for tool, arguments in (
            ("add_document", b'{"source": "s.md", "text": "Eli \\ud800"}'),
            ("search", b'{"query": "\\udc00"}'),
            ("get_entity", b'{"entity_id": "\\ud800"}'),
        ):
            call = (
                b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "'
                + tool.encode() + b'", "arguments": ' + arguments + b"}}"
            )  # fmt: skip
            answer = client.post("/mcp", content=call, headers=headers)
            assert answer.status_code < 500, (tool, answer.text)
            assert "error" in answer.json() or answer.json()["result"].get("isError"), answer.text
        assert client.get("/v1/sources", headers=as_tenant(world, TENANT_A)).json()["total"] == 2
