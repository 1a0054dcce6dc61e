"""How fast the offline embedding providers are, and what loading one costs in memory.

Run with ``uv run --frozen --no-sync python -m benchmarks.embeddings_bench`` (``--quick``
embeds a quarter as many texts). Nothing touches the network.

1. Throughput: texts per second through ``embed`` at batch sizes 1, 32 and 256, over
   distinct generated sentences (8 to 20 words; distinct so de-duplication saves nothing).
   Measured in the same run, in interleaved rounds (best of five): the bundled model's raw
   encoder called directly (the floor: what the adapter adds is the difference),
   LocalStaticEmbeddingProvider.bundled(), the model2vec path over the same weights, and
   FakeEmbeddingProvider at the same width (a hashing provider with no model, the reference
   every test suite runs). Ratios are against the raw encoder at the same batch size.
2. Memory: each local provider is loaded in a fresh interpreter, which reports its load
   time, the growth of its resident set (VmRSS) across the load, and the tracemalloc peak
   during the load. tracemalloc sees only Python allocations: the tokenizer and the Rust
   encoder allocate natively, which only the RSS figure shows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider

BATCH_SIZES = (1, 32, 256)
TEXTS = {1: 1_024, 32: 8_192, 256: 16_384}
ROUNDS = 5
SEED = 20261202
MODEL2VEC_NAME = "tokenlearn-10k-64d-int8"

_WORDS = [
    "graph",
    "tenant",
    "vector",
    "entity",
    "relationship",
    "source",
    "chunk",
    "model",
    "query",
    "answer",
    "river",
    "stone",
    "engine",
    "data",
    "report",
    "market",
    "revenue",
    "city",
    "train",
    "museum",
    "letter",
    "science",
    "energy",
    "cloud",
    "protein",
    "language",
    "history",
    "music",
    "contract",
    "patient",
    "harbour",
    "garden",
    "theory",
    "signal",
    "the",
    "of",
    "a",
    "and",
    "in",
    "to",
    "with",
    "for",
    "on",
    "by",
    "from",
    "Zürich",
    "café",
    "naïve",
    "Berlin",
    "Lovelace",
    "Babbage",
]


def sentences(count: int, *, seed: int) -> list[str]:
    """``count`` distinct sentences of 8 to 20 words, the same on every run."""
    rng = random.Random(seed)
    made: dict[str, None] = {}
    while len(made) < count:
        words = rng.choices(_WORDS, k=rng.randint(8, 20))
        made[" ".join(words).capitalize() + "."] = None
    return list(made)


def bundled_directory() -> Path:
    import static_model

    return Path(static_model.__file__).parent / "model"


Embed = Callable[[Sequence[str]], Awaitable[list[list[float]]]]


def raw_encoder() -> Embed:
    """The bundled model's own encoder with no adapter around it: the floor."""
    from static_model import get_embeddings

    get_embeddings(["warm up"])

    async def embed(texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = get_embeddings(list(texts))
        return vectors

    return embed


async def one_pass(embed: Embed, corpus: list[str], batch_size: int) -> float:
    """Texts per second for one pass over ``corpus`` in batches of ``batch_size``."""
    start = time.perf_counter()
    for offset in range(0, len(corpus), batch_size):
        await embed(corpus[offset : offset + batch_size])
    return len(corpus) / (time.perf_counter() - start)


async def throughput(quick: bool) -> None:
    scale = 4 if quick else 1
    bundled = LocalStaticEmbeddingProvider.bundled()
    subjects: list[tuple[str, Embed]] = [
        ("raw encoder (floor)", raw_encoder()),
        (f"local bundled [{bundled.model}]", bundled.embed),
        (
            "local model2vec dir (same weights)",
            LocalStaticEmbeddingProvider.from_model2vec_directory(
                bundled_directory(), name=MODEL2VEC_NAME
            ).embed,
        ),
        ("fake provider, width 64 (reference)", FakeEmbeddingProvider(dimension=64).embed),
    ]
    print("\n1. Throughput: texts per second through embed (best of 5 interleaved passes)\n")
    header = f"{'provider':<62}" + "".join(f"{f'batch {b}':>22}" for b in BATCH_SIZES)
    print(header)
    print("-" * len(header))
    best: dict[tuple[str, int], float] = {}
    for batch_size in BATCH_SIZES:
        corpus = sentences(TEXTS[batch_size] // scale, seed=SEED + batch_size)
        for _, embed in subjects:
            await embed(corpus[:batch_size])
        # Rounds interleave the subjects, so a burst of load on a shared machine lands on
        # every subject alike rather than on whichever happened to be running.
        for _ in range(ROUNDS):
            for name, embed in subjects:
                rate = await one_pass(embed, corpus, batch_size)
                best[name, batch_size] = max(best.get((name, batch_size), 0.0), rate)
    floor_name = subjects[0][0]
    for name, _ in subjects:
        cells = [
            f"{best[name, b]:>12,.0f} ({best[name, b] / best[floor_name, b]:4.2f}x)"
            for b in BATCH_SIZES
        ]
        print(f"{name:<62}" + "".join(f"{cell:>22}" for cell in cells))
    print("\n(x) = rate / raw encoder's rate at the same batch size; higher is faster.")


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def measure_load(which: str) -> dict[str, float]:
    """Load one provider in this (fresh) interpreter; report time, RSS growth, Python peak."""
    import static_model  # noqa: F401  (the package import is not the model load)

    before = rss_mib()
    tracemalloc.start()
    start = time.perf_counter()
    if which == "bundled":
        LocalStaticEmbeddingProvider.bundled()
    else:
        LocalStaticEmbeddingProvider.from_model2vec_directory(
            bundled_directory(), name=MODEL2VEC_NAME
        )
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"seconds": seconds, "rss_mib": rss_mib() - before, "peak_mib": peak / 2**20}


def memory() -> None:
    print("\n2. Loading each local provider in a fresh interpreter\n")
    header = f"{'provider':<40}{'load s':>10}{'RSS growth MiB':>18}{'tracemalloc peak MiB':>24}"
    print(header)
    print("-" * len(header))
    for which, label in (("bundled", "local bundled"), ("model2vec", "local model2vec dir")):
        result = subprocess.run(
            [sys.executable, "-m", "benchmarks.embeddings_bench", "--measure-load", which],
            capture_output=True,
            text=True,
            check=True,
        )
        numbers = json.loads(result.stdout.strip().splitlines()[-1])
        print(
            f"{label:<40}{numbers['seconds']:>10.2f}{numbers['rss_mib']:>18.1f}"
            f"{numbers['peak_mib']:>24.1f}"
        )
    weights = sum(path.stat().st_size for path in bundled_directory().iterdir()) / 2**20
    print(f"\nThe bundled model's files on disk: {weights:.1f} MiB (tokenizer.json included).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the texts")
    parser.add_argument("--measure-load", choices=("bundled", "model2vec"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure_load:
        print(json.dumps(measure_load(arguments.measure_load)))
        return
    asyncio.run(throughput(arguments.quick))
    memory()


if __name__ == "__main__":
    main()
