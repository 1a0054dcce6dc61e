"""redstring: documents in, a multi-tenant knowledge graph out, questions answered from it.

The names in ``__all__`` are the public promise (gated by
``tests/unit/test_the_public_surface_is_gated.py``); anything reached by a dotted path into a
submodule is internal unless that submodule documents otherwise (``redstring.testing`` does).
"""

from __future__ import annotations

from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.composition.schema_files import InvalidSchemaError, load_schema
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
from redstring.domain.extraction import ExtractedEntity, ExtractedRelationship, Extraction
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
from redstring.domain.records import EntityRecord, RelationshipRecord
from redstring.domain.schema import DEFAULT_SCHEMA, EntityTypeSpec, RelationshipTypeSpec, Schema
from redstring.domain.vector import VectorMatch, VectorRecord, cosine_score
from redstring.ingest.admission import DocumentTooLargeError
from redstring.ingest.records import InvalidRecordError
from redstring.ingest.reports import (
    DeleteReport,
    FailedChunk,
    GraphSnapshot,
    GraphStats,
    ImportReport,
    IngestReport,
    MergeInfo,
    PossibleMatchInfo,
    SnapshotEntity,
    SourceInfo,
)
from redstring.ingest.service import (
    ExtractorNotConfiguredError,
    IngestSettings,
    MergeRefusedError,
    TenantErasedError,
    UnknownEntityError,
    WriteConflictError,
)
from redstring.ports.cache import Cache
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.errors import (
    CircuitOpenError,
    ConcurrencyConflictError,
    EmptyCompletionError,
    ExtractionError,
    LlmProviderError,
    MalformedCompletionError,
    MissingEntityError,
    RateLimitedError,
    RefusedCompletionError,
    TransientLlmError,
)
from redstring.ports.event_log import EventLog
from redstring.ports.extractor import Extractor
from redstring.ports.graph_store import GraphStore
from redstring.ports.llm_provider import LlmProvider
from redstring.ports.vector_store import VectorStore
from redstring.retrieval import (
    Answer,
    Citation,
    QueryResult,
    RetrievalSettings,
    RetrievedEntity,
    RetrievedPassage,
    RetrievedRelationship,
)

__version__ = "0.1.0"

__all__ = [  # noqa: RUF022 - plainly sorted, as the public-surface gate checks
    "Alias",
    "Answer",
    "Cache",
    "Chunk",
    "ChunkId",
    "ChunkStore",
    "CircuitOpenError",
    "Citation",
    "ConcurrencyConflictError",
    "DEFAULT_SCHEMA",
    "DeleteReport",
    "DimensionMismatchError",
    "DocumentTooLargeError",
    "EmbeddingProvider",
    "EmptyCompletionError",
    "EmptyTextError",
    "Entity",
    "EntityId",
    "EntityRecord",
    "EntityTypeSpec",
    "EventId",
    "EventLog",
    "ExtractedEntity",
    "ExtractedRelationship",
    "Extraction",
    "ExtractionError",
    "Extractor",
    "ExtractorNotConfiguredError",
    "FailedChunk",
    "GraphSnapshot",
    "GraphStats",
    "GraphStore",
    "ImportReport",
    "IngestReport",
    "IngestSettings",
    "InvalidArgumentError",
    "InvalidRecordError",
    "InvalidSchemaError",
    "KnowledgeGraph",
    "LexicalCandidate",
    "LexicalCandidates",
    "LlmProvider",
    "LlmProviderError",
    "MalformedCompletionError",
    "MergeInfo",
    "MergeRefusedError",
    "MissingEntityError",
    "Neighbour",
    "NewEvent",
    "PossibleMatchInfo",
    "Provenance",
    "QueryResult",
    "RateLimitedError",
    "RedstringError",
    "RefusedCompletionError",
    "Relationship",
    "RelationshipId",
    "RelationshipRecord",
    "RelationshipTypeSpec",
    "RetrievalSettings",
    "RetrievedEntity",
    "RetrievedPassage",
    "RetrievedRelationship",
    "Schema",
    "SnapshotEntity",
    "SourceId",
    "SourceInfo",
    "StoredChunk",
    "StoredEvent",
    "TenantErasedError",
    "TenantId",
    "TransientLlmError",
    "UnknownEntityError",
    "VectorMatch",
    "VectorRecord",
    "VectorStore",
    "WriteConflictError",
    "ZeroVectorError",
    "__version__",
    "blocking_keys",
    "bm25",
    "chunk_id",
    "chunk_text",
    "cosine_score",
    "load_schema",
    "new_entity_id",
    "new_event_id",
    "new_relationship_id",
    "normalise_name",
    "source_id",
    "tenant_id",
    "tokenize",
]
