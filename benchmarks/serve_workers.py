"""Two worker processes, one set of keys: revocation, rate limits and erasure across workers.

Run with ``uv run --frozen --no-sync python -m benchmarks.serve_workers``. It starts
``redstring serve --workers 2`` on its own embedded PostgreSQL, once with its own Redis
(``redis-server`` on a free port, no persistence) and once without, and measures what issue
26 asked about that a single process cannot show:

* **revocation latency**: both workers have just verified a key; ``redstring keys revoke``
  revokes it; how long the command takes, and from its end how long until a request with the
  key is refused, and how many of the next 40 requests (new connections, so both workers
  answer) are still let in. Refused is ``401``, or ``429`` once the refusals pass the address's
  budget for keys that open nothing (a revoked key is told apart from no key by nobody);
* **the commands**: ``redstring keys create`` and ``keys revoke`` against the running
  server's database, beside ``redstring --help`` (starting the interpreter and importing the
  command, nothing else);
* **the rate limit across workers**: ``--rate-limit 60`` and then the default (600 a
  minute), and 1.25 times that many requests as fast as one client sends them, each on a
  new connection: how many are admitted. With Redis the workers share one budget; without,
  each keeps its own;
* **erasure across workers**: a tenant both workers have served is erased through
  ``DELETE /v1/tenants/{t}``; how many of the next 40 requests with its key are still let
  in, and whether an admin reads it as empty on 20 more.

Everything it starts it stops; the data directories are removed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.support import free_port, print_table

ROOT = Path(__file__).resolve().parent.parent
EXTRACTOR = "benchmarks.serve_load:ScriptedExtractor"


def _redis() -> tuple[str, subprocess.Popen[bytes]]:
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    time.sleep(0.5)
    return f"redis://127.0.0.1:{port}/0", server


def _flush(url: str) -> None:
    from redis import Redis

    client = Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


async def _tables(data_dir: Path) -> Any:
    from redstring.cli import embedded
    from redstring.postgres.pool import create_pool
    from redstring.serve.postgres import ServerTables

    pool = await create_pool(embedded.start(data_dir), max_size=2)
    tables = ServerTables(pool)
    await tables.ensure_schema()
    return tables


async def _key(data_dir: Path, tenant: str | None) -> tuple[str, str]:
    from redstring.serve.postgres import PostgresKeyStore

    tables = await _tables(data_dir)
    try:
        record, secret = await PostgresKeyStore(tables).create(tenant=tenant, name="bench")
        return record.key_id, secret
    finally:
        await tables.pool.close()


def _command(data_dir: Path, *arguments: str) -> float:
    """Seconds ``redstring ARGUMENTS`` takes on the data directory, as an operator runs it."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("REDSTRING_")}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "redstring", *arguments, "--data-dir", str(data_dir),
         "--config", str(data_dir / "config.toml")],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - started


def _help_seconds() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "redstring", "--help"], check=True, capture_output=True)
    return time.perf_counter() - started


REFUSED = frozenset({401, 429})


