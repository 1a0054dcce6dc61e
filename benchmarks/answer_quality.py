"""Extractive answers end to end: does ``ask`` quote the answer, with no model configured?

Run with ``uv run --frozen --no-sync python -m benchmarks.answer_quality`` (add
``--questions benchmarks/questions/heldout.json`` for the held-out set). The Velmar corpus is
ingested as the product does it (``KnowledgeGraph.in_memory``, the offline
``SpacyExtractor``, default settings), then every question is asked. Per question kind:

* answer names: the share of a question's answer entities whose name, or one of their gold
  aliases, appears in the answer text (case folded);
* support quoted: the share of its supporting sentences the answer quotes (the whole
  sentence, or its first or last 50 characters, as in ``retrieval_quality``).

Both are strict: an answer that quotes "She will report to chief engineer Tomas Veil" for
"Who will Priya report to?" names the answer; one that quotes a sentence about "the chief
engineer" without the name does not.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections import defaultdict
from pathlib import Path

from benchmarks.embedding_choice import EMBEDDINGS, load_embeddings
from benchmarks.retrieval_quality import (
    DEFAULT_QUESTIONS,
    KINDS,
    TENANT,
    covers,
    load_questions,
)
from benchmarks.support import print_table
from redstring import KnowledgeGraph
from redstring.corpus import load_corpus


async def evaluate(questions_path: Path, embeddings: str = "default") -> list[list[str]]:
    """One row per question kind and one for all: count, answer names, support quoted."""
    from redstring.extraction.adapters.spacy import SpacyExtractor

    corpus = load_corpus()
    questions = load_questions(questions_path, corpus)
    names = {entity.id: [name.casefold() for name in entity.names] for entity in corpus.entities}
    rows: dict[str, list[tuple[float, float]]] = defaultdict(list)
    async with KnowledgeGraph.in_memory(
        extractor=SpacyExtractor(), embeddings=load_embeddings(embeddings)
    ) as graph:
        for document in corpus.documents:
            await graph.ingest(TENANT, document.id, document.text, schema=corpus.schema)
        for question in questions:
            answer = await graph.ask(TENANT, question.text)
            text = answer.text.casefold()
            named = sum(any(name in text for name in names[a]) for a in question.answers)
            quoted = sum(covers(text, s.sentence.casefold()) for s in question.support)
            scores = (named / len(question.answers), quoted / len(question.support))
            rows[question.kind].append(scores)
            rows["all"].append(scores)
    return [
        [
            kind,
            str(len(rows[kind])),
            f"{statistics.fmean(s[0] for s in rows[kind]):.2f}",
            f"{statistics.fmean(s[1] for s in rows[kind]):.2f}",
        ]
        for kind in (*KINDS, "all")
        if rows[kind]
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--embeddings", choices=sorted(EMBEDDINGS), default="default")
    arguments = parser.parse_args()
    rows = asyncio.run(evaluate(arguments.questions, arguments.embeddings))
    print(f"questions: {arguments.questions}")
    print_table(["kind", "questions", "answer names", "support quoted"], rows)


if __name__ == "__main__":
    main()
