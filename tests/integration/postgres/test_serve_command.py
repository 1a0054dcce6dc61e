"""``redstring keys`` and ``redstring serve --workers 2`` as a user runs them, on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx2
import pytest
import requests
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.cli_runner import EXTRACTOR, clean_environment, invoke

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _mcp_stats(base: str, key: str) -> dict[str, Any]:
    """The stats resource read over MCP at /mcp with ``key``, after a search."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        found = await client.call_tool("search", {"query": "Ada Lovelace"})
        assert not found.is_error, found
        stats = await client.read_resource("redstring://stats")
        data: dict[str, Any] = json.loads(stats.contents[0].text)
        return data


def test_keys_and_two_workers_serve_one_tenant(postgres_dsn: str, tmp_path: Path) -> None:
    """A key made by `keys create` opens its tenant on a two-worker server (HTTP and MCP);
    `keys list` shows it without its secret; revoking an unknown id is a one-line error."""
    config = tmp_path / "config.toml"
    config.write_text("")
    tenant = f"cli-{uuid.uuid4().hex[:8]}"
    options = {"postgres_dsn": postgres_dsn, "tenant": tenant}
    created = invoke(
        ("keys", "create", "--json", "--name", "ci"), config_file=config, options=options
    )
    assert created.exit_code == 0, created
    key = json.loads(created.stdout)
    listed = invoke(("keys", "list", "--json"), config_file=config, options=options)
    assert [row["key_id"] for row in json.loads(listed.stdout)] == [key["key_id"]]
    assert key["key"] not in listed.stdout
    unknown = invoke(("keys", "revoke", "000000000000"), config_file=config, options=options)
    assert unknown.exit_code == 1
    assert "no API key with id '000000000000'" in unknown.stderr

    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable, "-m", "redstring", "serve", "--port", str(port), "--workers", "2",
            "--postgres-dsn", postgres_dsn, "--extractor", EXTRACTOR, "--config", str(config),
        ],
        env=clean_environment({}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {key['key']}"}
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            try:
                if requests.get(f"{base}/v1/ready", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.5)
        for number in range(4):  # spread over both workers
            sent = requests.post(
                f"{base}/v1/documents",
                json={
                    "source": f"w/{number}.md",
                    "text": f"Ada Lovelace works for Babbage {number}.",
                },
                headers=headers,
                timeout=60,
            )
            assert sent.status_code == 200, sent.text
        sources = requests.get(f"{base}/v1/sources", headers=headers, timeout=30).json()
        assert [item["source_id"] for item in sources["items"]] == [f"w/{n}.md" for n in range(4)]
        assert requests.get(f"{base}/v1/stats", timeout=30).status_code == 401
        stats = asyncio.run(_mcp_stats(base, key["key"]))
        assert stats["sources"] == 4
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        invoke(("delete-tenant", "--yes"), config_file=config, options=options)
        invoke(("keys", "revoke", key["key_id"]), config_file=config, options=options)
