"""``redstring keys`` and ``redstring serve --workers 2`` as a user runs them, on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
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

from tests.cli_runner import EXTRACTOR, clean_environment, invoke, serving

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

    serve_options = [
        "--workers", "2", "--postgres-dsn", postgres_dsn, "--extractor", EXTRACTOR,
        "--config", str(config),
    ]  # fmt: skip
    headers = {"Authorization": f"Bearer {key['key']}"}
    try:
        with serving(serve_options, env=clean_environment({})) as base:
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
            assert [item["source_id"] for item in sources["items"]] == [
                f"w/{n}.md" for n in range(4)
            ]
            assert requests.get(f"{base}/v1/stats", timeout=30).status_code == 401
            stats = asyncio.run(_mcp_stats(base, key["key"]))
            assert stats["sources"] == 4
    finally:
        invoke(("delete-tenant", "--yes"), config_file=config, options=options)
        invoke(("keys", "revoke", key["key_id"]), config_file=config, options=options)


def _start(postgres_dsn: str, config: Path, port: int, extractor: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "redstring", "serve", "--port", str(port), "--job-lease", "3",
            "--postgres-dsn", postgres_dsn, "--extractor", extractor, "--config", str(config),
        ],
        env=clean_environment({}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip


def _ready(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while True:
        assert server.poll() is None, "the server exited"
        try:
            if requests.get(f"{base}/v1/ready", timeout=5).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        assert time.monotonic() < deadline, "the server did not become ready"
        time.sleep(0.3)


def _job(base: str, headers: dict[str, str], job_id: str, until: Any, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        job = requests.get(f"{base}/v1/jobs/{job_id}", headers=headers, timeout=30).json()
        if until(job) or time.monotonic() > deadline:
            return job
        time.sleep(0.2)


def test_a_job_survives_killing_its_server(postgres_dsn: str, tmp_path: Path) -> None:
    """A server is killed (SIGKILL) mid-job; another server started afterwards takes the job
    over when its lease runs out, and finishes every document."""
    config = tmp_path / "config.toml"
    config.write_text("")
    tenant = f"restart-{uuid.uuid4().hex[:8]}"
    options = {"postgres_dsn": postgres_dsn, "tenant": tenant}
    created = invoke(("keys", "create", "--json"), config_file=config, options=options)
    key = json.loads(created.stdout)
    headers = {"Authorization": f"Bearer {key['key']}"}
    stalling = "tests.integration.postgres.stalling_extractor:StallOnMarker"
    first_port, second_port = _free_port(), _free_port()
    first = _start(postgres_dsn, config, first_port, stalling)
    second: subprocess.Popen[bytes] | None = None
    try:
        base = f"http://127.0.0.1:{first_port}"
        _ready(base, first)
        batch = {
            "documents": [
                {"source": "k/0.md", "text": "Ada Lovelace works for Babbage Works."},
                {"source": "k/1.md", "text": "Grace Hopper works for Navy Labs. STALL"},
                {"source": "k/2.md", "text": "Alan Turing works for Bletchley Park."},
            ]
        }
        job_id = requests.post(f"{base}/v1/documents/batch", json=batch, headers=headers).json()[
            "job_id"
        ]
        stuck = _job(base, headers, job_id, lambda job: job["done"] >= 1, 60)
        assert (stuck["state"], stuck["done"]) == ("running", 1)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()

        second = _start(postgres_dsn, config, second_port, EXTRACTOR)
        base = f"http://127.0.0.1:{second_port}"
        _ready(base, second)
        done = _job(base, headers, job_id, lambda job: job["state"] != "running", 60)
        assert done["state"] == "succeeded", done
        assert (done["done"], done["total"], done["attempts"]) == (3, 3, 2)
        listed = requests.get(f"{base}/v1/sources", headers=headers, timeout=30).json()
        assert [item["source_id"] for item in listed["items"]] == ["k/0.md", "k/1.md", "k/2.md"]
    finally:
        for server in (first, second):
            if server is not None and server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        invoke(("delete-tenant", "--yes"), config_file=config, options=options)
        invoke(("keys", "revoke", key["key_id"]), config_file=config, options=options)
