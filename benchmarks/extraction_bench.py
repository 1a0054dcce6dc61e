"""How fast the extractors turn chunks into extractions, on one core.

Run with ``uv run --frozen --no-sync python -m benchmarks.extraction_bench`` (``--rounds N``,
default 5). Offline. The process pins itself to one CPU first, so the numbers are per core.

Workload: every chunk of the shipped Velmar corpus as ``ingest`` would cut it (``chunk_text``
defaults; 26 chunks, about 900 characters each), each round in the same order, best round
reported (rounds interleave the rows). Rows, all measured in this process:

* ``spaCy nlp(text)``: the pipeline alone, one call per chunk (the floor: what the adapter
  adds is the difference; the ratio column is against this row);
* ``spaCy nlp.pipe(chunks)``: the pipeline batched, what a batching extractor could reach;
* ``SpacyExtractor.extract``: the adapter, one awaited call per chunk (parse in a worker
  thread, then the rules);
* ``SpacyExtractor, 8 in flight``: the same calls gathered eight at a time; parses are
  serialised, so this shows the cost of the thread hand-off under concurrency, not a speed-up;
* ``LlmExtractor over a scripted provider``: the LLM extractor's own work per chunk (response
  model, validation, grounding) with a provider that answers instantly.

It also reports the event loop's longest stall while ``SpacyExtractor`` runs: the parse is
off the loop, so other coroutines (event-log writes, embeddings) keep running.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import time
from collections.abc import Awaitable, Callable

from redstring.corpus import load_corpus
from redstring.domain.chunking import chunk_text
from redstring.domain.ids import source_id
from redstring.extraction.adapters.spacy import DEFAULT_PIPELINES, SpacyExtractor, blocks
from redstring.extraction.llm import LlmExtractor
from redstring.llm.adapters.fake import FakeLlmProvider, Payload

IN_FLIGHT = 8
DEFAULT_PIPELINE = next(
    name for name in DEFAULT_PIPELINES if importlib.util.find_spec(name) is not None
)


async def interleaved(
    rounds: int, work: list[tuple[str, Callable[[], Awaitable[None]]]]
) -> list[tuple[str, float]]:
    """The fastest of ``rounds`` runs of each piece of work, in seconds. Rounds interleave
    the rows, so a change in the machine's load touches every row alike."""
    best = {label: float("inf") for label, _ in work}
    for _ in range(rounds):
        for label, run in work:
            started = time.perf_counter()
            await run()
            best[label] = min(best[label], time.perf_counter() - started)
    return [(label, best[label]) for label, _ in work]


async def longest_stall(work: Callable[[], Awaitable[None]]) -> float:
    """The longest gap between ticks of a 1 ms ticker while ``work`` runs, in seconds."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    await work()
    done.set()
    await task
    return max(gaps) if gaps else 0.0


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    corpus = load_corpus()
    schema = corpus.schema
    chunks = [
        chunk.text
        for document in corpus.documents
        for chunk in chunk_text(source_id(document.id), document.text)
    ]
    import spacy as spacy_library

    nlp = spacy_library.load(DEFAULT_PIPELINE)
    spacy = SpacyExtractor(nlp)  # the same pipeline object for the adapter and the floor

    async def raw() -> None:
        for text in chunks:
            nlp(text)

    async def piped() -> None:
        list(nlp.pipe(chunks))

    async def adapter() -> None:
        for text in chunks:
            await spacy.extract(text, schema)

    async def gathered() -> None:
        for start in range(0, len(chunks), IN_FLIGHT):
            batch = chunks[start : start + IN_FLIGHT]
            await asyncio.gather(*(spacy.extract(text, schema) for text in batch))

    answer: Payload = {"entities": [], "relationships": []}
    llm = LlmExtractor(FakeLlmProvider(script=[answer] * (len(chunks) * (args.rounds + 1))))

    async def scripted() -> None:
        for text in chunks:
            await llm.extract(text, schema)

    await adapter()  # warm-up: the first parses of a fresh pipeline are slower
    rows = await interleaved(
        args.rounds,
        [
            ("spaCy nlp(text)", raw),
            ("spaCy nlp.pipe(chunks)", piped),
            ("SpacyExtractor.extract", adapter),
            (f"SpacyExtractor, {IN_FLIGHT} in flight", gathered),
            ("LlmExtractor over a scripted provider", scripted),
        ],
    )
    stall = await longest_stall(adapter)
    characters = sum(len(text) for text in chunks)
    block_count = sum(len(blocks(text)) for text in chunks)
    print(
        f"{len(chunks)} chunks, {characters / len(chunks):.0f} characters and "
        f"{block_count / len(chunks):.1f} blocks each on average; best of {args.rounds} "
        f"rounds; pinned to CPU {sorted(os.sched_getaffinity(0))}; load average "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    print(f"{'':<40} {'chunks/s':>9} {'ms/chunk':>9} {'vs nlp(text)':>13}")
    baseline = rows[0][1]
    for label, seconds in rows:
        print(
            f"{label:<40} {len(chunks) / seconds:>9.1f} {seconds / len(chunks) * 1000:>9.2f} "
            f"{seconds / baseline:>12.2f}x"
        )
    print(f"longest event-loop stall during SpacyExtractor.extract: {stall * 1000:.1f} ms")
    print(f"model: {spacy.model}")


if __name__ == "__main__":
    asyncio.run(main())
