"""How well the extractors find the Velmar corpus's gold entities and relationships.

Run with ``uv run --frozen --no-sync python -m benchmarks.extraction_quality`` (``--json``
prints the numbers as JSON; ``--errors`` lists every false positive and miss). Offline.

Each document is cut by ``chunk_text`` (the ingest defaults) and every chunk goes to the
extractor once, as ``ingest`` would send it. Scoring is per document, micro-averaged:

* entities: an extracted (name, type) names a gold entity when the name, after
  ``normalise_name`` and without a leading article, is one of that entity's surface names and
  the type matches. Gold is the set of entities the document mentions; a prediction naming no
  gold entity is a false positive, counted once per document and distinct name;
* relationships: an extracted triple whose endpoints both name gold entities and whose type
  matches a gold relationship the document states is a true positive; any other distinct
  triple is a false positive.

Extractors measured: ``SpacyExtractor`` (the offline default), the same with the corpus
schema's ``triggers`` removed (cues derived from names and descriptions), and ``LlmExtractor``
over a
scripted provider that answers each chunk with the gold annotations whose names occur in it.
Then both again through ``KnowledgeGraph.ingest`` (in memory, the default resolution): every
document into one tenant, the resolved graph scored against the gold (``measure_graph``).

The scripted row checks the plumbing (response model, grounding, drop accounting, one call
per chunk); it says nothing about any model. Targets for the offline extractor: entity F1 >=
0.85, relationship precision >= 0.70 at recall >= 0.40.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import JsonValue

from redstring.corpus import Corpus, Document, GoldEntity, load_corpus
from redstring.domain.blocking import normalise_name
from redstring.domain.chunking import chunk_text
from redstring.domain.errors import EmptyTextError
from redstring.domain.extraction import Extraction
from redstring.domain.ids import source_id
from redstring.domain.schema import Schema
from redstring.extraction.adapters.spacy import SpacyExtractor
from redstring.extraction.llm import LlmExtractor
from redstring.llm.adapters.fake import FakeLlmProvider, Payload
from redstring.ports.extractor import Extractor

Triple = tuple[str, str, str]
# Compared without a leading article or personal title: "Mr. Achterberg" and "Achterberg"
# name the same person, and an extractor that drops the title has not made a mistake.
_LEADING = re.compile(r"^(?:(?:the|a|an|dr|mr|mrs|ms|mayor|councillor|prof) )+")


def name_key(name: str) -> str | None:
    """How names are compared: normalised, without a leading article."""
    try:
        folded = normalise_name(name)
    except EmptyTextError:
        return None
    return re.sub(_LEADING, "", folded)


@dataclass
class Score:
    """True positives, false positives and misses, with what each was."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    false_positives: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def add(
        self, predicted: set[str], gold: set[str], unmatched: Iterable[str], where: str
    ) -> None:
        self.tp += len(predicted & gold)
        wrong = sorted(predicted - gold) + sorted(set(unmatched))
        self.fp += len(wrong)
        self.fn += len(gold - predicted)
        self.false_positives += [f"{where}: {item}" for item in wrong]
        self.misses += [f"{where}: {item}" for item in sorted(gold - predicted)]

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_json(self) -> dict[str, JsonValue]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "f1": round(self.f1, 3),
        }


@dataclass
class Run:
    """One extractor over the whole corpus."""

    label: str
    model: str
    chunks: int = 0
    calls: int = 0
    seconds: float = 0.0
    entities: Score = field(default_factory=Score)
    relationships: Score = field(default_factory=Score)
    dropped: Counter[str] = field(default_factory=Counter)


class GoldIndex:
    """Maps extracted (name, type) pairs to gold entity ids."""

    def __init__(self, corpus: Corpus) -> None:
        self._ids: dict[tuple[str, str], str] = {}
        for entity in corpus.entities:
            for name in entity.names:
                key = name_key(name)
                if key is not None:
                    self._ids[(entity.type, key)] = entity.id

    def entity_id(self, name: str, kind: str) -> str | None:
        key = name_key(name)
        return None if key is None else self._ids.get((kind, key))