def _serve(data_dir: Path, port: int, rate: int, redis: str | None) -> subprocess.Popen[bytes]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("REDSTRING_")}
    env["PYTHONPATH"] = str(ROOT)
    options = ["--redis-url", redis] if redis else []
    return subprocess.Popen(
        [
            sys.executable, "-m", "redstring", "serve", "--workers", "2", "--port", str(port),
            "--data-dir", str(data_dir), "--extractor", EXTRACTOR, "--rate-limit", str(rate),
            "--config", str(data_dir / "config.toml"), *options,
        ],
        cwd=ROOT,
        env=env,
        stdout=(data_dir / "server.log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip


def _statuses(base: str, headers: dict[str, str], path: str, count: int) -> list[int]:
    """``count`` requests, each on a new connection (``Connection: close``, so the kernel
    spreads them over both workers)."""
    closing = {**headers, "Connection": "close"}
    with httpx.Client(base_url=base, timeout=30) as client:
        return [client.get(path, headers=closing).status_code for _ in range(count)]


def _admitted_after(base: str, headers: dict[str, str], path: str) -> int:
    """How many of the next 40 requests (new connections, both workers) are still let in."""
    return sum(status not in REFUSED for status in _statuses(base, headers, path, 40))


def _ready(base: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 180
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited:\n{log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base}/v1/ready", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not become ready in 180 s")
        time.sleep(0.5)


def _run(redis: str | None, rate: int) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="redstring-serve-workers-"))
    (data_dir / "config.toml").write_text("")
    from redstring.cli import embedded

    embedded.start(data_dir)
    keys = {name: asyncio.run(_key(data_dir, name)) for name in ("revoked", "erased", "limited")}
    admin = asyncio.run(_key(data_dir, None))[1]
    port = free_port()
    server = _serve(data_dir, port, rate, redis)
    base = f"http://127.0.0.1:{port}"
    result: dict[str, Any] = {}
    try:
        _ready(base, server, data_dir / "server.log")
        as_key = {name: {"Authorization": f"Bearer {k[1]}"} for name, k in keys.items()}
        # Revocation: both workers verify the key, then it is revoked.
        assert set(_statuses(base, as_key["revoked"], "/v1/stats", 20)) == {200}
        result["create_command"] = _command(data_dir, "keys", "create", "--tenant", "more")
        result["revoke_command"] = _command(data_dir, "keys", "revoke", keys["revoked"][0])
        revoked_at = time.perf_counter()
        first = _statuses(base, as_key["revoked"], "/v1/stats", 1)[0]
        result["revoked_first"] = (time.perf_counter() - revoked_at, first)
        result["revoked_all"] = _admitted_after(base, as_key["revoked"], "/v1/stats")
        # Erasure: both workers fold the tenant, then an admin erases it.
        document = {"source": "e.md", "text": "Ada Lovelace knows Grace Hopper."}
        with httpx.Client(base_url=base, timeout=30) as client:
            client.post("/v1/documents", json=document, headers=as_key["erased"])
        _statuses(base, as_key["erased"], "/v1/stats", 20)
        admin_headers = {"Authorization": f"Bearer {admin}"}
        with httpx.Client(base_url=base, timeout=30) as client:
            started = time.perf_counter()
            client.delete("/v1/tenants/erased", headers=admin_headers).raise_for_status()
            result["erase_call"] = time.perf_counter() - started
        result["erased_refused"] = _admitted_after(base, as_key["erased"], "/v1/stats")
        named = {**admin_headers, "X-Redstring-Tenant": "erased"}
        with httpx.Client(base_url=base, timeout=30) as client:
            result["erased_empty"] = all(
                client.get("/v1/stats", headers=named).json()["events"] == 0 for _ in range(20)
            )
        # Rate limit: 1.25 times the budget, as fast as one client sends them.
        statuses = _statuses(base, as_key["limited"], "/v1/stats", int(rate * 1.25))
        result["admitted"] = statuses.count(200)
        result["limited"] = statuses.count(429)
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        embedded.stop(data_dir)
        shutil.rmtree(data_dir, ignore_errors=True)
    return result


def main() -> None:
    """Run with and without Redis, at two rate limits, and print one table."""
    rows = []
    commands = []
    help_seconds = [_help_seconds() for _ in range(3)]
    redis_url, redis = _redis()
    try:
        for shared in (True, False):
            for rate in (60, 600):
                if shared:  # each run starts from an empty cache (budgets included)
                    _flush(redis_url)
                result = _run(redis_url if shared else None, rate)
                seconds, status = result["revoked_first"]
                commands.append((result["create_command"], result["revoke_command"]))
                rows.append(
                    [
                        "Redis" if shared else "none (each worker its own)",
                        f"{rate}/min",
                        f"{result['admitted']} of {int(rate * 1.25)}",
                        f"{status} after {seconds * 1000:,.0f} ms",
                        f"{result['revoked_all']} of 40",
                        f"{result['erase_call'] * 1000:,.0f} ms",
                        f"{result['erased_refused']} of 40",
                        "yes" if result["erased_empty"] else "NO",
                    ]
                )
    finally:
        redis.terminate()
        redis.wait()
    print_table(
        [
            "cache", "rate limit", "admitted", "first request after keys revoke",
            "let in of the next 40", "DELETE tenant took", "its key let in of the next 40",
            "admin reads it empty",
        ],
        rows,
    )  # fmt: skip
    print_table(
        ["command", "runs", "median s", "max s"],
        [
            [name, str(len(values)), f"{statistics.median(values):.2f}", f"{max(values):.2f}"]
            for name, values in (
                ("redstring --help (start and import only)", help_seconds),
                ("redstring keys create", [create for create, _ in commands]),
                ("redstring keys revoke", [revoke for _, revoke in commands]),
            )
        ],
    )


if __name__ == "__main__":
    main()
