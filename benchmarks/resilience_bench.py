"""What hardening a model call costs, and whether a shared rate limit holds its rate.

Run with ``uv run --frozen --no-sync python -m benchmarks.resilience_bench``. It uses the Redis
named by ``REDSTRING_TEST_REDIS_URL`` or starts its own ``redis-server`` on a free loopback
port (Debian's package; ``scripts/test`` installs it), and stops what it started.

1. Overhead: sequential calls to a bare FakeLlmProvider (the baseline, measured in the same
   run), then the same calls through ResilientLlmProvider with every policy on (rate limit,
   circuit breaker, retries, timeout), over MemoryCache and over Redis. The table gives
   per-call latency percentiles and the overhead over the baseline at each percentile.
2. Aggregate rate: 8 workers call as fast as they can through one limit shared on Redis, as
   8 processes of one task and as 2 processes of 4 tasks. The table gives the achieved rate
   (``windows * calls`` admissions over the time until the next one, from the start
   signal) against the limit, the most admissions any window of the limit's length ever
   held (the limit says: never above ``calls``), and the hits that lost a race (recorded,
   never admitted: budget wasted, never exceeded).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from redstring.cache.adapters.memory import MemoryCache
from redstring.cache.adapters.redis import RedisCache
from redstring.llm.adapters.fake import FakeLlmProvider
from redstring.llm.resilience import (
    CircuitBreakerPolicy,
    RateLimitPolicy,
    ResilientLlmProvider,
    RetryPolicy,
)
from redstring.ports.cache import Cache
from redstring.ports.llm_provider import LlmProvider

ROOT = Path(__file__).resolve().parent.parent
OVERHEAD_CALLS = 3000
WARM_UP_CALLS = 300
WORKERS = 8
RATE_CALLS = 100
RATE_PER_SECONDS = 1.0
RATE_WINDOWS = 10


class Found(BaseModel):
    names: list[str]


def fake() -> FakeLlmProvider:
    return FakeLlmProvider("fake/bench", by_substring={"text": {"names": ["Ada", "Grace"]}})


def hardened(inner: LlmProvider, cache: Cache, *, rate_limit: RateLimitPolicy) -> LlmProvider:
    return ResilientLlmProvider(
        inner,
        cache,
        scope="bench",
        rate_limit=rate_limit,
        circuit_breaker=CircuitBreakerPolicy(5, within_seconds=30, cooldown_seconds=30),
        retry=RetryPolicy(attempts=3),
        timeout_seconds=30.0,
    )


# --- a Redis for the run -------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def redis_url() -> Iterator[str]:
    """The Redis to measure against: the test one when named, else one started here."""
    named = os.environ.get("REDSTRING_TEST_REDIS_URL", "").strip()
    if named:
        yield named
        return
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="redstring-bench-redis-") as directory:
        server = subprocess.Popen(
            [
                *("redis-server", "--port", str(port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--dir", directory),
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit(f"redis-server did not start on port {port}") from None
                    time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            server.wait(timeout=10)


# --- part 1: overhead per call -------------------------------------------------------------


async def _latencies(call: Callable[[], Awaitable[object]], count: int) -> list[float]:
    for _ in range(WARM_UP_CALLS):
        await call()
    seconds: list[float] = []
    for _ in range(count):
        started = time.perf_counter()
        await call()
        seconds.append(time.perf_counter() - started)
    return seconds


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def overhead(url: str) -> list[tuple[str, list[float]]]:
    """Per-call latencies: bare fake, hardened over MemoryCache, hardened over Redis."""
    # A limit no sequential run reaches, so the limiter does all its work and never waits.
    # The short window keeps a few hundred hits in it, as a real budget would; MemoryCache
    # scans its window, so a window of every call in the run would measure that scan.
    never_binding = RateLimitPolicy(1_000_000, 0.05)
    bare = fake()
    on_memory = hardened(fake(), MemoryCache(), rate_limit=never_binding)
    prefix = f"redstring-bench:{os.getpid()}:{time.time_ns()}:"
    async with RedisCache.from_url(url, prefix=prefix) as cache:
        on_redis = hardened(fake(), cache, rate_limit=never_binding)
        results = [
            ("bare FakeLlmProvider (baseline)", await _latencies(_caller(bare), OVERHEAD_CALLS)),
            ("hardened, MemoryCache", await _latencies(_caller(on_memory), OVERHEAD_CALLS)),
            ("hardened, RedisCache", await _latencies(_caller(on_redis), OVERHEAD_CALLS)),
        ]
        await cache.delete("llm-resilience:bench:calls")
    return results


def _caller(provider: LlmProvider) -> Callable[[], Awaitable[object]]:
    async def call() -> object:
        return await provider.extract("some text", Found)

    return call


def print_overhead(results: list[tuple[str, list[float]]]) -> None:
    baseline = results[0][1]
    base = {q: _percentile(baseline, q) for q in (0.5, 0.95, 0.99)}
    print(f"\nOverhead per call ({OVERHEAD_CALLS} sequential calls each, after a warm-up)\n")
    print(
        f"{'':34} {'p50 µs':>9} {'p95 µs':>9} {'p99 µs':>9} {'mean µs':>9} "
        f"{'p95 overhead µs':>16} {'p95 ratio':>10}"
    )
    for name, seconds in results:
        p50, p95, p99 = (_percentile(seconds, q) for q in (0.5, 0.95, 0.99))
        print(
            f"{name:34} {p50 * 1e6:9.1f} {p95 * 1e6:9.1f} {p99 * 1e6:9.1f} "
            f"{statistics.fmean(seconds) * 1e6:9.1f} {(p95 - base[0.95]) * 1e6:16.1f} "
            f"{p95 / base[0.95]:9.1f}x"
        )


# --- part 2: aggregate rate of 8 workers under one limit ------------------------------------


class CountingRedisCache(RedisCache):
    """Counts recorded hits, so hits that lost a race (recorded, never admitted) show."""

    recorded = 0

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        self.recorded += 1
        await super().record_hit(key, at=at, ttl_seconds=ttl_seconds)


async def _worker(
    url: str, prefix: str, calls: int, per_seconds: float, seconds: float, tasks: int
) -> None:
    """One worker process running ``tasks`` workers; prints every admission instant."""
    last_reading: dict[asyncio.Task[object] | None, float] = {}

    def clock() -> float:
        # The limiter reads the clock once per attempt: a task's last reading before its
        # call returns is that call's admission instant, the thing the limit bounds.
        now = time.time()
        last_reading[asyncio.current_task()] = now
        return now

    async with CountingRedisCache.from_url(url, prefix=prefix) as cache:
        wrapper = ResilientLlmProvider(
            fake(),
            cache,
            scope="bench",
            rate_limit=RateLimitPolicy(calls, per_seconds),
            clock=clock,
        )
        await cache.get("warm-up")
        print("ready", flush=True)
        start = float(await asyncio.to_thread(sys.stdin.readline))
        admitted: list[float] = []

        async def work() -> None:
            while time.time() < start + seconds:
                await wrapper.extract("some text", Found)
                admitted.append(last_reading[asyncio.current_task()])

        await asyncio.sleep(max(0.0, start - time.time()))
        await asyncio.gather(*(work() for _ in range(tasks)))
    print(json.dumps({"admitted": admitted, "recorded": cache.recorded}), flush=True)


def aggregate_rate(
    url: str, *, processes: int, tasks: int, calls: int, per_seconds: float, windows: int
) -> tuple[float, list[list[float]], int]:
    """Start the worker processes together: the start instant, admissions, wasted hits."""
    prefix = f"redstring-bench:{os.getpid()}:{time.time_ns()}:"
    seconds = (windows + 1) * per_seconds
    command = [sys.executable, "-m", "benchmarks.resilience_bench", "--worker", url, prefix]
    command += [str(calls), str(per_seconds), str(seconds), str(tasks)]
    workers = [
        subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(processes)
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None
            if worker.stdout.readline().strip() != "ready":
                raise SystemExit("a worker did not start")
        start = time.time() + 0.05
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write(f"{start!r}\n")
            worker.stdin.flush()
        outputs = [worker.communicate(timeout=seconds + 60)[0] for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    reports = [json.loads(output.strip().splitlines()[-1]) for output in outputs]
    wasted = sum(report["recorded"] - len(report["admitted"]) for report in reports)
    return start, [report["admitted"] for report in reports], wasted


def most_in_any_window(instants: list[float], window: float) -> int:
    """The most instants any closed interval of length ``window`` holds (two pointers)."""
    ordered = sorted(instants)
    most, low = 0, 0
    for high, instant in enumerate(ordered):
        while ordered[low] < instant - window:
            low += 1
        most = max(most, high - low + 1)
    return most


def rate_row(
    name: str,
    start: float,
    per_process: list[list[float]],
    wasted: int,
    *,
    calls: int,
    per_seconds: float,
    windows: int,
) -> str:
    merged = sorted(instant for instants in per_process for instant in instants)
    # A perfect limiter admits call number windows*calls + 1 exactly `windows` windows after
    # the start; every delay in refilling a freed slot pushes that admission later. So the
    # rate is the calls admitted before it over the time it took to come (a count inside a
    # fixed span would round a late last burst back in and hide the drift).
    reached = min(windows * calls, len(merged) - 1)
    limit_rate = calls / per_seconds
    achieved = reached / (merged[reached] - start)
    worst = most_in_any_window(merged, per_seconds)
    spread = f"{min(map(len, per_process))}-{max(map(len, per_process))}"
    return (
        f"{name:30} {limit_rate:9.1f} {achieved:10.1f} {achieved / limit_rate:9.3f} "
        f"{worst:7d} / {calls:<5d} {wasted:7d} {spread:>13}"
    )


def run_rates(url: str, *, calls: int, per_seconds: float, windows: int) -> None:
    print(
        f"\nAggregate rate: {WORKERS} workers, one limit of {calls} calls per {per_seconds:g} s "
        f"shared on Redis, {windows} windows from one start signal\n"
    )
    print(
        f"{'workers':30} {'limit/s':>9} {'achieved/s':>10} {'achieved':>9} "
        f"{'most in any window':>15} {'wasted':>7} {'per process':>13}"
    )
    for processes, tasks in ((WORKERS, 1), (2, WORKERS // 2)):
        start, per_process, wasted = aggregate_rate(
            url,
            processes=processes,
            tasks=tasks,
            calls=calls,
            per_seconds=per_seconds,
            windows=windows,
        )
        name = f"{processes} processes x {tasks} task(s)"
        print(
            rate_row(
                name,
                start,
                per_process,
                wasted,
                calls=calls,
                per_seconds=per_seconds,
                windows=windows,
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=RATE_CALLS, help="rate limit: calls")
    parser.add_argument("--per-seconds", type=float, default=RATE_PER_SECONDS)
    parser.add_argument("--windows", type=int, default=RATE_WINDOWS, help="run length")
    parser.add_argument("--skip-overhead", action="store_true")
    parser.add_argument("--worker", nargs=6, metavar="ARG", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.worker:
        url, prefix, calls, per_seconds, seconds, tasks = arguments.worker
        asyncio.run(
            _worker(url, prefix, int(calls), float(per_seconds), float(seconds), int(tasks))
        )
        return
    with redis_url() as url:
        if not arguments.skip_overhead:
            print_overhead(asyncio.run(overhead(url)))
        run_rates(
            url,
            calls=arguments.calls,
            per_seconds=arguments.per_seconds,
            windows=arguments.windows,
        )


if __name__ == "__main__":
    main()
