"""One large document against everyone else: does the server keep answering while it ingests?

Run with ``uv run --frozen --no-sync python -m benchmarks.serve_stall`` (``--quick``: a
200,000-character document instead of 1,000,000). Issue 26, finding 4: a 1 MB document
ingested offline held the event loop, and ``/v1/health`` took up to 6.9 s meanwhile.

For each way of running the offline extractor (``--extract-processes 0``: in the serving
process, as before; ``1``: one worker process), it starts ``redstring serve`` on its own
embedded PostgreSQL with the real offline extractor (spaCy) and the bundled embedding model,
seeds a second tenant with a few documents, and then measures, for the same number of
seconds, idle and then while the large document is ingested:

* ``GET /v1/health`` latency from one client probing every 20 ms (the event loop's delay);
* the second tenant's ``POST /v1/query`` latency from one client querying back to back.

The large document is Debian's Python documentation (``python3-doc``, the library reference)
read as text, sent with ``Prefer: respond-async`` and followed as a job until it finishes.
The extraction workers run ``nice`` 10, so on a shared machine the ingest itself is slower
with a pool than in-process (it yields the CPU to everyone else, not only to the server): the
table prints the load average before each run. Everything it starts it stops; the data
directories are removed.
"""

from __future__ import annotations

import argparse
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

from benchmarks.support import free_port, percentile, print_table

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = Path("/usr/share/doc/python3-doc/html/library")
QUESTIONS = ("How do I sort a list?", "What does json.dumps do?", "open a file for reading")


def large_document(chars: int) -> str:
    """The library reference pages as text, in name order, until ``chars`` are reached."""
    from redstring.documents import read_document

    parts: list[str] = []
    total = 0
    for page in sorted(LIBRARY.glob("*.html")):
        text = read_document(page).text
        parts.append(text)
        total += len(text)
        if total >= chars:
            break
    return "\n\n".join(parts)[:chars]


async def _keys(data_dir: Path) -> dict[str, str]:
    from redstring.cli import embedded
    from redstring.postgres.pool import create_pool
    from redstring.serve.postgres import PostgresKeyStore, ServerTables

    pool = await create_pool(embedded.start(data_dir), max_size=2)
    try:
        tables = ServerTables(pool)
        await tables.ensure_schema()
        store = PostgresKeyStore(tables)
        return {t: (await store.create(tenant=t, name="serve_stall"))[1] for t in ("big", "other")}
    finally:
        await pool.close()


