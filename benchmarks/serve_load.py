"""The HTTP API under load: two uvicorn workers on the embedded PostgreSQL, 50 clients.

Run with ``uv run --frozen --no-sync python -m benchmarks.serve_load`` (``--quick`` for a
short run). It starts ``redstring serve --workers 2`` on its own embedded PostgreSQL in a
temporary data directory, with a scripted extractor (``ScriptedExtractor`` below: no model),
creates a tenant key, imports 10,000 entities (and 5,000 relationships) through
``/v1/import`` and 200 documents through ``/v1/documents/batch``, then measures:

1. the floors: ``GET /v1/health`` from 50 clients (the HTTP stack alone: no key check, no
   backend), and one client's sequential ``/v1/query`` (the query's own latency);
2. the mix: 50 clients for ``--seconds``, each request a query (90 %) or an ingest of a new
   document (10 %), per-endpoint throughput and p50/p95/p99 latency, and the ratio of each
   p50 to its floor;
3. afterwards: errors (any non-2xx or transport failure) and lost writes (an acknowledged
   ingest whose source is not listed by ``/v1/sources``). Both must be zero.

Everything it starts it stops; the data directory is removed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx

from benchmarks.support import free_port, percentile
from redstring.domain.extraction import ExtractedEntity, ExtractedRelationship, Extraction
from redstring.domain.schema import Schema

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = 50
ENTITIES = 10_000
DOCUMENTS = 200
FIRST = ("Ada", "Bruno", "Chen", "Dana", "Eli", "Farah", "Grace", "Hugo", "Ines", "Jon")
LAST = ("Okafor", "Diaz", "Wei", "Ivers", "Stone", "Nasser", "Hopper", "Lind", "Moreau", "Sato")
_PAIR = re.compile(r"\b([A-Z][a-z]+ [A-Z][a-z]+\d*)\b")


class ScriptedExtractor:
    """Two capitalised words (and an optional number) are a Person; "X knows Y" an edge."""

    @property
    def model(self) -> str:
        return "bench/scripted-1"

    async def extract(self, text: str, schema: Schema) -> Extraction:
        names = list(dict.fromkeys(_PAIR.findall(text)))
        relationships = [
            ExtractedRelationship(subject=left, type="KNOWS", object=right)
            for left, right in itertools.pairwise(names)
            if f"{left} knows {right}" in text
        ]
        return Extraction(
            entities=[ExtractedEntity(name=name, type="Person") for name in names],
            relationships=relationships,
        )


def person(number: int) -> str:
    """The seeded person ``number``: a first and last name and a number, all distinct."""
    return f"{FIRST[number % 10]} {LAST[(number // 10) % 10]}{number}"


async def _wait_job(client: httpx.AsyncClient, job: dict[str, Any]) -> dict[str, Any]:
    while job["state"] not in {"succeeded", "failed"}:
        await asyncio.sleep(0.5)
        job = (await client.get(f"/v1/jobs/{job['job_id']}")).json()
    if job["state"] != "succeeded":
        raise RuntimeError(f"seeding job failed: {job['error']}")
    return job


async def _seed(client: httpx.AsyncClient, entities: int) -> float:
    started = time.perf_counter()
    for start in range(0, entities, 2_500):  # each import names only its own refs
        chunk = range(start, min(start + 2_500, entities))
        lines = [
            json.dumps({"kind": "entity", "ref": f"p{n}", "type": "Person", "name": person(n)})
            for n in chunk
        ]
        lines += [
            json.dumps(
                {"kind": "relationship", "subject": f"p{n}", "type": "KNOWS", "object": f"p{n + 1}"}
            )
            for n in chunk
            if n % 2 == 0 and n + 1 in chunk
        ]
        sent = await client.post(
            "/v1/import",
            content="\n".join(lines).encode(),
            headers={"Content-Type": "application/x-ndjson"},
        )
        sent.raise_for_status()
        await _wait_job(client, sent.json())
    for start in range(0, DOCUMENTS, 100):
        batch = {
            "documents": [
                {
                    "source": f"seed/{n}.md",
                    "text": f"{person(n)} knows {person(n + 1)}. They met in {n % 50 + 1900}.",
                }
                for n in range(start, start + 100)
            ]
        }
        sent = await client.post("/v1/documents/batch", json=batch)
        sent.raise_for_status()
        await _wait_job(client, sent.json())
    return time.perf_counter() - started


async def _drive(
    client: httpx.AsyncClient,
    seconds: float,
    clients: int,
    choose: Any,
    outcome: dict[str, list[float]],
    errors: list[str],
    written: list[str],
) -> float:
    stop = time.perf_counter() + seconds

    async def one(worker: int) -> None:
        rng = random.Random(worker)
        serial = 0
        while time.perf_counter() < stop:
            name, method, url, body = choose(rng, worker, serial)
            serial += 1
            started = time.perf_counter()
            try:
                response = await client.request(method, url, json=body)
            except httpx.HTTPError as error:
                errors.append(f"{name}: {type(error).__name__}: {error}")
                continue
            elapsed = time.perf_counter() - started
            if response.status_code >= 300:
                errors.append(f"{name}: {response.status_code} {response.text[:200]}")
                continue
            outcome[name].append(elapsed)
            if name == "ingest":
                written.append(body["source"])

    began = time.perf_counter()
    await asyncio.gather(*(one(worker) for worker in range(clients)))
    return time.perf_counter() - began


def _query(rng: random.Random, entities: int) -> tuple[str, str, str, dict[str, Any]]:
    return "query", "POST", "/v1/query", {"text": person(rng.randrange(entities)), "k": 10}


async def _measure(base: str, key: str, seconds: float, entities: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(
        base_url=base, headers=headers, timeout=120, limits=limits
    ) as client:
        seeded = await _seed(client, entities)
        floor: dict[str, list[float]] = defaultdict(list)
        errors: list[str] = []
        written: list[str] = []
        health_time = await _drive(
            client,
            min(10.0, seconds / 3),
            CLIENTS,
            lambda rng, w, s: ("health", "GET", "/v1/health", None),
            floor,
            errors,
            written,
        )
        single_time = await _drive(
            client,
            min(15.0, seconds / 3),
            1,
            lambda rng, w, s: _query(rng, entities),
            floor,
            errors,
            written,
        )

        def mixed(rng: random.Random, worker: int, serial: int) -> tuple[str, str, str, Any]:
            if rng.random() < 0.1:
                source = f"load/{worker}/{serial}.md"
                newcomer = f"New Person{worker * 100_000 + serial}"
                text = f"{person(rng.randrange(entities))} knows {newcomer}."
                return "ingest", "POST", "/v1/documents", {"source": source, "text": text}
            return _query(rng, entities)

        load: dict[str, list[float]] = defaultdict(list)
        load_time = await _drive(client, seconds, CLIENTS, mixed, load, errors, written)
        listed: set[str] = set()
        offset = 0
        while True:
            page = (await client.get(f"/v1/sources?offset={offset}&limit=100")).json()
            listed.update(item["source_id"] for item in page["items"])
            offset += 100
            if offset >= page["total"]:
                break
        lost = [source for source in written if source not in listed]
    return {
        "seed_seconds": seeded,
        "floor": floor,
        "health_seconds": health_time,
        "single_seconds": single_time,
        "load": load,
        "load_seconds": load_time,
        "errors": errors,
        "written": len(written),
        "lost": lost,
    }


def _table(result: dict[str, Any]) -> str:
    floor, load = result["floor"], result["load"]
    floor_p50 = {
        "query": statistics.median(floor["query"]),
        "health": statistics.median(floor["health"]),
    }
    rows = [
        "| phase | endpoint | clients | requests/s | p50 ms | p95 ms | p99 ms | p50 vs floor |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def row(phase: str, name: str, clients: int, values: list[float], seconds: float) -> None:
        p50 = statistics.median(values)
        ratio = f"{p50 / floor_p50['query']:.2f}x" if name != "health" else "1.00x"
        rows.append(
            f"| {phase} | {name} | {clients} | {len(values) / seconds:,.1f} | {p50 * 1000:,.1f} "
            f"| {percentile(values, 0.95) * 1000:,.1f} | {percentile(values, 0.99) * 1000:,.1f}"
            f" | {ratio} |"
        )

    row("floor", "health", CLIENTS, floor["health"], result["health_seconds"])
    row("floor", "query", 1, floor["query"], result["single_seconds"])
    for name in ("query", "ingest"):
        row("mix 90/10", name, CLIENTS, load[name], result["load_seconds"])
    return "\n".join(rows)


def _serve(data_dir: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("REDSTRING_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.Popen(
        [
            sys.executable, "-m", "redstring", "serve", "--workers", "2", "--port", str(port),
            "--data-dir", str(data_dir), "--extractor", "benchmarks.serve_load:ScriptedExtractor",
            "--rate-limit", "100000000", "--config", str(data_dir / "config.toml"),
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip


async def _key(data_dir: Path) -> str:
    from redstring.cli import embedded
    from redstring.postgres.pool import create_pool
    from redstring.serve.postgres import PostgresKeyStore, ServerTables

    pool = await create_pool(embedded.start(data_dir), max_size=2)
    try:
        tables = ServerTables(pool)
        await tables.ensure_schema()
        _, secret = await PostgresKeyStore(tables).create(tenant="bench", name="serve_load")
        return secret
    finally:
        await pool.close()


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the mixed phase")
    parser.add_argument("--entities", type=int, default=ENTITIES)
    parser.add_argument("--quick", action="store_true", help="20 s and 2,000 entities")
    arguments = parser.parse_args()
    seconds = 20.0 if arguments.quick else arguments.seconds
    entities = 2_000 if arguments.quick else arguments.entities
    data_dir = Path(tempfile.mkdtemp(prefix="redstring-serve-load-"))
    (data_dir / "config.toml").write_text("")
    from redstring.cli import embedded

    embedded.start(data_dir)  # once, before two workers look for it
    key = asyncio.run(_key(data_dir))
    port = free_port()
    log = data_dir / "server.log"
    server = _serve(data_dir, port, log)
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
        result = asyncio.run(_measure(base, key, seconds, entities))
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        embedded.stop(data_dir)
        shutil.rmtree(data_dir, ignore_errors=True)
    print(
        f"seeded {entities:,} entities, {entities // 2:,} relationships and {DOCUMENTS} documents "
        f"through the API in {result['seed_seconds']:.1f} s; "
        f"mixed phase {result['load_seconds']:.1f} s"
    )
    print(_table(result))
    print(
        f"errors: {len(result['errors'])}; acknowledged ingests: {result['written']}; "
        f"lost writes: {len(result['lost'])}"
    )
    for error in result["errors"][:10]:
        print("  ", error)
    if result["errors"] or result["lost"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
