"""Resolution of text mentions: the Velmar corpus ingested end to end, scored per gold entity.

Run with ``uv run --frozen --no-sync python -m benchmarks.text_resolution``. Every corpus
document goes through ``KnowledgeGraph.ingest`` with the offline ``SpacyExtractor`` on the
in-memory stores, once per resolver. A graph entity belongs to a gold entity when its name or
one of its surface names or aliases is that gold entity's name or one of its aliases (case
folded). Reported: graph entities per gold entity found (1.00 is perfect consolidation),
entities whose names belong to two gold entities (wrong merges), merges recorded and possible
matches left for review. The exact-name resolver is the baseline, run in the same process.
Extraction errors (a wrong type, a missed name) count against every resolver alike.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from importlib import resources

from benchmarks.support import print_table
from redstring import KnowledgeGraph
from redstring.corpus import load_corpus
from redstring.extraction.adapters.spacy import SpacyExtractor
from redstring.ingest.evidence_resolver import EvidenceResolver
from redstring.ingest.resolution import ExactNameResolver, Resolver


def gold_names() -> tuple[dict[str, set[str]], int]:
    """Each case-folded gold name or alias -> the gold entity ids it names; how many there are."""
    gold = json.loads((resources.files("redstring.corpus") / "gold.json").read_text("utf-8"))
    names: dict[str, set[str]] = defaultdict(set)
    for entity in gold["entities"]:
        for name in [entity["name"], *entity["aliases"]]:
            names[name.casefold()].add(entity["id"])
    return names, len(gold["entities"])


async def measure(label: str, resolver: Resolver, extractor: SpacyExtractor) -> list[str]:
    corpus = load_corpus()
    names, gold_total = gold_names()
    started = time.perf_counter()
    async with KnowledgeGraph.in_memory(extractor=extractor, resolver=resolver) as kg:
        for document in corpus.documents:
            await kg.ingest("t", document.id, document.text, schema=corpus.schema)
        seconds = time.perf_counter() - started
        snapshot = await kg.export("t")
        merges = len(await kg.merges("t"))
        possible = len(await kg.possible_matches("t"))
    per_gold: dict[str, int] = defaultdict(int)
    wrong = 0
    for item in snapshot.entities:
        known = {item.entity.name, *item.names, *(a.name for a in item.aliases if a.name)}
        golds = set().union(*(names.get(name.casefold(), set()) for name in known))
        wrong += len(golds) > 1
        for gold_id in golds:
            per_gold[gold_id] += 1
    spread = sum(per_gold.values()) / max(len(per_gold), 1)
    return [
        label,
        str(len(snapshot.entities)),
        f"{len(per_gold)} / {gold_total}",
        f"{spread:.2f}",
        str(wrong),
        str(merges),
        str(possible),
        f"{seconds:.1f}",
    ]


async def main() -> None:
    extractor = SpacyExtractor()
    resolvers: list[tuple[str, Resolver]] = [
        ("ExactNameResolver (baseline)", ExactNameResolver()),
        ("EvidenceResolver, short forms per document", EvidenceResolver(tenant_short_forms=False)),
        ("EvidenceResolver (default: two-word short forms per tenant)", EvidenceResolver()),
    ]
    rows = [await measure(label, resolver, extractor) for label, resolver in resolvers]
    header = [
        "resolver",
        "entities",
        "gold found",
        "graph entities per gold",
        "mixing two gold",
        "merges",
        "possible",
        "ingest s",
    ]
    print_table(header, rows)
    baseline = float(rows[0][3])
    for row in rows[1:]:
        print(f"spread ratio {row[0]} / exact name: {float(row[3]) / baseline:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
