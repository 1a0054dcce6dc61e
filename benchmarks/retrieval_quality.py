"""Retrieval quality on the Velmar corpus: recall@5 per question kind, per signal and fused.

Run with ``uv run --frozen --no-sync python -m benchmarks.retrieval_quality`` (the gold set,
``benchmarks/questions/gold.json``); ``--questions benchmarks/questions/heldout.json`` scores
the held-out set the same way, and any file of the same shape can be scored. Offline: the
corpus ships in the package and the embedding model is the bundled static one.

The stores hold the corpus as a perfect extraction and resolution would leave them
(``benchmarks/gold_world.py``), so the numbers measure retrieval alone. Each question names
its answer entities (gold ids) and its supporting passages (document and sentence). For each
configuration it reports, per kind and overall:

* passage recall@5: the share of a question's supporting sentences that lie in one of the
  top 5 passages of their document (a sentence cut by a chunk boundary counts when its
  first or last 50 characters do), averaged over questions;
* entity recall@5: the share of a question's answer entities among the top 5 entities.

Configurations: each signal alone (``RetrievalSettings.signals``; the graph needs seeds, so
it runs seeded by entity vectors), then all of them fused, with the library's defaults
(``k=5``, ``depth=1``). Entities found through passages (``mentions``) count for every
configuration, because that is how a passage-only signal yields entities.

``--pipeline`` measures the product end to end instead: the corpus is ingested through
``KnowledgeGraph.in_memory`` with the offline ``SpacyExtractor`` and the default resolver,
so extraction and resolution errors count too, with passages cut to the gold world's 400
characters. Passages are scored as above; an answer
entity counts as found when one of the top 5 entities is named (after name normalisation)
like one of the gold entity's names, since the graph's entity ids are not the gold ids.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.embedding_choice import EMBEDDINGS, load_embeddings
from benchmarks.gold_world import CHUNK_CHARS, CHUNK_OVERLAP, GoldWorld, write_gold_world
from benchmarks.passage_sets import VARIANTS
from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.corpus import Corpus, load_corpus
from redstring.domain.ids import TenantId
from redstring.domain.name_forms import normalise_name
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.retrieval import QueryResult, RetrievalSettings, Retriever
from redstring.retrieval.results import ENTITY_VECTOR, GRAPH, LEXICAL, NAMES, PASSAGE_VECTOR
from redstring.vector.adapters.memory import InMemoryVectorStore

TENANT = TenantId("velmar")
K = 5
FUSED_LABEL = "fused (all signals)"
DEFAULT_QUESTIONS = Path(__file__).parent / "questions" / "gold.json"
KINDS = ("single_hop", "multi_hop", "alias", "list")
CONFIGURATIONS: dict[str, frozenset[str] | None] = {
    "entity vectors alone": frozenset({ENTITY_VECTOR}),
    "passage vectors alone": frozenset({PASSAGE_VECTOR}),
    "BM25 alone": frozenset({LEXICAL}),
    "graph (seeded by entity vectors)": frozenset({ENTITY_VECTOR, GRAPH}),
    "names alone": frozenset({NAMES}),
    "fused (all signals)": None,
}


@dataclass(frozen=True)
class Support:
    document: str
    sentence: str


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    text: str
    answers: tuple[str, ...]
    support: tuple[Support, ...]


def _flat(text: str) -> str:
    return " ".join(text.split())


def load_questions(path: Path, corpus: Corpus) -> list[Question]:
    """Questions from ``path``, each checked against the corpus (sentences, answer ids)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    known = {entity.id for entity in corpus.entities}
    questions = []
    for row in data["questions"]:
        support = tuple(Support(s["document"], s["sentence"]) for s in row["support"])
        for item in support:
            if _flat(item.sentence) not in _flat(corpus.document(item.document).text):
                raise ValueError(f"{row['id']}: {item.sentence!r} is not in {item.document}")
        unknown = set(row["answers"]) - known
        if unknown or row["kind"] not in KINDS or not support:
            raise ValueError(f"{row['id']}: unknown answers {unknown} or kind {row['kind']!r}")
        questions.append(
            Question(row["id"], row["kind"], row["question"], tuple(row["answers"]), support)
        )
    return questions