def score_document(
    run: Run, corpus: Corpus, index: GoldIndex, document: Document, extraction: Extraction
) -> None:
    """Add one document's merged extraction to ``run``'s scores."""
    predicted: set[str] = set()
    unmatched: set[str] = set()
    ids_by_name: dict[str, set[str]] = {}
    for entity in extraction.entities:
        gold_id = index.entity_id(entity.name, entity.type)
        if gold_id is None:
            unmatched.add(f"{entity.name} ({entity.type})")
        else:
            predicted.add(gold_id)
            ids_by_name.setdefault(entity.name, set()).add(gold_id)
    gold = {entity.id for entity in corpus.entities_in(document.id)}
    run.entities.add(predicted, gold, unmatched, document.id)
    gold_triples = {
        f"{r.subject} {r.type} {r.object}" for r in corpus.relationships_in(document.id)
    }
    found: set[str] = set()
    stray: set[str] = set()
    for relationship in extraction.relationships:
        subjects = ids_by_name.get(relationship.subject, set())
        objects = ids_by_name.get(relationship.object, set())
        triples = {f"{s} {relationship.type} {o}" for s in subjects for o in objects}
        if triples:
            found |= triples
        else:
            stray.add(f"{relationship.subject} {relationship.type} {relationship.object}")
    run.relationships.add(found, gold_triples, stray, document.id)


def merged(extractions: Iterable[Extraction]) -> Extraction:
    """One document's chunk extractions as one (entities and triples de-duplicated)."""
    entities = {}
    relationships = {}
    for extraction in extractions:
        for entity in extraction.entities:
            entities.setdefault((entity.name, entity.type), entity)
        for rel in extraction.relationships:
            relationships.setdefault((rel.subject, rel.type, rel.object), rel)
    return Extraction(entities=list(entities.values()), relationships=list(relationships.values()))


async def measure(label: str, extractor: Extractor, corpus: Corpus, *, calls: int | None) -> Run:
    """Run ``extractor`` over every chunk of every document and score it."""
    run = Run(label=label, model=extractor.model)
    index = GoldIndex(corpus)
    for document in corpus.documents:
        chunks = chunk_text(source_id(document.id), document.text)
        started = time.perf_counter()
        extractions = [await extractor.extract(chunk.text, corpus.schema) for chunk in chunks]
        run.seconds += time.perf_counter() - started
        run.chunks += len(chunks)
        for extraction in extractions:
            run.dropped.update(extraction.dropped)
        score_document(run, corpus, index, document, merged(extractions))
    run.calls = calls if calls is not None else run.chunks
    return run


def without_triggers(schema: Schema) -> Schema:
    """``schema`` as a caller writing for an LLM would state it: names and descriptions, no
    ``triggers`` or ``inverse_triggers`` (the offline extractor then derives its cues)."""
    return schema.model_copy(
        update={
            "relationship_types": tuple(
                spec.model_copy(update={"triggers": (), "inverse_triggers": ()})
                for spec in schema.relationship_types
            )
        }
    )


def gold_answer(corpus: Corpus, document: Document, text: str) -> dict[str, JsonValue]:
    """What a perfect model would answer for one chunk: the gold, named as the chunk names it."""
    named: dict[str, str] = {}
    entities: list[JsonValue] = []
    for entity in corpus.entities_in(document.id):
        name = _first_name_in(entity, text)
        if name is not None:
            named[entity.id] = name
            entities.append({"name": name, "type": entity.type})
    relationships: list[JsonValue] = [
        {"subject": named[r.subject], "type": r.type, "object": named[r.object]}
        for r in corpus.relationships_in(document.id)
        if r.subject in named and r.object in named
    ]
    return {"entities": entities, "relationships": relationships}


def _first_name_in(entity: GoldEntity, text: str) -> str | None:
    for name in sorted(entity.names, key=len, reverse=True):
        match = re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text, flags=re.IGNORECASE)
        if match:
            return match.group(0)
    return None


