"""Answerer: a question answered from ``Retriever.query``'s context, every citation checked.

With an ``LlmProvider``: exactly one ``extract`` call, asking for an :class:`AnswerDraft`
(answerable, answer, cited passage markers) from the rendered context. A citation naming no
passage of the context is dropped and counted in ``Answer.dropped_citations``; it is never
shown as evidence. With no relevant context (no passage) the model is not called and the
answer says so; when the model says the context does not answer, so does the answer.

With no model: an *extractive* answer, labelled ``kind="extractive"``: the best passages
quoted and the graph facts among them, each cited. Nothing is generated.
"""

from __future__ import annotations

from redstring.domain.errors import InvalidArgumentError
from redstring.ports.llm_provider import LlmProvider
from redstring.retrieval.results import (
    Answer,
    AnswerDraft,
    Citation,
    QueryResult,
    RetrievedPassage,
)
from redstring.retrieval.service import Retriever

__all__ = ["ANSWER_SYSTEM_PROMPT", "NO_CONTEXT_ANSWER", "Answerer"]

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

    ``extractive_passages`` bounds how many passages an extractive answer quotes and
    ``context_passages`` how many the model is shown. Model errors
    (:class:`~redstring.ports.errors.LlmProviderError`) propagate unchanged.
    """

    def __init__(
        self,
        retriever: Retriever,
        llm: LlmProvider | None = None,
        *,
        context_passages: int = 8,
        extractive_passages: int = 3,
    ) -> None:
        if context_passages < 1 or extractive_passages < 1:
            raise InvalidArgumentError(
                "context_passages and extractive_passages must be at least 1, got "
                f"{context_passages} and {extractive_passages}"
            )
        self._retriever = retriever
        self._llm = llm
        self._context_passages = context_passages
        self._extractive_passages = extractive_passages

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
        quoted = context.passages[: self._extractive_passages]
        lines = ["Extractive answer (no language model configured): the best matching passages."]
        for passage in quoted:
            lines.append(f"[{passage.marker}] {' '.join(passage.text.split())}")
        shown = {passage.marker for passage in quoted}
        facts = [
            fact
            for fact in context.relationships
            if any(marker in shown for marker in fact.passages)
        ]
        if facts:
            lines.append("Graph facts:")
            for fact in facts:
                cited = "".join(f"[{m}]" for m in fact.passages if m in shown)
                lines.append(
                    f"- {fact.subject_name} {fact.relationship.type} {fact.object_name} {cited}"
                )
        return Answer(
            question=question,
            text="\n".join(lines),
            kind="extractive",
            citations=tuple(_citation(passage) for passage in quoted),
            context=context,
        )


def _marker(raw: str) -> str:
    """``"[P2]"``, ``"p2"`` and ``" P2 "`` all name passage ``P2``."""
    return raw.strip().strip("[]").strip().upper()


def _citation(passage: RetrievedPassage) -> Citation:
    return Citation(marker=passage.marker, chunk_id=passage.chunk_id, source_id=passage.source_id)
