"""How well the offline extractor reads encyclopaedic text under a caller's own schema.

Run with ``uv run --frozen --no-sync python -m benchmarks.hotpotqa_extraction`` (offline;
``--errors`` lists every false positive and miss, ``--json`` prints the numbers). Needs
``shared/datasets/hotpotqa-100`` beside the repository (or ``--corpus PATH``).

Data: ``benchmarks/annotations/hotpotqa_extraction.json``: 60 Wikipedia paragraphs of the
HotpotQA-100 pool (the first gold supporting paragraphs of at most 620 characters, in question
order), annotated by hand with the triples each states, under a schema of six entity and
twelve relationship types that has **names and descriptions only**, as a caller writing for
an LLM would write it: no ``ner_labels``, no ``triggers``. It was written before the extractor
was first run on it. Each passage is ``title + "\\n" + text``, as HippoRAG indexes it.

Scoring per passage, micro-averaged, as ``benchmarks.extraction_quality`` scores Velmar: an
extracted (name, type) is a true positive when its name (normalised, no leading article) is a
surface name of a gold entity of that type; a relationship when both endpoints name gold
entities and the typed triple is annotated. ``also`` readings (a transitive place, an implied
role, a name that fits two types) count neither way. Targets: entity F1 >= 0.85,
relationship precision >= 0.70 at recall >= 0.40.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from benchmarks.extraction_quality import Score, name_key
from redstring.domain.schema import Schema
from redstring.extraction.adapters.spacy import SpacyExtractor

ANNOTATIONS = Path(__file__).parent / "annotations" / "hotpotqa_extraction.json"
CORPUS = next(
    (
        found
        for parent in Path(__file__).resolve().parents
        if (found := parent / "shared" / "datasets" / "hotpotqa-100" / "corpus.json").is_file()
    ),
    Path("shared/datasets/hotpotqa-100/corpus.json"),
)
"""The first ``shared/datasets/hotpotqa-100/corpus.json`` above this file."""


def load(corpus_path: Path) -> tuple[Schema, list[dict[str, object]], dict[str, list[str]]]:
    data = json.loads(ANNOTATIONS.read_text("utf-8"))
    corpus: dict[str, list[str]] = json.loads(corpus_path.read_text("utf-8"))
    return Schema.model_validate(data["schema"]), data["documents"], corpus


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--errors", action="store_true", help="list false positives and misses")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="HotpotQA-100 corpus.json")
    args = parser.parse_args()
    schema, documents, corpus = load(args.corpus)
    extractor = SpacyExtractor()
    await extractor.extract("Warm the pipeline up.", schema)
    entities, relationships = Score(), Score()
    dropped: dict[str, int] = {}
    seconds = 0.0
    for document in documents:
        title = str(document["title"])
        text = title + "\n" + "".join(corpus[title]).strip()
        started = time.perf_counter()
        extraction = await extractor.extract(text, schema)
        seconds += time.perf_counter() - started
        for reason, count in extraction.dropped.items():
            dropped[reason] = dropped.get(reason, 0) + count
        gold_ids: dict[tuple[str, str], str] = {}
        for canonical, kind, names in document["entities"]:  # type: ignore[attr-defined]
            for name in names:
                key = name_key(name)
                if key is not None:
                    gold_ids[(kind, key)] = canonical
        also_entities = {
            (kind, name_key(name))
            for name, kind in document["also_entities"]  # type: ignore[attr-defined]
        }
        predicted: set[str] = set()
        stray: set[str] = set()
        ids_by_name: dict[str, str] = {}
        for entity in extraction.entities:
            key = name_key(entity.name)
            gold = gold_ids.get((entity.type, key)) if key else None
            if gold is not None:
                predicted.add(gold)
                ids_by_name[entity.name] = gold
            elif (entity.type, key) not in also_entities:
                stray.add(f"{entity.name} ({entity.type})")
        gold_entities = {canonical for canonical, _, _ in document["entities"]}  # type: ignore[attr-defined]
        entities.add(predicted, gold_entities, stray, title)
        gold_triples = {" ".join(t) for t in document["relationships"]}  # type: ignore[attr-defined]
        also = {" ".join(t) for t in document["also"]}  # type: ignore[attr-defined]
        found: set[str] = set()
        wrong: set[str] = set()
        for rel in extraction.relationships:
            subject, obj = ids_by_name.get(rel.subject), ids_by_name.get(rel.object)
            triple = f"{subject or rel.subject} {rel.type} {obj or rel.object}"
            if triple in gold_triples:
                found.add(triple)
            elif triple not in also:
                wrong.add(triple)
        relationships.add(found, gold_triples, wrong, title)
    numbers = {
        "model": extractor.model,
        "passages": len(documents),
        "passages_per_second": round(len(documents) / seconds, 1),
        "entities": entities.as_json(),
        "relationships": relationships.as_json(),
        "dropped": dict(sorted(dropped.items())),
    }
    if args.json:
        print(json.dumps(numbers, indent=2))
    else:
        e, r = entities, relationships
        print(f"HotpotQA paragraphs, own schema without triggers ({numbers['model']})")
        print(f"  passages {len(documents)}, {numbers['passages_per_second']} passages/s")
        print(f"  entities      P {e.precision:.3f} R {e.recall:.3f} F1 {e.f1:.3f} ({e.tp} tp)")
        print(
            f"  relationships P {r.precision:.3f} R {r.recall:.3f} F1 {r.f1:.3f} "
            f"({r.tp} tp, {r.fp} fp, {r.fn} fn)"
        )
        print(f"  dropped {numbers['dropped']}")
    if args.errors:
        for label, score in (("entity", entities), ("relationship", relationships)):
            print(f"\n{label} false positives")
            print("\n".join(f"  {line}" for line in score.false_positives))
            print(f"{label} misses")
            print("\n".join(f"  {line}" for line in score.misses))


if __name__ == "__main__":
    asyncio.run(main())
