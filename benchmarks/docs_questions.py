"""Questions over real documentation nobody here wrote: does ``query`` find the page, and does
``ask`` without a model answer?

Run with ``uv run --frozen --no-sync python -m benchmarks.docs_questions`` (``--embeddings``
to choose the model, ``--show`` to print every extractive answer). The corpus is the Python
3.11 documentation as Debian's ``python3-doc`` installs it (``apt-get install python3-doc``):
the tutorial and the FAQ, 26 HTML pages read as the ``redstring`` command reads HTML, each page
one source, ingested through ``KnowledgeGraph.in_memory(extractor=SpacyExtractor())``. The
questions (``benchmarks/questions/python_docs.json``) were written for this benchmark from the
pages, with the phrases a right answer contains and the pages that support it.

Per question kind and overall:

* support @k: the share of questions with a supporting page among the first k distinct pages
  of ``query`` (and of each passage signal's own ranking in the same query);
* ask: the share of questions whose extractive answer (``ask`` with no model) contains every
  expected phrase, case and whitespace folded.

Kinds: ``fact`` and ``howto`` (one page states it), ``list`` (several items, all expected),
``faq`` (asked in the words of an FAQ heading, so the FAQ's table of contents restates it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from benchmarks.embedding_choice import EMBEDDINGS, load_embeddings
from benchmarks.passage_sets import (
    FUSED,
    VARIANTS,
    GoldQuestion,
    RecallTable,
    hit_at,
    retriever,
)
from benchmarks.support import print_table
from redstring import KnowledgeGraph

DOCS = Path("/usr/share/doc/python3-doc/html")
FOLDERS = ("tutorial", "faq")
QUESTIONS = Path(__file__).parent / "questions" / "python_docs.json"
TENANT = "python-docs"
WIDE = 200


@dataclass(frozen=True)
class DocQuestion:
    gold: GoldQuestion
    expected: tuple[str, ...]


def fold(text: str) -> str:
    """Whitespace, case and inline-code marks folded: the readers write ``del`` as
    ```del``` (Markdown), which an expected phrase does not spell."""
    return " ".join(text.replace("`", "").split()).casefold()


def load_pages(root: Path = DOCS) -> dict[str, str]:
    """Every page of :data:`FOLDERS` (relative path -> text as the command reads it)."""
    from redstring.documents import read_document

    if not root.is_dir():
        raise SystemExit(f"{root} is missing: install it with `apt-get install python3-doc`")
    return {
        str(path.relative_to(root)): read_document(path).text
        for folder in FOLDERS
        for path in sorted((root / folder).glob("*.html"))
    }


def load_questions(pages: dict[str, str], path: Path = QUESTIONS) -> list[DocQuestion]:
    """The questions, each checked: its pages exist and hold every expected phrase."""
    questions = []
    for row in json.loads(path.read_text(encoding="utf-8"))["questions"]:
        support = frozenset(row["support"])
        for page in support:
            if page not in pages:
                raise ValueError(f"{row['id']}: support page {page} is not in the corpus")
        text = " ".join(fold(pages[page]) for page in support)
        missing = [phrase for phrase in row["expected"] if fold(phrase) not in text]
        if missing:
            raise ValueError(f"{row['id']}: {missing} not on its support pages")
        gold = GoldQuestion(row["id"], row["kind"], row["question"], support)
        questions.append(DocQuestion(gold, tuple(row["expected"])))
    return questions


async def evaluate(
    questions: list[DocQuestion],
    pages: dict[str, str],
    *,
    embeddings: str,
    show: bool,
    sweep: bool = False,
) -> tuple[RecallTable, list[list[str]]]:
    from redstring.extraction.adapters.spacy import SpacyExtractor

    table = RecallTable(ks=(1, 3, 5), metric=hit_at)
    answered: dict[str, list[float]] = defaultdict(list)
    graph = KnowledgeGraph.in_memory(
        extractor=SpacyExtractor(), embeddings=load_embeddings(embeddings)
    )
    async with graph:
        started = time.perf_counter()
        for page, text in pages.items():
            await graph.ingest(TENANT, page, text)
        stats = await graph.stats(TENANT)
        print(
            f"ingested {len(pages)} pages in {time.perf_counter() - started:.0f} s: "
            f"{stats.chunks} passages, {stats.entities} entities; "
            f"embeddings {graph.embeddings.model}"
        )
        for question in questions:
            result = await graph.query(TENANT, question.gold.text, k=WIDE)
            table.add_query(question.gold, result, cut=10)
            answer = await graph.ask(TENANT, question.gold.text)
            text = fold(answer.text)
            right = all(fold(phrase) in text for phrase in question.expected)
            answered[question.gold.kind].append(float(right))
            answered["all"].append(float(right))
            if show:
                mark = "RIGHT" if right else "WRONG"
                print(f"--- {question.gold.id} {mark} {question.gold.text}\n{answer.text}\n")
        if sweep:
            await sweep_settings(graph, [q.gold for q in questions])
    kinds = [*dict.fromkeys(q.gold.kind for q in questions), "all"]
    rows = [
        [kind, str(len(answered[kind])), f"{statistics.fmean(answered[kind]):.2f}"]
        for kind in kinds
    ]
    return table, rows


async def sweep_settings(graph: KnowledgeGraph, questions: list[GoldQuestion]) -> None:
    """Support @1/3/5 of each of ``VARIANTS`` (fused), and whether it is at least every single
    signal of the same query."""
    print("| variant | all @1/3/5 | fused >= each signal |")
    print("| --- | --- | --- |")
    for name, settings in VARIANTS.items():
        variant = retriever(graph, settings)
        table = RecallTable(ks=(1, 3, 5), metric=hit_at)
        for question in questions:
            result = await variant.query(TENANT, question.text, k=WIDE)
            table.add_query(question, result, cut=10)
        means = table.means()
        cells = "/".join(f"{100 * means[FUSED]['all'][k]:.1f}" for k in table.ks)
        verdict = table.verdict(means).split(": ", 1)[1]
        print(f"| {name} | {cells} | {verdict} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embeddings", choices=sorted(EMBEDDINGS), default="default")
    parser.add_argument("--show", action="store_true", help="print every extractive answer")
    parser.add_argument("--sweep", action="store_true", help="score settings variants")
    arguments = parser.parse_args()
    pages = load_pages()
    questions = load_questions(pages)
    table, rows = asyncio.run(
        evaluate(
            questions,
            pages,
            embeddings=arguments.embeddings,
            show=arguments.show,
            sweep=arguments.sweep,
        )
    )
    print(
        table.render(
            f"python3-doc: a supporting page in the first k (%), {len(questions)} questions"
        )
    )
    print()
    print("extractive ask: the answer holds every expected phrase")
    print_table(["kind", "questions", "ask right"], rows)


if __name__ == "__main__":
    main()
