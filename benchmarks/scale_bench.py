"""Cost at scale: ingest overhead per passage as a tenant grows, and queries on the dense graph.

Run with ``uv run --frozen --all-extras --group eval python -m benchmarks.scale_bench``
(``--sizes 200,1000`` to choose corpus sizes, ``--only memory`` or ``--only postgres``,
``--queries N`` per kind, ``--budget S`` to stop a run's ingest after S seconds, ``--profile
DIR`` to write a cProfile of each run's last 10% of documents, ``--plot PATH`` for the PNG,
by default ``docs/scale.png``). PostgreSQL is the one ``REDSTRING_TEST_POSTGRES_DSN`` names,
or a pgserver started in a temporary directory and deleted at exit.

The corpus is ``benchmarks.scale_corpus``: documents of five ~65-word paragraphs naming 300
recurring two-word names drawn Zipf-like, an instant model (``LlmExtractor`` over a provider
that counts calls and answers at once) and hashed bag-of-words embeddings. Each (backend,
size) runs in a fresh interpreter, so peak RSS and the garbage collector's state are that
run's own. Documents go in one at a time through ``KnowledgeGraph.ingest`` with the
default settings; the model's time is nil, so the time per passage is redstring's overhead.
Printed for each run: overhead per passage over the first and last 10% of its documents
(the ratio is the growth), model calls per passage, the graph reached, query p50/p95/p99 over
questions with and without very common words, the longest full garbage collection in each
phase, peak RSS, and the calls and time of an unchanged re-ingest, an edit of one paragraph
and a delete at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import pstats
import random
import resource
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.scale_corpus import SCALE_SCHEMA, Corpus, HashedEmbeddings, InstantModel
from benchmarks.support import print_table, start_pgserver
from redstring import KnowledgeGraph
from redstring.extraction.llm import LlmExtractor

TENANT = "scale"
WARM_UP = 10
PLOT_POINTS = 50


def percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


class CollectionClock:
    """Times every full (generation 2) collection while installed."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._started)

    def take(self) -> list[float]:
        taken, self.pauses = self.pauses, []
        return taken


async def build(backend: str, dsn: str | None, model: InstantModel) -> tuple[KnowledgeGraph, Any]:
    extractor = LlmExtractor(model)
    embeddings = HashedEmbeddings()
    if backend == "memory":
        graph = KnowledgeGraph.in_memory(
            embeddings=embeddings, extractor=extractor, schema=SCALE_SCHEMA
        )
        return graph, None
    import asyncpg

    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=8)
    prefix = f"scale_{uuid.uuid4().hex[:8]}_"
    graph = await KnowledgeGraph.on_postgres(
        pool, embeddings=embeddings, extractor=extractor, schema=SCALE_SCHEMA, prefix=prefix
    )
    return graph, (pool, prefix)


async def drop(handle: Any) -> None:
    if handle is None:
        return
    pool, prefix = handle
    for row in await pool.fetch(
        "SELECT tablename FROM pg_tables WHERE tablename LIKE $1", prefix + "%"
    ):
        await pool.execute(f'DROP TABLE IF EXISTS "{row["tablename"]}" CASCADE')
    await pool.close()


