"""One worker process for the two-process rate test: calls as fast as the shared limit allows.

Run as ``python -m tests.integration.redis.rate_worker URL PREFIX CALLS PER_SECONDS DURATION``.
It prints ``ready``, waits for a line on stdin (so every worker starts at once), calls a
rate-limited FakeLlmProvider for DURATION seconds, then prints the admission instants as one
JSON list: the limiter's clock reading for each admitted call, which is what the limit bounds.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from pydantic import BaseModel

from redstring.cache.adapters.redis import RedisCache
from redstring.llm.adapters.fake import FakeLlmProvider
from redstring.llm.resilience import RateLimitPolicy, ResilientLlmProvider


class Found(BaseModel):
    names: list[str]


class RecordingClock:
    """``time.time`` that remembers its last reading: the limiter reads it once per attempt."""

    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self) -> float:
        self.last = time.time()
        return self.last


async def run(url: str, prefix: str, calls: int, per_seconds: float, duration: float) -> None:
    clock = RecordingClock()
    async with RedisCache.from_url(url, prefix=prefix) as cache:
        wrapper = ResilientLlmProvider(
            FakeLlmProvider("fake/worker", by_substring={"text": {"names": ["Ada"]}}),
            cache,
            scope="shared",
            rate_limit=RateLimitPolicy(calls, per_seconds),
            clock=clock,
        )
        await cache.get("warm-up")
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        admitted: list[float] = []
        deadline = time.time() + duration
        while time.time() < deadline:
            await wrapper.extract("text", Found)
            admitted.append(clock.last)
    print(json.dumps(admitted), flush=True)


if __name__ == "__main__":
    url, prefix, calls, per_seconds, duration = sys.argv[1:6]
    asyncio.run(run(url, prefix, int(calls), float(per_seconds), float(duration)))
