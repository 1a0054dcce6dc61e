"""Resolution on public record-linkage data nobody here wrote, through ``import_records``.

Run with ``uv run --frozen --no-sync python -m benchmarks.record_linkage`` (``--heldout``
adds FEBRL 2 and 3; ``--regression`` adds the generated record sets of
:mod:`benchmarks.resolution_data`, seeds 1 and 2 of both scenarios, the regression check that
a change to the resolver keeps them where they were; ``--against REV`` measures the resolver of
git revision ``REV`` in the same run, from a copy of that revision's ``src/`` in a temporary
directory).

Each data set (see :mod:`benchmarks.public_records`) is imported into a fresh in-memory
tenant with the default resolver, one ``import_records`` call per file, and scored pairwise
against its true clusters: FEBRL over records, the NBER assignees over distinct names.
Targets (issue 24): FEBRL 1 and 4 with every attribute F1 >= 0.99 at precision >= 0.995;
with given name, surname and suburb only F1 >= 0.87 at precision >= 0.98; NBER assignees F1
>= 0.75 at precision >= 0.90.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

from pydantic import JsonValue

from benchmarks.public_records import NAME_LOCALITY_FIELDS, Dataset, febrl, nber_assignees
from benchmarks.resolution_data import Scenario, generate, pairwise_scores
from benchmarks.support import print_table

ROOT = Path(__file__).resolve().parents[1]

DATASETS: dict[str, Callable[[], Dataset]] = {
    "febrl1": lambda: febrl("1"),
    "febrl4": lambda: febrl("4"),
    "febrl1-names": lambda: febrl("1", NAME_LOCALITY_FIELDS),
    "febrl4-names": lambda: febrl("4", NAME_LOCALITY_FIELDS),
    "nber": nber_assignees,
}
HELDOUT: dict[str, Callable[[], Dataset]] = {
    "febrl2": lambda: febrl("2"),
    "febrl3": lambda: febrl("3"),
    "febrl2-names": lambda: febrl("2", NAME_LOCALITY_FIELDS),
    "febrl3-names": lambda: febrl("3", NAME_LOCALITY_FIELDS),
}

GENERATED_RECORDS = 5_000
"""About this many records per generated set, as ``benchmarks.resolution_bench`` draws them
(the generator writes 2.33 records per thing on average)."""


def generated(scenario: Scenario, seed: int) -> Dataset:
    """The generated record set of ``seed`` (about 5,000 records), one import call."""
    data = generate(seed, int(GENERATED_RECORDS / 2.33), scenario)
    records = tuple(cast("dict[str, JsonValue]", record) for record in data.records)
    return Dataset(name=f"generated {scenario} (seed {seed})", batches=(records,), gold=data.gold)


REGRESSION: dict[str, Callable[[], Dataset]] = {
    f"generated-{scenario}-{seed}": (lambda s=scenario, n=seed: generated(s, n))
    for scenario in ("full", "locality")
    for seed in (1, 2)
}


async def measure(dataset: Dataset) -> dict[str, float | int | str]:
    """Import ``dataset`` into a fresh in-memory tenant; scores, entities and seconds."""
    from redstring import KnowledgeGraph
    from redstring.domain.ids import TenantId
    from redstring.embeddings.adapters.fake import FakeEmbeddingProvider

    refs: dict[str, object] = {}
    async with KnowledgeGraph.in_memory(embeddings=FakeEmbeddingProvider(dimension=32)) as kg:
        started = time.perf_counter()
        for batch in dataset.batches:
            report = await kg.import_records("bench", list(batch))
            refs.update(report.refs)
        seconds = time.perf_counter() - started
        live = await kg.graph.resolve_entity_ids(TenantId("bench"), set(refs.values()))  # type: ignore[arg-type]
        entities = (await kg.stats("bench")).entities
    predicted = {ref: live.get(entity, entity) for ref, entity in refs.items()}  # type: ignore[call-overload]
    precision, recall, f1 = pairwise_scores(predicted, dataset.gold)
    return {
        "data": dataset.name,
        "records": dataset.records,
        "entities": entities,
        "gold": len(set(dataset.gold.values())),
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "seconds": seconds,
    }


async def measure_all(names: list[str]) -> list[dict[str, float | int | str]]:
    every = DATASETS | HELDOUT | REGRESSION
    return [await measure(every[name]()) for name in names]


def against(revision: str, names: list[str]) -> list[dict[str, float | int | str]]:
    """The same measurements with ``src/`` of ``revision``, in a subprocess."""
    with tempfile.TemporaryDirectory(prefix="redstring-baseline-") as directory:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", revision, "src"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        archive_path = Path(directory) / "src.tar"
        archive_path.write_bytes(archive)
        with tarfile.open(archive_path) as tar:
            tar.extractall(directory, filter="data")
        environment = dict(os.environ, PYTHONPATH=str(Path(directory) / "src"))
        output = subprocess.run(
            [sys.executable, "-m", "benchmarks.record_linkage", "--json", "--only", *names],
            cwd=ROOT,
            env=environment,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    rows: list[dict[str, float | int | str]] = json.loads(output)
    return rows


def row(label: str, result: dict[str, float | int | str]) -> list[str]:
    return [
        str(result["data"]),
        label,
        f"{result['records']:,}",
        f"{result['entities']:,} / {result['gold']:,}",
        f"{result['precision']:.4f}",
        f"{result['recall']:.4f}",
        f"{result['f1']:.4f}",
        f"{result['seconds']:.2f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heldout", action="store_true", help="add FEBRL 2 and 3")
    parser.add_argument(
        "--regression", action="store_true", help="add the generated record sets (seeds 1-2)"
    )
    parser.add_argument("--against", metavar="REV", help="also measure git revision REV")
    parser.add_argument("--only", nargs="+", choices=sorted(DATASETS | HELDOUT | REGRESSION))
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    names = args.only or [
        *DATASETS,
        *(HELDOUT if args.heldout else ()),
        *(REGRESSION if args.regression else ()),
    ]
    results = asyncio.run(measure_all(names))
    if args.json:
        print(json.dumps(results))
        return
    baseline = against(args.against, names) if args.against else []
    rows: list[list[str]] = []
    for index, result in enumerate(results):
        rows.append(row("this tree", result))
        if baseline:
            rows.append(row(args.against, baseline[index]))
    print_table(
        ["data", "resolver", "records", "entities / true", "precision", "recall", "F1", "s"],
        rows,
    )


if __name__ == "__main__":
    main()
