"""Passages of a source document and their content-addressed ids.

``chunk_id(source_id, text)`` is a SHA-256 over both parts, so re-ingesting unchanged text
yields the same ids (a no-op) and two tenants holding the same document hold the same chunk
ids: stores must key on ``(tenant_id, id)`` and compare both parts.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from redstring.domain.ids import ChunkId, EntityId, SourceId, distinct
from redstring.domain.portable import MAX_SQL_INT, JsonObject


def chunk_id(source_id: str, text: str) -> ChunkId:
    """The stable id of the passage ``text`` of source ``source_id``.

    Stable across processes and machines (never Python's salted ``hash()``), and unambiguous:
    the source id is length-prefixed so ``("ab", "c")`` and ``("a", "bc")`` differ.
    """
    source = source_id.encode("utf-8")
    digest = hashlib.sha256()
    digest.update(len(source).to_bytes(8, "big"))
    digest.update(source)
    digest.update(text.encode("utf-8"))
    return ChunkId("c" + digest.hexdigest()[:39])


class Chunk(BaseModel):
    """A window of a source's text, with its character offsets in that text."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: ChunkId
    source_id: SourceId
    chunk_index: int = Field(ge=0, le=MAX_SQL_INT)
    text: str = Field(min_length=1)
    char_start: int = Field(default=0, ge=0)
    char_end: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _id_is_content_addressed(self) -> Self:
        expected = chunk_id(self.source_id, self.text)
        if self.id != expected:
            raise ValueError(
                f"chunk id {self.id!r} is not chunk_id(source_id, text) = {expected!r}; "
                "build chunks with redstring.domain.chunks.chunk_id"
            )
        if "\x00" in self.text:
            raise ValueError("chunk text must not contain NUL characters")
        return self


EntityIds = Annotated[tuple[EntityId, ...], AfterValidator(distinct)]
"""Entity ids as a set in list form: repeats dropped on construction and assignment, first
position kept (ADR 0028)."""


class StoredChunk(Chunk):
    """A chunk as the passage store keeps it: plus the entities extracted from it.

    ``entity_ids`` names each entity once: an id listed twice is kept at its first position
    (``redstring.domain.ids.distinct``), and a store holds a chunk so even when the list
    skipped validation (``model_copy(update=...)``), see ADR 0028.
    """

    entity_ids: EntityIds = ()
    metadata: JsonObject = Field(default_factory=dict)
