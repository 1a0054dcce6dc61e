"""redstring: documents in, a multi-tenant knowledge graph out, questions answered from it.

The names in ``__all__`` are the public promise (gated by
``tests/unit/test_the_public_surface_is_gated.py``); anything reached by a dotted path into a
submodule is internal unless that submodule documents otherwise (``redstring.testing`` does).
"""

from __future__ import annotations

from redstring.domain.blocking import blocking_keys, normalise_name
from redstring.domain.chunk_ranking import LexicalCandidate, LexicalCandidates, bm25, tokenize
from redstring.domain.chunking import chunk_text
from redstring.domain.chunks import Chunk, StoredChunk, chunk_id
from redstring.domain.errors import (
    DimensionMismatchError,
    EmptyTextError,
    InvalidArgumentError,
    RedstringError,
    ZeroVectorError,
)
from redstring.domain.events import NewEvent, StoredEvent
from redstring.domain.ids import (
    ChunkId,
    EntityId,
    EventId,
    RelationshipId,
    SourceId,
    TenantId,
    new_entity_id,
    new_event_id,
    new_relationship_id,
    source_id,
    tenant_id,
)
from redstring.domain.models import Alias, Entity, Neighbour, Provenance, Relationship
from redstring.domain.vector import VectorMatch, VectorRecord, cosine_score
from redstring.ports.cache import Cache
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.errors import (
    CircuitOpenError,
    ConcurrencyConflictError,
    EmptyCompletionError,
    LlmProviderError,
    MalformedCompletionError,
    MissingEntityError,
    RateLimitedError,
    RefusedCompletionError,
    TransientLlmError,
)
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphStore
from redstring.ports.llm_provider import LlmProvider
from redstring.ports.vector_store import VectorStore

__version__ = "0.1.0"

__all__ = [
    "Alias",
    "Cache",
    "Chunk",
    "ChunkId",
    "ChunkStore",
    "CircuitOpenError",
    "ConcurrencyConflictError",
    "DimensionMismatchError",
    "EmbeddingProvider",
    "EmptyCompletionError",
    "EmptyTextError",
    "Entity",
    "EntityId",
    "EventId",
    "EventLog",
    "GraphStore",
    "InvalidArgumentError",
    "LexicalCandidate",
    "LexicalCandidates",
    "LlmProvider",
    "LlmProviderError",
    "MalformedCompletionError",
    "MissingEntityError",
    "Neighbour",
    "NewEvent",
    "Provenance",
    "RateLimitedError",
    "RedstringError",
    "RefusedCompletionError",
    "Relationship",
    "RelationshipId",
    "SourceId",
    "StoredChunk",
    "StoredEvent",
    "TenantId",
    "TransientLlmError",
    "VectorMatch",
    "VectorRecord",
    "VectorStore",
    "ZeroVectorError",
    "__version__",
    "blocking_keys",
    "bm25",
    "chunk_id",
    "chunk_text",
    "cosine_score",
    "new_entity_id",
    "new_event_id",
    "new_relationship_id",
    "normalise_name",
    "source_id",
    "tenant_id",
    "tokenize",
]