def _serve(data_dir: Path, port: int, processes: int, log: Path) -> subprocess.Popen[bytes]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("REDSTRING_")}
    return subprocess.Popen(
        [
            sys.executable, "-m", "redstring", "serve", "--port", str(port),
            "--data-dir", str(data_dir), "--extract-processes", str(processes),
            "--rate-limit", "100000000", "--config", str(data_dir / "config.toml"),
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip


async def _job(client: httpx.AsyncClient, headers: dict[str, str], job: dict[str, Any]) -> Any:
    while job["state"] not in {"succeeded", "failed"}:
        await asyncio.sleep(0.5)
        job = (await client.get(f"/v1/jobs/{job['job_id']}", headers=headers)).json()
    if job["state"] != "succeeded":
        raise RuntimeError(f"the job failed: {job['error']}")
    return job


async def _probe(
    client: httpx.AsyncClient, other: dict[str, str], until: asyncio.Event
) -> tuple[list[float], list[float]]:
    """Health every 20 ms and the other tenant's queries back to back, until ``until``."""
    health: list[float] = []
    queries: list[float] = []

    async def healthy() -> None:
        while not until.is_set():
            started = time.perf_counter()
            (await client.get("/v1/health")).raise_for_status()
            health.append(time.perf_counter() - started)
            await asyncio.sleep(0.02)

    async def asking() -> None:
        number = 0
        while not until.is_set():
            started = time.perf_counter()
            body = {"text": QUESTIONS[number % len(QUESTIONS)], "k": 5}
            (await client.post("/v1/query", json=body, headers=other)).raise_for_status()
            queries.append(time.perf_counter() - started)
            number += 1

    await asyncio.gather(healthy(), asking())
    return health, queries


async def _measure(base: str, keys: dict[str, str], document: str, idle: float) -> dict[str, Any]:
    big = {"Authorization": f"Bearer {keys['big']}"}
    other = {"Authorization": f"Bearer {keys['other']}"}
    async with httpx.AsyncClient(base_url=base, timeout=600) as client:
        seed = {
            "documents": [
                {"source": f"seed/{n}.txt", "text": document[n * 4000 : (n + 1) * 4000]}
                for n in range(10)
            ]
        }
        sent = await client.post("/v1/documents/batch", json=seed, headers=other)
        await _job(client, other, sent.json())
        stop = asyncio.Event()
        probing = asyncio.create_task(_probe(client, other, stop))
        await asyncio.sleep(idle)
        stop.set()
        calm_health, calm_queries = await probing
        stop = asyncio.Event()
        probing = asyncio.create_task(_probe(client, other, stop))
        started = time.perf_counter()
        sent = await client.post(
            "/v1/documents",
            json={"source": "library.txt", "text": document},
            headers={**big, "Prefer": "respond-async"},
        )
        sent.raise_for_status()
        job = await _job(client, big, sent.json())
        ingest_seconds = time.perf_counter() - started
        stop.set()
        busy_health, busy_queries = await probing
    return {
        "idle": (calm_health, calm_queries),
        "busy": (busy_health, busy_queries),
        "ingest_seconds": ingest_seconds,
        "passages": job["result"]["chunks"],
    }


def _ms(values: list[float], share: float | None = None) -> str:
    if not values:
        return "-"
    value = statistics.median(values) if share is None else percentile(values, share)
    return f"{value * 1000:,.1f}"


def _run(processes: int, document: str, idle: float) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="redstring-serve-stall-"))
    (data_dir / "config.toml").write_text("")
    from redstring.cli import embedded

    embedded.start(data_dir)
    keys = asyncio.run(_keys(data_dir))
    port = free_port()
    log = data_dir / "server.log"
    server = _serve(data_dir, port, processes, log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the server exited:\n{log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base}/v1/ready", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not become ready in 180 s")
            time.sleep(0.5)
        return asyncio.run(_measure(base, keys, document, idle))
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        embedded.stop(data_dir)
        shutil.rmtree(data_dir, ignore_errors=True)


def main() -> None:
    """Run both ways and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chars", type=int, default=1_000_000, help="the document's length")
    parser.add_argument("--quick", action="store_true", help="a 200,000-character document")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle probing")
    arguments = parser.parse_args()
    document = large_document(200_000 if arguments.quick else arguments.chars)
    rows = []
    for processes in (0, 1):
        load = os.getloadavg()[0]
        result = _run(processes, document, arguments.idle)
        for phase in ("idle", "busy"):
            health, queries = result[phase]
            rows.append(
                [
                    f"--extract-processes {processes} (load {load:.1f})",
                    "idle" if phase == "idle" else f"ingesting {len(document):,} chars",
                    str(len(health)),
                    _ms(health),
                    _ms(health, 0.99),
                    _ms([max(health)] if health else []),
                    str(len(queries)),
                    _ms(queries),
                    _ms(queries, 0.99),
                    f"{result['ingest_seconds']:.1f} s ({result['passages']} passages)"
                    if phase == "busy"
                    else "",
                ]
            )
    print_table(
        [
            "extractor", "phase", "health n", "health p50 ms", "health p99 ms", "health max ms",
            "queries n", "query p50 ms", "query p99 ms", "ingest",
        ],
        rows,
    )  # fmt: skip


if __name__ == "__main__":
    main()