async def ingest_all(
    graph: KnowledgeGraph,
    corpus: Corpus,
    documents: int,
    budget: float | None,
    profile: Path | None,
) -> list[tuple[float, int]]:
    """Ingest documents 0..documents-1; (seconds, passages) per document ingested."""
    timings: list[tuple[float, int]] = []
    started = time.perf_counter()
    profiler = cProfile.Profile() if profile is not None else None
    tail = documents - max(1, documents // 10)
    for index in range(documents):
        text = corpus.document(index)
        if profiler is not None and index == tail:
            profiler.enable()
        before = time.perf_counter()
        report = await graph.ingest(TENANT, f"doc-{index:05d}.md", text)
        timings.append((time.perf_counter() - before, report.chunks))
        if budget is not None and time.perf_counter() - started > budget:
            break
    if profiler is not None and profile is not None:
        profiler.disable()
        profiler.dump_stats(str(profile))
    return timings


def share(timings: Sequence[tuple[float, int]], fraction: float, last: bool) -> float:
    """Milliseconds per passage over the first (or last) ``fraction`` of the documents."""
    count = max(1, round(len(timings) * fraction))
    part = timings[-count:] if last else timings[:count]
    return 1000 * sum(seconds for seconds, _ in part) / max(1, sum(n for _, n in part))


def series(timings: Sequence[tuple[float, int]]) -> list[tuple[int, float]]:
    """(documents ingested, ms per passage) over consecutive bins of the run, for the plot."""
    size = max(1, len(timings) // PLOT_POINTS)
    points = []
    for start in range(0, len(timings), size):
        part = timings[start : start + size]
        ms = 1000 * sum(s for s, _ in part) / max(1, sum(n for _, n in part))
        points.append((start + len(part), ms))
    return points


async def queries(
    graph: KnowledgeGraph, corpus: Corpus, count: int, clock: CollectionClock
) -> dict[str, Any]:
    rng = random.Random(20261204)
    found: dict[str, Any] = {}
    for common in (True, False):
        asked = [corpus.question(rng, common=common) for _ in range(count + WARM_UP)]
        for text in asked[:WARM_UP]:
            await graph.query(TENANT, text)
        clock.take()
        samples = []
        for text in asked[WARM_UP:]:
            before = time.perf_counter()
            await graph.query(TENANT, text)
            samples.append(time.perf_counter() - before)
        pauses = clock.take()
        kind = "common" if common else "content"
        found[kind] = {
            "p50": 1000 * percentile(samples, 0.50),
            "p95": 1000 * percentile(samples, 0.95),
            "p99": 1000 * percentile(samples, 0.99),
            "full_collections": len(pauses),
            "longest_collection_ms": 1000 * max(pauses, default=0.0),
        }
    return found


async def edits(graph: KnowledgeGraph, corpus: Corpus, model: InstantModel) -> dict[str, Any]:
    """Model calls and time of an unchanged re-ingest, a one-paragraph edit and a delete."""
    found: dict[str, Any] = {}
    text = corpus.document(0)
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("reingest", lambda: graph.ingest(TENANT, "doc-00000.md", text)),
        ("edit", lambda: graph.ingest(TENANT, "doc-00001.md", _edited(corpus.document(1)))),
        ("delete", lambda: graph.delete_source(TENANT, "doc-00002.md")),
    ]
    for name, step in steps:
        calls, before = model.calls, time.perf_counter()
        await step()
        found[name] = {"calls": model.calls - calls, "ms": 1000 * (time.perf_counter() - before)}
    return found


def _edited(text: str) -> str:
    paragraphs = text.split("\n\n")
    paragraphs[-1] = paragraphs[-1].replace(".", " again.", 1)
    return "\n\n".join(paragraphs)


async def one_run(arguments: argparse.Namespace) -> dict[str, Any]:
    corpus = Corpus()
    model = InstantModel(corpus.types)
    graph, handle = await build(arguments.backend, arguments.dsn, model)
    clock = CollectionClock()
    gc.callbacks.append(clock)
    try:
        profile = Path(arguments.profile) if arguments.profile else None
        started = time.perf_counter()
        timings = await ingest_all(graph, corpus, arguments.documents, arguments.budget, profile)
        took = time.perf_counter() - started
        calls = model.calls
        ingest_pauses = clock.take()
        passages = sum(n for _, n in timings)
        stats = await graph.stats(TENANT)
        answered = await queries(graph, corpus, arguments.queries, clock)
        # What a long-running process can do once its data is loaded: collect once and move
        # every object to the permanent generation, so no later full collection visits them.
        gc.collect()
        gc.freeze()
        frozen = await queries(graph, corpus, arguments.queries, clock)
        gc.unfreeze()
        edited = await edits(graph, corpus, model)
        return {
            "backend": arguments.backend,
            "documents": arguments.documents,
            "ingested": len(timings),
            "passages": passages,
            "seconds": took,
            "ms_per_passage": 1000 * took / max(1, passages),
            "first_ms": share(timings, 0.1, last=False),
            "last_ms": share(timings, 0.1, last=True),
            "calls_per_passage": calls / max(1, passages),
            "entities": stats.entities,
            "relationships": stats.relationships,
            "events": stats.events,
            "ingest_full_collections": len(ingest_pauses),
            "ingest_longest_collection_ms": 1000 * max(ingest_pauses, default=0.0),
            "queries": answered,
            "queries_frozen": frozen,
            "edits": edited,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "series": series(timings),
        }
    finally:
        gc.callbacks.remove(clock)
        await graph.close()
        await drop(handle)


def run_child(backend: str, documents: int, dsn: str | None, arguments: argparse.Namespace) -> Any:
    command = [
        sys.executable, "-m", "benchmarks.scale_bench", "--child", backend,
        "--documents", str(documents), "--queries", str(arguments.queries),
    ]  # fmt: skip
    if dsn:
        command += ["--dsn", dsn]
    if arguments.budget:
        command += ["--budget", str(arguments.budget)]
    if arguments.profile:
        directory = Path(arguments.profile)
        directory.mkdir(parents=True, exist_ok=True)
        command += ["--profile-file", str(directory / f"{backend}-{documents}.prof")]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(results: Sequence[dict[str, Any]]) -> None:
    rows = []
    for r in results:
        stopped = "" if r["ingested"] == r["documents"] else f" (stopped at {r['ingested']})"
        rows.append(
            [
                r["backend"],
                f"{r['documents']:,}{stopped}",
                f"{r['passages']:,}",
                f"{r['ms_per_passage']:.1f}",
                f"{r['first_ms']:.1f} -> {r['last_ms']:.1f}",
                f"{r['last_ms'] / max(r['first_ms'], 1e-9):.2f}x",
                f"{r['calls_per_passage']:.2f}",
                f"{r['entities']:,} / {r['relationships']:,} / {r['events']:,}",
                f"{r['ingest_longest_collection_ms']:.0f} ({r['ingest_full_collections']})",
                f"{r['peak_rss_mb']:.0f}",
            ]
        )
    print_table(
        [
            "backend", "documents", "passages", "ms/passage", "first -> last 10%", "growth",
            "calls/passage", "entities / edges / events", "longest full gc ms (n)", "peak RSS MB",
        ],
        rows,
    )  # fmt: skip
    rows = []
    for r in results:
        for kind in ("common", "content"):
            q, f = r["queries"][kind], r["queries_frozen"][kind]
            rows.append(
                [
                    r["backend"],
                    f"{r['documents']:,}",
                    "with very common words" if kind == "common" else "content words only",
                    f"{q['p50']:.1f} / {q['p95']:.1f} / {q['p99']:.1f}",
                    f"{q['longest_collection_ms']:.0f} ({q['full_collections']})",
                    f"{f['p50']:.1f} / {f['p95']:.1f} / {f['p99']:.1f}",
                ]
            )
    print_table(
        [
            "backend", "documents", "questions", "query p50 / p95 / p99 ms",
            "longest full gc ms (n)", "after gc.freeze(): p50 / p95 / p99 ms",
        ],
        rows,
    )  # fmt: skip
    rows = []
    for r in results:
        e = r["edits"]
        rows.append(
            [
                r["backend"],
                f"{r['documents']:,}",
                " / ".join(str(e[step]["calls"]) for step in ("reingest", "edit", "delete")),
                " / ".join(f"{e[step]['ms']:.0f}" for step in ("reingest", "edit", "delete")),
            ]
        )
    steps = "re-ingest / edit / delete"
    print_table(["backend", "documents", f"calls: {steps}", f"ms: {steps}"], rows)


def plot(results: Sequence[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    colours = {"memory": "tab:blue", "postgres": "tab:orange"}
    for backend in ("memory", "postgres"):
        runs = [r for r in results if r["backend"] == backend]
        if not runs:
            continue
        longest = max(runs, key=lambda r: r["ingested"])
        xs, ys = zip(*longest["series"], strict=True)
        left.plot(xs, ys, color=colours[backend], label=f"{backend}, {longest['ingested']:,} docs")
        sizes = [r["documents"] for r in runs]
        for kind, style in (("common", "-o"), ("content", "--s")):
            right.plot(
                sizes,
                [r["queries"][kind]["p95"] for r in runs],
                style,
                color=colours[backend],
                label=f"{backend}, {'common words' if kind == 'common' else 'content words'}",
            )
    left.set(
        xlabel="documents already ingested",
        ylabel="ingest overhead, ms per passage",
        title="Ingest cost through one run",
    )
    right.set(
        xlabel="documents in the tenant",
        ylabel="query p95, ms",
        xscale="log",
        title="Query p95 on the resulting graph",
    )
    for axes in (left, right):
        axes.set_ylim(bottom=0)
        axes.grid(alpha=0.3)
        axes.legend(fontsize=8)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"plot written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200,1000,5000", help="corpus sizes in documents")
    parser.add_argument("--only", choices=("memory", "postgres"), action="append")
    parser.add_argument("--queries", type=int, default=100, help="questions per kind")
    parser.add_argument("--budget", type=float, help="stop a run's ingest after this many s")
    parser.add_argument("--profile", help="write cProfile stats of each run's last 10% here")
    parser.add_argument("--plot", default="docs/scale.png", help="where to write the PNG")
    parser.add_argument("--json", help="also write the raw results here")
    parser.add_argument(
        "--results",
        help="a JSON Lines file: each finished run is appended to it, and runs already in it "
        "(same backend and size) are reported without being run again",
    )
    parser.add_argument("--label", default="", help="a note for the plot's title")
    parser.add_argument("--child", choices=("memory", "postgres"), help=argparse.SUPPRESS)
    parser.add_argument("--documents", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--dsn", help=argparse.SUPPRESS)
    parser.add_argument("--profile-file", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        arguments.backend = arguments.child
        arguments.profile = arguments.profile_file
        print(json.dumps(asyncio.run(one_run(arguments))))
        return
    sizes = [int(size) for size in arguments.sizes.split(",")]
    backends = arguments.only or ["memory", "postgres"]
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    dsn, stop = None, None
    if "postgres" in backends:
        dsn = os.environ.get("REDSTRING_TEST_POSTGRES_DSN", "").strip() or None
        if dsn is None:
            dsn, stop = start_pgserver("scale-bench")
    done: dict[tuple[str, int], Any] = {}
    if arguments.results and Path(arguments.results).exists():
        for line in Path(arguments.results).read_text().splitlines():
            kept = json.loads(line)
            done[(kept["backend"], kept["documents"])] = kept
    results = []
    try:
        for backend in backends:
            for size in sizes:
                if (backend, size) in done:
                    results.append(done[(backend, size)])
                    continue
                result = run_child(backend, size, dsn, arguments)
                results.append(result)
                if arguments.results:
                    with Path(arguments.results).open("a") as out:
                        out.write(json.dumps(result) + "\n")
                print(
                    f"{backend} {size:,}: {result['seconds']:.0f} s, "
                    f"{result['first_ms']:.1f} -> {result['last_ms']:.1f} ms/passage",
                    flush=True,
                )
    finally:
        if stop is not None:
            stop()
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report(results)
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(results, indent=1))
    if arguments.plot:
        plot(results, Path(arguments.plot), f"redstring scale benchmark {arguments.label}".strip())
    if arguments.profile:
        for result in results:
            name = Path(arguments.profile) / f"{result['backend']}-{result['documents']}.prof"
            print(f"top of {name}, last 10% of its documents, by own time:")
            pstats.Stats(str(name)).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
