"""Two OS processes on one Redis obey one rate limit between them, never more."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from redis.asyncio import Redis

from tests.integration.redis.conftest import delete_prefixed, unique_prefix
from tests.resilience_cases import most_in_any_window

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
CALLS = 10
PER_SECONDS = 0.5
DURATION = 2.0


def test_two_processes_together_never_exceed_the_limit(redis_url: str) -> None:
    """Each process alone could call thousands of times a second; together they get N per W.

    The admission instants of both processes, merged, never put more than N in any closed
    window of W seconds, and both processes get calls through (the budget is shared, not
    taken by whoever started first).
    """
    prefix = unique_prefix()
    command = [
        sys.executable,
        "-m",
        "tests.integration.redis.rate_worker",
        redis_url,
        prefix,
        str(CALLS),
        str(PER_SECONDS),
        str(DURATION),
    ]
    workers = [
        subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None
            assert worker.stdout.readline().strip() == "ready"
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        outputs = [worker.communicate(timeout=30)[0] for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    assert [worker.returncode for worker in workers] == [0, 0]
    per_process = [json.loads(output.strip().splitlines()[-1]) for output in outputs]
    merged = [instant for instants in per_process for instant in instants]

    assert all(len(instants) > 0 for instants in per_process)
    assert most_in_any_window(merged, PER_SECONDS) <= CALLS
    assert len(merged) >= CALLS * DURATION / PER_SECONDS / 2, f"only {len(merged)} calls"

    async def clean() -> None:
        client = Redis.from_url(redis_url, decode_responses=True)
        await delete_prefixed(client, prefix)
        await client.aclose()

    asyncio.run(clean())