def scripted_provider(corpus: Corpus) -> FakeLlmProvider:
    """A FakeLlmProvider answering every chunk of the corpus with its gold annotations."""
    answers: dict[str, Payload] = {}
    for document in corpus.documents:
        for chunk in chunk_text(source_id(document.id), document.text):
            answers[chunk.text] = gold_answer(corpus, document, chunk.text)
    return FakeLlmProvider("scripted/gold", by_substring=answers)


@dataclass
class GraphRun:
    """One extractor through ``KnowledgeGraph.ingest``, scored on the resolved graph."""

    label: str
    chunks: int = 0
    calls: int = 0
    entities: Score = field(default_factory=Score)
    relationships: Score = field(default_factory=Score)
    graph_entities: int = 0
    split: int = 0
    merged_across: int = 0
    dropped: Counter[str] = field(default_factory=Counter)


async def measure_graph(label: str, extractor: Extractor, corpus: Corpus) -> GraphRun:
    """Ingest every document into one tenant, then score the graph against the gold.

    Each graph entity is mapped to the gold entity most of its names (its name and the names
    of what was merged into it) denote, type included. Entities: a gold entity with at least
    one graph entity is found; a graph entity naming no gold entity, or a second graph entity
    for an already found gold entity (resolution left it split), is a false positive.
    Relationships: the graph's edges mapped to gold ids against the corpus's distinct gold
    triples.
    """
    from redstring import KnowledgeGraph

    run = GraphRun(label=label)
    index = GoldIndex(corpus)
    async with KnowledgeGraph.in_memory(extractor=extractor, schema=corpus.schema) as kg:
        for document in corpus.documents:
            report = await kg.ingest("velmar", document.id, document.text)
            run.chunks += report.chunks
            run.calls += report.model_calls
            run.dropped.update(report.dropped)
        snapshot = await kg.export("velmar")
    gold_of: dict[str, str | None] = {}
    unmatched: list[str] = []
    covered: Counter[str] = Counter()
    for item in snapshot.entities:
        names = [item.entity.name, *(alias.name for alias in item.aliases if alias.name)]
        votes = Counter(
            gold_id
            for name in names
            if (gold_id := index.entity_id(name, item.entity.type)) is not None
        )
        run.merged_across += len(votes) > 1
        gold_id = votes.most_common(1)[0][0] if votes else None
        gold_of[item.entity.id] = gold_id
        if gold_id is None:
            unmatched.append(f"{item.entity.name} ({item.entity.type})")
        else:
            covered[gold_id] += 1
    run.graph_entities = len(snapshot.entities)
    run.split = sum(count - 1 for count in covered.values())
    gold_ids = {entity.id for entity in corpus.entities}
    run.entities.add(set(covered), gold_ids, unmatched, "graph")
    run.entities.fp += run.split
    found: set[str] = set()
    stray: list[str] = []
    for edge in snapshot.relationships:
        subject, obj = gold_of.get(edge.subject_id), gold_of.get(edge.object_id)
        if subject is None or obj is None:
            stray.append(f"{edge.subject_id} {edge.type} {edge.object_id}")
        else:
            found.add(f"{subject} {edge.type} {obj}")
    gold_triples = {f"{r.subject} {r.type} {r.object}" for r in corpus.relationships}
    run.relationships.add(found, gold_triples, stray, "graph")
    return run


def graph_table(runs: list[GraphRun]) -> str:
    header = (
        f"{'through KnowledgeGraph.ingest':<34} {'calls/chunk':>11} {'entities':>8} "
        f"{'split':>5} {'ent P':>6} {'ent R':>6} {'ent F1':>6} {'rel P':>6} {'rel R':>6} "
        f"{'rel F1':>6}"
    )
    lines = [header, "-" * len(header)]
    for run in runs:
        e, r = run.entities, run.relationships
        lines.append(
            f"{run.label:<34} {run.calls / run.chunks:>11.2f} {run.graph_entities:>8} "
            f"{run.split:>5} {e.precision:>6.3f} {e.recall:>6.3f} {e.f1:>6.3f} "
            f"{r.precision:>6.3f} {r.recall:>6.3f} {r.f1:>6.3f}"
        )
    return "\n".join(lines)