def covers(passage_text: str, sentence: str) -> bool:
    """Whether ``sentence`` (or its first or last 50 characters) is in ``passage_text``."""
    text, wanted = _flat(passage_text), _flat(sentence)
    return wanted in text or wanted[:50] in text or wanted[-50:] in text


def passage_recall(result: QueryResult, question: Question) -> float:
    top = result.passages[:K]
    found = sum(
        any(p.source_id == s.document and covers(p.text, s.sentence) for p in top)
        for s in question.support
    )
    return found / len(question.support)


def entity_recall(result: QueryResult, question: Question, world: GoldWorld) -> float:
    top = {world.gold_ids.get(found.entity.id) for found in result.entities[:K]}
    return sum(answer in top for answer in question.answers) / len(question.answers)


async def evaluate_pipeline(
    questions: Sequence[Question], chunk_chars: int = CHUNK_CHARS, embeddings: str = "default"
) -> dict[str, dict[str, tuple[float, float]]]:
    """As :func:`evaluate`, over the corpus as the product ingests it (spaCy extraction)."""
    from redstring import IngestSettings, KnowledgeGraph
    from redstring.extraction.adapters.spacy import SpacyExtractor

    corpus = load_corpus()
    # By default passages are cut as in the gold world, so the two tables compare (the
    # product's default is 1,200 characters: 26 passages, a top 5 holding a fifth of them).
    overlap = min(CHUNK_OVERLAP * chunk_chars // CHUNK_CHARS, chunk_chars // 4)
    settings = IngestSettings(chunk_chars=chunk_chars, chunk_overlap=overlap)
    graph = KnowledgeGraph.in_memory(
        extractor=SpacyExtractor(), settings=settings, embeddings=load_embeddings(embeddings)
    )
    async with graph:
        for document in corpus.documents:
            await graph.ingest(TENANT, document.id, document.text, schema=corpus.schema)
        gold_names = {
            entity.id: {normalise_name(name) for name in entity.names} for entity in corpus.entities
        }

        def found_entities(result: QueryResult, question: Question) -> float:
            top = [normalise_name(found.entity.name) for found in result.entities[:K]]
            hits = sum(any(name in gold_names[a] for name in top) for a in question.answers)
            return hits / len(question.answers)

        stats = await graph.stats(TENANT)
        print(
            f"pipeline: {len(corpus.documents)} documents ingested with SpacyExtractor: "
            f"{stats.chunks} passages, {stats.entities} entities, "
            f"{stats.relationships} relationships; embeddings {graph.embeddings.model}"
        )
        assert graph.passage_vectors is not None
        return await _score(
            questions,
            graph=graph.graph,
            vectors=graph.vectors,
            chunks=graph.chunks,
            passages=graph.passage_vectors,
            embeddings=graph.embeddings,
            entity_score=found_entities,
        )


async def _score(
    questions: Sequence[Question],
    *,
    graph: GraphStore,
    vectors: VectorStore,
    chunks: ChunkStore,
    passages: VectorStore,
    embeddings: EmbeddingProvider,
    entity_score: Callable[[QueryResult, Question], float],
    settings: RetrievalSettings | None = None,
) -> dict[str, dict[str, tuple[float, float]]]:
    table: dict[str, dict[str, tuple[float, float]]] = {}
    base = settings or RetrievalSettings()
    for label, signals in CONFIGURATIONS.items():
        retriever = Retriever(
            graph=graph,
            vectors=vectors,
            chunks=chunks,
            embeddings=embeddings,
            passage_vectors=passages,
            settings=replace(base, signals=signals),
        )
        by_kind: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for question in questions:
            result = await retriever.query(TENANT, question.text, k=K)
            scores = (passage_recall(result, question), entity_score(result, question))
            by_kind[question.kind].append(scores)
            by_kind["all"].append(scores)
        table[label] = {
            kind: (
                statistics.fmean(s[0] for s in rows),
                statistics.fmean(s[1] for s in rows),
            )
            for kind, rows in by_kind.items()
        }
    return table


async def evaluate(
    questions: Sequence[Question], embedding_name: str = "default", *, sweep: bool = False
) -> dict[str, dict[str, tuple[float, float]]]:
    """Per configuration, per kind (and ``all``): mean passage and entity recall@5."""
    corpus = load_corpus()
    embeddings = load_embeddings(embedding_name)
    graph = InMemoryGraphStore()
    vectors = InMemoryVectorStore(dimension=embeddings.dimension)
    passages = InMemoryVectorStore(dimension=embeddings.dimension)
    chunks = InMemoryChunkStore()
    world = await write_gold_world(
        corpus,
        TENANT,
        graph=graph,
        vectors=vectors,
        passages=passages,
        chunks=chunks,
        embeddings=embeddings,
    )
    table = await _score(
        questions,
        graph=graph,
        vectors=vectors,
        chunks=chunks,
        passages=passages,
        embeddings=embeddings,
        entity_score=lambda result, question: entity_recall(result, question, world),
    )
    if sweep:
        print("| variant | fused all, passages / entities | multi-hop | fused >= each single |")
        print("| --- | --- | --- | --- |")
        for name, settings in VARIANTS.items():
            scored = await _score(
                questions,
                graph=graph,
                vectors=vectors,
                chunks=chunks,
                passages=passages,
                embeddings=embeddings,
                entity_score=lambda result, question: entity_recall(result, question, world),
                settings=settings,
            )
            fused = scored[FUSED_LABEL]
            losses = [
                f"{label} {measure} {row['all'][i]:.2f}"
                for label, row in scored.items()
                if label != FUSED_LABEL
                for i, measure in enumerate(("passages", "entities"))
                if row["all"][i] > fused["all"][i] + 1e-9
            ]
            hop = fused.get("multi_hop", (0.0, 0.0))
            print(
                f"| {name} | {fused['all'][0]:.2f} / {fused['all'][1]:.2f} | "
                f"{hop[0]:.2f} / {hop[1]:.2f} | {'yes' if not losses else '; '.join(losses)} |",
                flush=True,
            )
    print(
        f"corpus: {len(corpus.documents)} documents, {len(world.chunks)} passages "
        f"({len(corpus.entities)} entities, {len(corpus.relationships)} relationships); "
        f"embeddings {embeddings.model}"
    )
    return table


def render(table: dict[str, dict[str, tuple[float, float]]], questions: Sequence[Question]) -> str:
    counts = {kind: sum(q.kind == kind for q in questions) for kind in KINDS}
    kinds = [kind for kind in KINDS if counts[kind]] + ["all"]
    counts["all"] = len(questions)
    header = "| configuration | " + " | ".join(f"{k} ({counts[k]})" for k in kinds) + " |"
    lines = [
        "recall@5, passages / answer entities",
        header,
        "| --- |" + " ---: |" * len(kinds),
    ]
    for label, by_kind in table.items():
        cells = [f"{by_kind[k][0]:.2f} / {by_kind[k][1]:.2f}" for k in kinds]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    fused = table["fused (all signals)"]
    singles = {label: row for label, row in table.items() if label != "fused (all signals)"}
    if "multi_hop" in fused:
        beaten = [
            label
            for label, row in singles.items()
            if sum(fused["multi_hop"]) <= sum(row["multi_hop"])
        ]
        lines.append(
            "fused beats every single configuration on multi-hop (passages + entities): "
            + ("yes" if not beaten else f"no, not {beaten}")
        )
    lines.append(
        f"fused overall: passages {fused['all'][0]:.2f}, entities {fused['all'][1]:.2f} "
        "(target >= 0.90 each)"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument(
        "--pipeline",
        action="store_true",
        help="ingest the corpus with the offline spaCy extractor instead of the gold world",
    )
    parser.add_argument(
        "--chunk-chars",
        type=int,
        default=CHUNK_CHARS,
        help="with --pipeline: passage size in characters (the product's default is 1200)",
    )
    parser.add_argument("--embeddings", choices=sorted(EMBEDDINGS), default="default")
    parser.add_argument("--sweep", action="store_true", help="score settings variants")
    arguments = parser.parse_args()
    questions = load_questions(arguments.questions, load_corpus())
    table = asyncio.run(
        evaluate_pipeline(questions, arguments.chunk_chars, arguments.embeddings)
        if arguments.pipeline
        else evaluate(questions, arguments.embeddings, sweep=arguments.sweep)
    )
    print(f"questions: {arguments.questions} ({len(questions)})")
    print(render(table, questions))


if __name__ == "__main__":
    main()
