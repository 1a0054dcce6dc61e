"""Answerer: a question answered from ``Retriever.query``'s context, every citation checked.

With an ``LlmProvider``: exactly one ``extract`` call, asking for an :class:`AnswerDraft`
(answerable, answer, cited passage markers) from the rendered context. A citation naming no
passage of the context is dropped and counted in ``Answer.dropped_citations``; it is never
shown as evidence. With no relevant context (no passage) the model is not called and the
answer says so; when the model says the context does not answer, so does the answer.

With no model: an *extractive* answer, labelled ``kind="extractive"``: the sentences of the
best passages that match the question best, quoted and cited, and the graph facts those
passages evidence. Nothing is generated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from redstring.domain.errors import InvalidArgumentError
from redstring.ports.llm_provider import LlmProvider
from redstring.retrieval.results import (
    Answer,
    AnswerDraft,
    Citation,
    QueryResult,
    RetrievedPassage,
)
from redstring.retrieval.sentences import score_sentences, sentences
from redstring.retrieval.service import Retriever

__all__ = ["ANSWER_SYSTEM_PROMPT", "NO_CONTEXT_ANSWER", "Answerer", "best_sentences", "sentences"]

ANSWER_SYSTEM_PROMPT = (
    "You answer a question using only the numbered passages and graph facts given. "
    "Cite every passage you rely on by its marker exactly as written, e.g. P1. "
    "If the passages do not contain the answer, set answerable to false and say that the "
    "documents do not answer the question; never answer from outside knowledge."
)
"""The instructions sent with every ``ask`` call (the LlmProvider port has no default)."""

NO_CONTEXT_ANSWER = "The documents hold nothing relevant to this question, so there is no answer."
"""The text of an answer given without any passage to answer from."""


class Answerer:
    """Answers questions over one :class:`Retriever`, with or without a model.

    ``context_passages`` bounds how many passages the model is shown (and an extractive
    answer reads), ``extractive_passages`` how many passages an extractive answer cites and
    ``extractive_sentences`` how many sentences it quotes. Model errors
    (:class:`~redstring.ports.errors.LlmProviderError`) propagate unchanged.
    """

    def __init__(
        self,
        retriever: Retriever,
        llm: LlmProvider | None = None,
        *,
        context_passages: int = 8,
        extractive_passages: int = 3,
        extractive_sentences: int = 3,
    ) -> None:
        if min(context_passages, extractive_passages, extractive_sentences) < 1:
            raise InvalidArgumentError(
                "context_passages, extractive_passages and extractive_sentences must be at "
                f"least 1, got {context_passages}, {extractive_passages} and "
                f"{extractive_sentences}"
            )
        self._retriever = retriever
        self._llm = llm
        self._context_passages = context_passages
        self._extractive_passages = extractive_passages
        self._extractive_sentences = extractive_sentences

    async def ask(self, tenant: str, question: str, *, depth: int = 1) -> Answer:
        """Answer ``question`` from the tenant's documents, citing passages of the context."""
        context = await self._retriever.query(
            tenant, question, k=self._context_passages, depth=depth
        )
        if not context.passages:
            return Answer(
                question=question,
                text=NO_CONTEXT_ANSWER,
                kind="unanswerable",
                citations=(),
                model=None if self._llm is None else self._llm.model,
                context=context,
            )
        if self._llm is None:
            return self._extractive(question, context)
        return await self._generated(question, context, self._llm)

    async def _generated(self, question: str, context: QueryResult, llm: LlmProvider) -> Answer:
        draft = await llm.extract(
            context.as_context(), AnswerDraft, system_prompt=ANSWER_SYSTEM_PROMPT
        )
        kept: list[Citation] = []
        dropped: list[str] = []
        for raw in dict.fromkeys(draft.citations):
            passage = context.passage(_marker(raw))
            if passage is None:
                dropped.append(raw)
            elif all(citation.marker != passage.marker for citation in kept):
                kept.append(_citation(passage))
        answerable = draft.answerable and bool(draft.answer.strip())
        return Answer(
            question=question,
            text=draft.answer.strip() if answerable else NO_CONTEXT_ANSWER,
            kind="generated" if answerable else "unanswerable",
            citations=tuple(kept) if answerable else (),
            dropped_citations=tuple(dropped),
            model=llm.model,
            context=context,
        )

    def _extractive(self, question: str, context: QueryResult) -> Answer:
        """The best sentences of the context for ``question``, each cited by its passage.

        Sentences come from the first ``extractive_passages`` passages; each scores the
        summed weight of the question's words it holds (a word rare among these sentences
        weighs more, so "the" and "is" barely count), damped by its passage's rank and by
        its length. The
        ``extractive_sentences`` best are quoted in score order; with no sentence holding a
        question word, each passage's first sentence stands in. Graph facts follow when a
        quoted passage evidences them.
        """
        quoted = context.passages[: self._extractive_passages]
        chosen = best_sentences(question, quoted, self._extractive_sentences)
        lines = [
            "Extractive answer (no language model configured): the sentences of the "
            "retrieved passages that best match the question."
        ]
        lines.extend(f"- {sentence.text} [{sentence.marker}]" for sentence in chosen)
        cited = [p for p in quoted if any(s.marker == p.marker for s in chosen)]
        shown = {passage.marker for passage in cited}
        facts = [
            fact
            for fact in context.relationships
            if any(marker in shown for marker in fact.passages)
        ]
        if facts:
            lines.append("Graph facts:")
            for fact in facts:
                markers = "".join(f"[{m}]" for m in fact.passages if m in shown)
                lines.append(
                    f"- {fact.subject_name} {fact.relationship.type} {fact.object_name} {markers}"
                )
        return Answer(
            question=question,
            text="\n".join(lines),
            kind="extractive",
            citations=tuple(_citation(passage) for passage in cited),
            context=context,
        )


@dataclass(frozen=True)
class QuotedSentence:
    """One sentence of a passage, with the passage's marker and its score for a question."""

    text: str
    marker: str
    score: float


def best_sentences(
    question: str, passages: Sequence[RetrievedPassage], limit: int
) -> list[QuotedSentence]:
    """The ``limit`` sentences of ``passages`` that best match ``question``, best first.

    A sentence scores the sum, over the distinct question words it holds, of that word's
    inverse frequency among all the candidate sentences, divided by ``1 + 0.25 * rank`` of
    its passage (rank 0 is the best passage) and, as BM25 normalises documents, by
    ``0.5 + 0.5 * length / mean length`` (a long sentence holds more words by chance). Ties
    keep passage and sentence order. When no sentence holds a question word, the passages'
    first sentences are returned instead.
    """
    markers = [passage.marker for passage in passages]
    scored = [
        QuotedSentence(text=sentence.text, marker=markers[sentence.rank], score=sentence.score)
        for sentence in score_sentences(question, [passage.text for passage in passages])
    ]
    if not scored:
        return []
    matching = [sentence for sentence in scored if sentence.score > 0]
    if not matching:
        firsts: dict[str, QuotedSentence] = {}
        for sentence in scored:
            firsts.setdefault(sentence.marker, sentence)
        return list(firsts.values())[:limit]
    order = sorted(range(len(matching)), key=lambda index: (-matching[index].score, index))
    return [matching[index] for index in order[:limit]]


def _marker(raw: str) -> str:
    """``"[P2]"``, ``"p2"`` and ``" P2 "`` all name passage ``P2``."""
    return raw.strip().strip("[]").strip().upper()


def _citation(passage: RetrievedPassage) -> Citation:
    return Citation(marker=passage.marker, chunk_id=passage.chunk_id, source_id=passage.source_id)
