"""Where a query's CPU goes on the dense scale graph: per-query CPU time and each stage's share.

Run with ``uv run --frozen --no-sync python -m benchmarks.query_stages`` (``--documents N`` of
``benchmarks.scale_corpus`` ingested in memory, ``--queries N`` per kind). One process, one
in-memory graph; ``gc.freeze()`` after loading so no full collection of the loaded graph lands
in a query. Times are CPU time (``time.process_time``), not wall time: on a shared machine
the wall time of a query is mostly its wait for a core, which says nothing about redstring.

Printed: CPU ms per query p50 / p95 / p99 per kind of question (with and without very common
words), then the CPU ms per query spent in each stage: the retriever's steps, the walk's parts
and the store reads (a stage nested in another is counted in both; the graph signal and the
``names`` passages are read concurrently, so ``linked_passages`` includes waiting for the
walk and is left out).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import inspect
import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from benchmarks.scale_bench import TENANT, WARM_UP, percentile
from benchmarks.scale_corpus import SCALE_SCHEMA, Corpus, HashedEmbeddings, InstantModel
from benchmarks.scale_queries import ingest_corpus
from benchmarks.support import print_table
from redstring import KnowledgeGraph
from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.extraction.llm import LlmExtractor
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.retrieval import graph_signal, neighbourhood, retriever, signals
from redstring.vector.adapters.memory import InMemoryVectorStore


class Stages:
    """CPU time per named stage, summed over the calls made while installed."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.labels: list[str] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original: Callable[..., Any] = getattr(owner, name)
        self.labels.append(label)
        if inspect.iscoroutinefunction(original):

            @functools.wraps(original)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                started = time.process_time()
                try:
                    return await original(*args, **kwargs)
                finally:
                    self.seconds[label] += time.process_time() - started
                    self.calls[label] += 1

            setattr(owner, name, timed_async)
            return

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] += time.process_time() - started
                self.calls[label] += 1

        setattr(owner, name, timed)

    def install(self) -> None:
        self.wrap(retriever.Retriever, "query", "query (all of it)")
        self.wrap(retriever.Retriever, "_first_round", "first round: vectors, BM25, names")
        self.wrap(retriever, "graph_signal", "graph signal (all of it)")
        self.wrap(graph_signal, "read_neighbourhood", "  read the neighbourhood")
        self.wrap(neighbourhood, "_link", "    link it for the walk")
        self.wrap(graph_signal, "personalised_pagerank", "  personalised PageRank")
        self.wrap(graph_signal, "_evidence", "  relationships' evidence")
        self.wrap(retriever, "by_sentence", "mentions by sentence")
        self.wrap(retriever.Retriever, "_relationships", "relationship results")
        self.wrap(signals, "bm25", "BM25 scoring")
        for name in ("get_relationships_for", "get_entities", "resolve_entity_ids"):
            self.wrap(InMemoryGraphStore, name, f"store: graph.{name}")
        for name in ("get_many", "get_by_entity", "lexical_candidates"):
            self.wrap(InMemoryChunkStore, name, f"store: chunks.{name}")
        self.wrap(InMemoryVectorStore, "search", "store: vectors.search")


async def run(arguments: argparse.Namespace) -> None:
    corpus = Corpus()
    embeddings = HashedEmbeddings()
    graph = KnowledgeGraph(
        graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=embeddings.dimension),
        chunks=InMemoryChunkStore(),
        events=InMemoryEventLog(),
        embeddings=embeddings,
        extractor=LlmExtractor(InstantModel(corpus.types)),
        schema=SCALE_SCHEMA,
        passage_vectors=InMemoryVectorStore(dimension=embeddings.dimension),
    )
    await ingest_corpus(graph, corpus, arguments.documents)
    stages = Stages()
    rng = random.Random(20261204)
    kinds = {
        common: [corpus.question(rng, common=common) for _ in range(arguments.queries + WARM_UP)]
        for common in (True, False)
    }
    for asked in kinds.values():
        for text in asked[:WARM_UP]:
            await graph.query(TENANT, text)
    stages.install()
    rows = []
    for common, asked in kinds.items():
        samples = []
        for text in asked[WARM_UP:]:
            before = time.process_time()
            await graph.query(TENANT, text)
            samples.append(time.process_time() - before)
        rows.append(
            [
                "with very common words" if common else "content words only",
                " / ".join(f"{1000 * percentile(samples, p):.1f}" for p in (0.5, 0.95, 0.99)),
            ]
        )
    asked_in_all = 2 * arguments.queries
    gc.unfreeze()
    await graph.close()
    print_table(["questions", "CPU ms per query: p50 / p95 / p99"], rows)
    print()
    print_table(
        ["stage", "CPU ms per query", "calls per query"],
        [
            [
                label,
                f"{1000 * stages.seconds[label] / asked_in_all:.1f}",
                f"{stages.calls[label] / asked_in_all:.1f}",
            ]
            for label in stages.labels
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1000, help="documents to ingest")
    parser.add_argument("--queries", type=int, default=50, help="questions per kind")
    arguments: Any = parser.parse_args()
    asyncio.run(run(arguments))


if __name__ == "__main__":
    main()
