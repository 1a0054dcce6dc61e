"""Retrieval: vector, lexical and graph evidence fused into one cited context, and answers.

``Retriever.query`` makes no model call and returns a :class:`QueryResult` (passages,
entities, relationships, each with provenance and its rank in every signal);
``Answerer.ask`` answers from it with one model call, or extractively without a model.
"""

from __future__ import annotations

from redstring.retrieval.answers import Answerer
from redstring.retrieval.results import (
    Answer,
    AnswerDraft,
    Citation,
    QueryResult,
    RetrievedEntity,
    RetrievedPassage,
    RetrievedRelationship,
)
from redstring.retrieval.retriever import Retriever
from redstring.retrieval.settings import RetrievalSettings

__all__ = [
    "Answer",
    "AnswerDraft",
    "Answerer",
    "Citation",
    "QueryResult",
    "RetrievalSettings",
    "RetrievedEntity",
    "RetrievedPassage",
    "RetrievedRelationship",
    "Retriever",
]
