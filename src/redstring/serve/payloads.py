"""The bodies the HTTP API takes and returns (its OpenAPI schemas)."""

from __future__ import annotations

import uuid
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue

__all__ = [
    "AskIn",
    "BatchIn",
    "DocumentIn",
    "Health",
    "MergeIn",
    "MergeOut",
    "Page",
    "QueryIn",
    "Readiness",
    "UnmergeIn",
    "UnmergeOut",
]

T = TypeVar("T")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DocumentIn(_Strict):
    """One document: the source it becomes and its text."""

    source: str = Field(min_length=1, max_length=1024, description="The source id.")
    text: str = Field(min_length=1, description="The document's text (UTF-8, no NUL).")
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


class BatchIn(_Strict):
    """Several documents, ingested by a job."""

    documents: list[DocumentIn] = Field(min_length=1)


class QueryIn(_Strict):
    """A retrieval request."""

    text: str = Field(min_length=1, description="What to look for.")
    k: int = Field(default=10, ge=1, description="How many results of each kind.")
    entity_types: list[str] | None = None
    depth: int = Field(default=1, ge=0, le=3, description="Graph hops from matched entities.")


class AskIn(_Strict):
    """A question."""

    question: str = Field(min_length=1)
    depth: int = Field(default=1, ge=0, le=3)


class MergeIn(_Strict):
    """Merge ``absorb`` into ``keep``."""

    keep: uuid.UUID
    absorb: uuid.UUID


class UnmergeIn(_Strict):
    """Undo the merge that made ``alias`` an alias."""

    alias: uuid.UUID


class MergeOut(BaseModel):
    """The entity that remains after a merge."""

    kept: uuid.UUID
    alias: uuid.UUID


class UnmergeOut(BaseModel):
    """The entity restored by an unmerge."""

    restored: uuid.UUID


class Page(BaseModel, Generic[T]):
    """One page of a list: ``items`` from ``offset``, of ``total``."""

    items: list[T]
    total: int
    offset: int
    limit: int


class Health(BaseModel):
    """The liveness answer."""

    status: Literal["ok"] = "ok"
    version: str


class Readiness(BaseModel):
    """Every backend's probe outcome."""

    status: Literal["ready"] = "ready"
    checks: dict[str, str]
