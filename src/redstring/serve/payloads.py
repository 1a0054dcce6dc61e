"""The bodies the HTTP API takes and returns (its OpenAPI schemas)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from redstring.domain.ids import SourceId
from redstring.domain.portable import MAX_JSON_DEPTH
from redstring.ingest.admission import MAX_METADATA_BYTES, check_metadata
from redstring.serve.inputs import check_input

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


# Patterns are the schema's statement of the rules the core enforces, written with \\uXXXX
# escapes only, which JSON Schema (ECMA-262), pydantic (Rust regex) and Python's re read
# alike; "\\s" is avoided because the three disagree on it. BLANK is every character
# ``str.strip`` removes: text made only of them is blank to the core.
BLANK = (
    "\\u0009-\\u000d\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029"
    "\\u202f\\u205f\\u3000"
)
CONTROL = "\\u0000-\\u001f\\u007f-\\u009f"
PRINTABLE = f"^[^{CONTROL}]*[^{CONTROL}{BLANK}][^{CONTROL}]*$"
"""A source id (``redstring.domain.ids.source_id``): no control character, not blank."""
PROSE = f"^[^\\u0000]*[^\\u0000{BLANK}][^\\u0000]*$"
"""Text to ingest or to search with: no NUL, not blank."""
TYPE_NAME = "^[A-Za-z][A-Za-z0-9_]{0,63}$"

SourceText = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1024,
        pattern=PRINTABLE,
        description="The source id: 1-1024 printable characters (no control character), "
        "not all whitespace, e.g. notes/1.md.",
    ),
]
Prose = Annotated[str, Field(min_length=1, pattern=PROSE)]


class _Strict(BaseModel):
    """A request body: unknown fields are refused, and every value passes the shared input
    checks first (:func:`redstring.serve.inputs.check_input`)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _checked(cls, data: Any) -> Any:
        check_input(data, field="body")
        return data


class DocumentIn(_Strict):
    """One document: the source it becomes and its text."""

    source: SourceText
    text: Prose = Field(description="The document's text (UTF-8, no NUL, not blank).")
    metadata: dict[str, JsonValue] = Field(
        default_factory=dict,
        description=f"Kept with the source and each of its passages: keys printable, at most "
        f"{MAX_JSON_DEPTH} levels deep and {MAX_METADATA_BYTES:,} bytes as JSON.",
        # Keys are printable names: every key must match the pattern (hypothesis-jsonschema
        # honours this form; it ignores propertyNames).
        json_schema_extra={"patternProperties": {PRINTABLE: {}}, "additionalProperties": False},
    )

    @field_validator("metadata")
    @classmethod
    def _storable(cls, metadata: dict[str, JsonValue]) -> dict[str, JsonValue]:
        # The core's own rule, applied here too so a batch is refused whole before its job.
        return check_metadata(SourceId("(this document)"), metadata)


class BatchIn(_Strict):
    """Several documents, ingested by a job."""

    documents: list[DocumentIn] = Field(min_length=1)


class QueryIn(_Strict):
    """A retrieval request."""

    text: Prose = Field(description="What to look for.")
    k: int = Field(default=10, ge=1, description="How many results of each kind.")
    entity_types: list[Annotated[str, Field(pattern=TYPE_NAME)]] | None = Field(
        default=None, description="Only entities of these schema types."
    )
    depth: int = Field(default=1, ge=0, le=3, description="Graph hops from matched entities.")


class AskIn(_Strict):
    """A question."""

    question: Prose
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