def table(runs: list[Run]) -> str:
    header = (
        f"{'extractor':<34} {'chunks':>6} {'calls/chunk':>11} {'ent P':>6} {'ent R':>6} "
        f"{'ent F1':>6} {'rel P':>6} {'rel R':>6} {'rel F1':>6} {'chunks/s':>9}"
    )
    lines = [header, "-" * len(header)]
    for run in runs:
        e, r = run.entities, run.relationships
        rate = run.chunks / run.seconds if run.seconds else float("inf")
        lines.append(
            f"{run.label:<34} {run.chunks:>6} {run.calls / run.chunks:>11.2f} "
            f"{e.precision:>6.3f} {e.recall:>6.3f} {e.f1:>6.3f} "
            f"{r.precision:>6.3f} {r.recall:>6.3f} {r.f1:>6.3f} {rate:>9.1f}"
        )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--errors", action="store_true", help="list false positives and misses")
    args = parser.parse_args()
    corpus = load_corpus()
    spacy = SpacyExtractor()
    await spacy.extract("Warm the pipeline up.", corpus.schema)
    provider = scripted_provider(corpus)
    runs = [await measure("SpacyExtractor (offline)", spacy, corpus, calls=None)]
    bare = dataclasses.replace(corpus, schema=without_triggers(corpus.schema))
    runs.append(await measure("SpacyExtractor, no triggers", spacy, bare, calls=None))
    llm_run = await measure(
        "LlmExtractor (scripted gold)", LlmExtractor(provider), corpus, calls=None
    )
    llm_run.calls = len(provider.calls)
    runs.append(llm_run)
    graph_provider = scripted_provider(corpus)
    graph_runs = [
        await measure_graph("SpacyExtractor (offline)", spacy, corpus),
        await measure_graph("LlmExtractor (scripted gold)", LlmExtractor(graph_provider), corpus),
    ]
    if args.json:
        print(
            json.dumps(
                {
                    run.label: {
                        "model": run.model,
                        "chunks": run.chunks,
                        "model_calls": run.calls,
                        "entities": run.entities.as_json(),
                        "relationships": run.relationships.as_json(),
                        "dropped": dict(run.dropped),
                    }
                    for run in runs
                }
                | {
                    f"{run.label} through KnowledgeGraph.ingest": {
                        "chunks": run.chunks,
                        "model_calls": run.calls,
                        "graph_entities": run.graph_entities,
                        "split_entities": run.split,
                        "entities_merging_several_gold": run.merged_across,
                        "entities": run.entities.as_json(),
                        "relationships": run.relationships.as_json(),
                        "dropped": dict(run.dropped),
                    }
                    for run in graph_runs
                },
                indent=2,
            )
        )
        return
    gold_entities = sum(len(corpus.entities_in(d.id)) for d in corpus.documents)
    gold_relationships = sum(len(corpus.relationships_in(d.id)) for d in corpus.documents)
    print(
        f"Velmar corpus: {len(corpus.documents)} documents, {gold_entities} gold entity "
        f"mentions (document, entity), {gold_relationships} gold relationship statements"
    )
    print(table(runs))
    for run in runs:
        print(f"{run.label}: model {run.model}; dropped {dict(run.dropped) or 'nothing'}")
    print()
    print(
        f"Resolved graph (one tenant, all documents; gold: {len(corpus.entities)} entities, "
        f"{len(corpus.relationships)} distinct relationships)"
    )
    print(graph_table(graph_runs))
    for graph_run in graph_runs:
        print(
            f"{graph_run.label}: {graph_run.merged_across} graph entities merge names of "
            f"several gold entities; report.dropped {dict(graph_run.dropped) or 'nothing'}"
        )
    if args.errors:
        for run in [*runs, *graph_runs]:
            for kind, score in (("entity", run.entities), ("relationship", run.relationships)):
                print(f"\n{run.label}: {kind} false positives")
                print("\n".join(f"  {line}" for line in score.false_positives))
                print(f"{run.label}: {kind} misses")
                print("\n".join(f"  {line}" for line in score.misses))


if __name__ == "__main__":
    asyncio.run(main())
