"""Answerer: a question answered from ``Retriever.query``'s context, every citation checked.

With an ``LlmProvider``: exactly one ``extract`` call, asking for an :class:`AnswerDraft`
(answerable, answer, cited passage markers) from the rendered context. A citation naming no
passage of the context is dropped and counted in ``Answer.dropped_citations``; it is never
shown as evidence. With no relevant context (no passage) the model is not called and the
answer says so; when the model says the context does not answer, so does the answer.

With no model: an *extractive* answer, labelled ``kind="extractive"``: the sentences of the
context's passages that answer (:mod:`~redstring.retrieval.extractive`), quoted and cited,
each followed by the graph facts it states; ``kind="unanswerable"`` when none does. Nothing is
generated.
"""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.chunk_ranking import tokenize
from redstring.domain.errors import InvalidArgumentError
from redstring.ports.llm_provider import LlmProvider
from redstring.retrieval.extractive import QuotedSentence, answer_sentences
from redstring.retrieval.results import (
    Answer,
    AnswerDraft,
    Citation,
    QueryResult,
    RetrievedPassage,
    RetrievedRelationship,
)
from redstring.retrieval.retriever import Retriever

__all__ = [
    "ANSWER_SYSTEM_PROMPT",
    "NOT_FOUND_ANSWER",
    "NO_CONTEXT_ANSWER",
    "Answerer",
    "supporting_facts",
]

ANSWER_SYSTEM_PROMPT = (
    "You answer a question using only the numbered passages and graph facts given. "
    "Cite every passage you rely on by its marker exactly as written, e.g. P1. "
    "If the passages do not contain the answer, set answerable to false and say that the "
    "documents do not answer the question; never answer from outside knowledge."
)
"""The instructions sent with every ``ask`` call (the LlmProvider port has no default)."""

NO_CONTEXT_ANSWER = "The documents hold nothing relevant to this question, so there is no answer."
"""The text of an answer given without any passage to answer from."""

NOT_FOUND_ANSWER = (
    "Not found: no sentence of the retrieved passages answers the question "
    "(extractive answer, no language model configured)."
)
"""The text of an extractive answer when no sentence holds enough of the question."""


class Answerer:
    """Answers questions over one :class:`Retriever`, with or without a model.

    ``context_passages`` bounds how many passages the model is shown and an extractive
    answer reads (all of them); an extractive answer quotes at most ``extractive_sentences``
    sentences, or ``list_sentences`` for a question asking for a list. Model errors
    (:class:`~redstring.ports.errors.LlmProviderError`) propagate unchanged.
    """

    def __init__(
        self,
        retriever: Retriever,
        llm: LlmProvider | None = None,
        *,
        context_passages: int = 10,
        extractive_sentences: int = 3,
        list_sentences: int = 8,
    ) -> None:
        if min(context_passages, extractive_sentences, list_sentences) < 1:
            raise InvalidArgumentError(
                "context_passages, extractive_sentences and list_sentences must be at least "
                f"1, got {context_passages}, {extractive_sentences} and {list_sentences}"
            )
        self._retriever = retriever
        self._llm = llm
        self._context_passages = context_passages
        self._extractive_sentences = extractive_sentences
        self._list_sentences = list_sentences

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
        """The sentences of the context that answer ``question``, each cited by its passage
        and followed by the graph facts it states (:mod:`~redstring.retrieval.extractive`).

        Sentences come from every passage of the context; none that restates the question,
        none twice; as many as score near the best (more for a question asking for a list).
        When no sentence holds enough of the question, the answer says it was not found.
        """
        chosen = answer_sentences(
            question,
            context.passages,
            limit=self._extractive_sentences,
            list_limit=self._list_sentences,
        )
        if not chosen:
            return Answer(
                question=question,
                text=NOT_FOUND_ANSWER,
                kind="unanswerable",
                citations=(),
                context=context,
            )
        lines = [
            "Extractive answer (no language model configured): the sentences of the "
            "retrieved passages that answer the question."
        ]
        for sentence in chosen:
            lines.append(f"- {sentence.text} [{sentence.marker}]")
            for fact in supporting_facts(sentence, context.relationships):
                lines.append(
                    f"  graph fact: {fact.subject_name} {fact.relationship.type} "
                    f"{fact.object_name} [{sentence.marker}]"
                )
        markers = dict.fromkeys(sentence.marker for sentence in chosen)
        cited = [passage for passage in context.passages if passage.marker in markers]
        return Answer(
            question=question,
            text="\n".join(lines),
            kind="extractive",
            citations=tuple(_citation(passage) for passage in cited),
            context=context,
        )


def supporting_facts(
    sentence: QuotedSentence, facts: Sequence[RetrievedRelationship]
) -> list[RetrievedRelationship]:
    """The graph facts ``sentence`` states: evidenced by its passage, both ends named in it."""
    text = f" {' '.join(tokenize(sentence.text))} "
    return [
        fact
        for fact in facts
        if sentence.marker in fact.passages
        and all(
            f" {' '.join(tokenize(name))} " in text
            for name in (fact.subject_name, fact.object_name)
        )
    ]


def _marker(raw: str) -> str:
    """``"[P2]"``, ``"p2"`` and ``" P2 "`` all name passage ``P2``."""
    return raw.strip().strip("[]").strip().upper()


def _citation(passage: RetrievedPassage) -> Citation:
    return Citation(
        marker=passage.marker,
        chunk_id=passage.chunk_id,
        source_id=passage.source_id,
        headings=passage.headings,
    )
