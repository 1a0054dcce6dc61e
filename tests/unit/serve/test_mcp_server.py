"""The MCP server through the SDK's own client: streamable HTTP (a real uvicorn server on a
free port) and stdio (the real ``redstring serve --transport stdio`` as a subprocess)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.cli_runner import clean_environment
from tests.serve_isolation import twin_of as _twin
from tests.serve_world import B_NAMES, DOCS_A, DOCS_B, TENANT_A, TENANT_B, running_server


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _data(result: Any) -> Any:
    assert not result.is_error, result
    return json.loads(result.content[0].text)


def _mcp(url: str, key: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30)
    return Client(streamable_http_client(f"{url}/mcp", http_client=http))


async def test_every_tool_and_resource_over_streamable_http() -> None:
    """Add, search, get with neighbours, ask, delete; the schema and stats resources."""
    with running_server() as (url, world):
        async with _mcp(url, world.keys[TENANT_A]) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert tools == {
                "add_document",
                "get_job",
                "search",
                "ask",
                "get_entity",
                "delete_source",
            }
            added = _data(
                await client.call_tool(
                    "add_document",
                    {"source": "m/eli.md", "text": "Eli Stone works for Okafor Labs."},
                )
            )
            assert added["source_id"] == "m/eli.md"
            found = _data(await client.call_tool("search", {"query": "Eli Stone", "k": 5}))
            eli = next(item for item in found["entities"] if item["entity"]["name"] == "Eli Stone")
            view = _data(await client.call_tool("get_entity", {"entity_id": eli["entity"]["id"]}))
            assert view["sources"] == ["m/eli.md"]
            assert [n["name"] for n in view["neighbours"]] == ["Okafor Labs"]
            answer = _data(await client.call_tool("ask", {"question": "Where does Eli work?"}))
            assert answer["kind"] in {"extractive", "unanswerable"}
            stats = await client.read_resource("redstring://stats")
            assert json.loads(stats.contents[0].text)["sources"] == 3
            schema = await client.read_resource("redstring://schema")
            assert "Person" in schema.contents[0].text
            deleted = _data(await client.call_tool("delete_source", {"source": "m/eli.md"}))
            assert deleted["existed"] is True


async def test_tenant_b_is_invisible_to_tenant_a_over_mcp() -> None:
    """Every tool and resource with B's entity ids, source ids, names and job id: lookups answer
    exactly like a value that names nothing (the twin), reads hold nothing of B, and B's
    graph is unchanged."""
    with running_server() as (url, world):
        graph = world.service.graph
        job = await world.service.jobs.submit(TENANT_B, "rebuild", {}, total=1)
        await world.service.jobs.wait()
        before = (await graph.export(TENANT_B)).model_dump_json()
        markers = [*B_NAMES, *DOCS_B, *world.entity_ids[TENANT_B]]
        values = [*world.entity_ids[TENANT_B], *DOCS_B, *B_NAMES, TENANT_B, job.job_id]
        async with _mcp(url, world.keys[TENANT_A]) as client:
            for value in values:
                twin = _twin(value)
                for tool, arguments in (
                    ("get_entity", {"entity_id": value}),
                    ("delete_source", {"source": value}),
                    ("get_job", {"job_id": value}),
                ):
                    theirs = await client.call_tool(tool, arguments)
                    nobody = await client.call_tool(tool, dict.fromkeys(arguments, twin))
                    assert theirs.is_error, (tool, value)
                    assert theirs.content[0].text.replace(value, twin) == nobody.content[0].text
                for tool, arguments in (
                    ("search", {"query": value}),
                    ("ask", {"question": value}),
                ):
                    answer = _data(await client.call_tool(tool, arguments))
                    answer.pop("question", None)  # the caller's own words, echoed
                    text = json.dumps(answer)
                    assert [m for m in markers if m in text] == [], (tool, value)
            stats = await client.read_resource("redstring://stats")
            assert json.loads(stats.contents[0].text)["sources"] == len(DOCS_A)
        assert (await graph.export(TENANT_B)).model_dump_json() == before


async def test_a_missing_or_wrong_key_is_refused_over_mcp() -> None:
    """Without a valid key not even the handshake succeeds."""
    with running_server() as (url, _):
        # The SDK surfaces the refusal as its own error type, wrapped in a task group.
        with pytest.raises(BaseException) as refused:  # noqa: PT011 - checked below
            async with _mcp(url, "rsk_000000000000_nope") as client:
                await client.list_tools()
        assert any("API key is not valid" in str(error) for error in _leaves(refused.value))


async def test_the_stdio_transport_runs_from_the_command(tmp_path: Path) -> None:
    """``redstring serve --transport stdio --backend memory`` answers the SDK's client."""
    extractor = "tests.unit.cli.names_extractor:CapitalisedNames"
    config = tmp_path / "config.toml"
    config.write_text("")
    parameters = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m", "redstring", "serve", "--transport", "stdio", "--backend", "memory",
            "--extractor", extractor, "--tenant", "stdio-tenant", "--config", str(config),
        ],
        env=clean_environment({}),
        cwd=str(Path.cwd()),
    )  # fmt: skip
    async with Client(parameters) as client:
        added = _data(
            await client.call_tool(
                "add_document", {"source": "s.md", "text": "Ada Lovelace works for Babbage Works."}
            )
        )
        assert added["source_id"] == "s.md"
        stats = await client.read_resource("redstring://stats")
        assert json.loads(stats.contents[0].text)["sources"] == 1
