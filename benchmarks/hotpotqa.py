"""Multi-hop passage retrieval on HotpotQA-100: ``query`` against each of its signals and BM25.

Run with ``uv run --frozen --no-sync python -m benchmarks.hotpotqa`` (``--limit N`` for the
first N questions, ``--embeddings`` to choose the model, ``--ablation`` to add one run per
signal left out, ``--sweep`` to score settings variants on two halves of the questions:
even positions tune, odd positions are held out). Offline: the data ships in
``benchmarks/data/hotpotqa-100`` (CC BY-SA 4.0, see its README).

Every paragraph of the pool (994) is one source, ingested as ``"title\\ntext"`` through
``KnowledgeGraph.in_memory(extractor=SpacyExtractor())`` with the default settings; each of the
100 questions is asked with ``query(..., k=10)``. recall@k is the share of the question's two
gold paragraphs among the first k distinct paragraphs (``benchmarks.passage_sets``), per
question type (bridge, comparison) and overall. Beside the fused ranking: each passage
signal's own ranking inside the same query, and ``rank_bm25``'s ``BM25Okapi`` over lower-cased
``\\w+`` tokens of the same pool (the ``eval`` dependency group) as the published baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.embedding_choice import EMBEDDINGS, load_embeddings
from benchmarks.passage_sets import (
    FUSED,
    VARIANTS,
    GoldQuestion,
    RecallTable,
    leave_one_out,
    retriever,
)
from redstring import KnowledgeGraph

DATA = Path(__file__).parent / "data" / "hotpotqa-100"
TENANT = "hotpotqa"
K = 10
WIDE = 200
"""A query this wide returns every passage any signal put in its head."""


def load_pool(data: Path = DATA) -> tuple[dict[str, str], list[GoldQuestion]]:
    """The paragraphs (title -> ``"title\\ntext"``) and the questions with their gold titles."""
    corpus = json.loads((data / "corpus.json").read_text(encoding="utf-8"))
    passages = {title: f"{title}\n{''.join(sentences)}" for title, sentences in corpus.items()}
    questions = []
    for row in json.loads((data / "questions.json").read_text(encoding="utf-8")):
        gold = frozenset(title for title, _ in row["supporting_facts"])
        unknown = gold - set(passages)
        if unknown:
            raise ValueError(f"{row['_id']}: supporting titles {sorted(unknown)} not in corpus")
        questions.append(GoldQuestion(row["_id"], row["type"], row["question"], gold))
    return passages, questions


def bm25_baseline(passages: dict[str, str]) -> Callable[[str], list[str]]:
    """A function ranking the pool's titles for a question with ``rank_bm25``."""
    from rank_bm25 import BM25Okapi

    titles = list(passages)
    index = BM25Okapi([re.findall(r"\w+", passages[t].lower()) for t in titles])

    def ranked(question: str) -> list[str]:
        scores = index.get_scores(re.findall(r"\w+", question.lower()))
        order = sorted(range(len(titles)), key=lambda i: (-scores[i], i))
        return [titles[i] for i in order[:WIDE]]

    return ranked


async def evaluate(
    questions: list[GoldQuestion],
    passages: dict[str, str],
    *,
    embeddings: str,
    ablation: bool,
    sweep: bool = False,
) -> RecallTable:
    from redstring.extraction.adapters.spacy import SpacyExtractor

    table = RecallTable()
    bm25 = bm25_baseline(passages)
    graph = KnowledgeGraph.in_memory(
        extractor=SpacyExtractor(), embeddings=load_embeddings(embeddings)
    )
    async with graph:
        started = time.perf_counter()
        for title, text in passages.items():
            await graph.ingest(TENANT, title, text)
        stats = await graph.stats(TENANT)
        print(
            f"ingested {len(passages)} paragraphs in {time.perf_counter() - started:.0f} s: "
            f"{stats.chunks} passages, {stats.entities} entities, {stats.relationships} "
            f"relationships; embeddings {graph.embeddings.model}"
        )
        left_out = leave_one_out(graph) if ablation else {}
        started = time.perf_counter()
        for question in questions:
            result = await graph.query(TENANT, question.text, k=WIDE)
            table.add_query(question, result, cut=K)
            table.add(
                "BM25 (rank_bm25 BM25Okapi, same pool)",
                question,
                bm25(question.text),
                baseline=True,
            )
            for label, retriever in left_out.items():
                found = await retriever.query(TENANT, question.text, k=K)
                table.add(label, question, [p.source_id for p in found.passages])
        elapsed = time.perf_counter() - started
        print(f"{len(questions)} questions in {elapsed:.1f} s")
        if sweep:
            await sweep_settings(graph, questions)
    return table


async def sweep_settings(graph: KnowledgeGraph, questions: list[GoldQuestion]) -> None:
    """Score each of ``VARIANTS`` on the tuning half (even positions) and the held-out half
    (odd positions): fused R@2/5/10, per kind, and whether the fused ranking is at least every
    single signal of the same query on the held-out half."""
    halves = {"tune": questions[0::2], "held": questions[1::2]}
    print(
        "| variant | tune all @2/5/10 | held all @2/5/10 | held bridge | held comparison "
        "| held: fused >= each signal | ms/query |"
    )
    print("| --- | --- | --- | --- | --- | --- | ---: |")
    for name, settings in VARIANTS.items():
        variant = retriever(graph, settings)
        cells = []
        verdict = ""
        started = time.perf_counter()
        for half, members in halves.items():
            table = RecallTable()
            for question in members:
                result = await variant.query(TENANT, question.text, k=WIDE)
                table.add_query(question, result, cut=K)
            means = table.means()[FUSED]
            cells.append("/".join(f"{100 * means['all'][k]:.1f}" for k in table.ks))
            if half == "held":
                for kind in ("bridge", "comparison"):
                    cells.append("/".join(f"{100 * means[kind][k]:.1f}" for k in table.ks))
                verdict = table.verdict(table.means()).split(": ", 1)[1]
        elapsed = 1000 * (time.perf_counter() - started) / len(questions)
        print(f"| {name} | " + " | ".join(cells) + f" | {verdict} | {elapsed:.0f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--embeddings", choices=sorted(EMBEDDINGS), default="default")
    parser.add_argument("--ablation", action="store_true", help="add leave-one-out rows")
    parser.add_argument("--sweep", action="store_true", help="score settings variants")
    arguments = parser.parse_args()
    passages, questions = load_pool()
    questions = questions[: arguments.limit]
    table = asyncio.run(
        evaluate(
            questions,
            passages,
            embeddings=arguments.embeddings,
            ablation=arguments.ablation,
            sweep=arguments.sweep,
        )
    )
    print(table.render(f"HotpotQA-100: recall@k (%), {len(questions)} questions, k={K}"))


if __name__ == "__main__":
    main()
