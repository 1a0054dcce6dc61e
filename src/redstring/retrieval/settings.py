"""RetrievalSettings: how many hits each signal gives, how the graph walks, how much each
signal weighs in the fusion. Every field has a measured default (ADRs 0026, 0033, 0034, 0049)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from redstring.domain.chunk_ranking import DEFAULT_POSTING_BUDGET
from redstring.domain.errors import InvalidArgumentError
from redstring.retrieval.results import (
    ENTITY_VECTOR,
    GRAPH,
    HOP,
    LEXICAL,
    MENTIONS,
    NAMES,
    PASSAGE_VECTOR,
)

__all__ = ["DEFAULT_WEIGHTS", "SWITCHABLE", "RetrievalSettings"]

SWITCHABLE = frozenset({ENTITY_VECTOR, PASSAGE_VECTOR, LEXICAL, GRAPH, NAMES, HOP})
"""The signals ``RetrievalSettings.signals`` may name; ``mentions`` is derived and always runs."""

DEFAULT_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {
        LEXICAL: 1.0,
        PASSAGE_VECTOR: 1.0,
        NAMES: 0.25,
        GRAPH: 1.0,
        HOP: 0.5,
        ENTITY_VECTOR: 1.0,
        MENTIONS: 1.0,
    }
)
"""Each signal's weight in the passage and entity fusion (ADR 0033 holds the measurement)."""


@dataclass(frozen=True)
class RetrievalSettings:
    """How much each signal contributes and how the graph is walked.

    ``per_signal`` hits are taken from each signal before fusion; ``weights`` multiply each
    signal's reciprocal-rank votes (a signal missing from the mapping weighs 1; ADR 0033);
    ``rrf_k`` is the fusion constant (ADR 0026). ``seeds`` linked entities start the graph
    walk with the first ``walk_seed_passages`` passages of the lexical and passage-vector
    rankings; the walk reads at most ``walk_passages`` passages and ``walk_entities``
    entities around them, follows a link with probability ``walk_damping``, puts
    ``walk_passage_restart`` of its restart weight on the seed passages (the rest on the
    seed entities) and weighs a relationship ``relationship_weight`` against a mention's 1
    (ADR 0034). Relationships are read among the first ``walk_related_entities`` entities of
    the neighbourhood only (the seeds, then those named by the most of its passages;
    ``None``: all of them), so a dense graph's edges cost at most that number squared
    (ADR 0057). The ``hop`` signal follows the first ``hop_from`` passages of the first round
    to one bridge entity each, reads at most ``hop_entities`` entities and ``hop_passages``
    passages, and gives its first ``hop_votes`` passages about a bridge to the fusion (ADR
    0049). ``evidence_relationships`` relationships are returned with their evidence.
    ``posting_budget`` is passed to ``lexical_candidates`` (ADR 0020); query vectors stay in
    the cache for ``query_vector_ttl_seconds`` (``None``: no expiry), and the last
    ``query_vectors_kept`` are kept in this process too (0: none), so a question asked again
    is not embedded again (MiniLM: ~8 ms of a ~20 ms query). ``signals`` names the
    signals that run (``None``: all of them); turning signals off is for measuring each one
    alone, as ``benchmarks/`` does.
    """

    per_signal: int = 10
    seeds: int = 3
    evidence_relationships: int = 10
    rrf_k: int = 5
    weights: Mapping[str, float] = field(default_factory=lambda: DEFAULT_WEIGHTS)
    walk_seed_passages: int = 10
    walk_passages: int = 48
    walk_entities: int = 64
    walk_related_entities: int | None = 32
    walk_damping: float = 0.5
    walk_passage_restart: float = 0.5
    relationship_weight: float = 1.0
    hop_from: int = 3
    hop_entities: int = 32
    hop_passages: int = 48
    hop_votes: int = 1
    posting_budget: int | None = DEFAULT_POSTING_BUDGET
    query_vector_ttl_seconds: float | None = 7 * 24 * 3600.0
    query_vectors_kept: int = 256
    signals: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.signals is not None and not self.signals <= SWITCHABLE:
            raise InvalidArgumentError(
                f"unknown signals {sorted(self.signals - SWITCHABLE)}: choose from "
                f"{sorted(SWITCHABLE)}"
            )
        counts = (
            "per_signal",
            "seeds",
            "evidence_relationships",
            "rrf_k",
            "walk_seed_passages",
            "walk_passages",
            "walk_entities",
            "query_vectors_kept",
            "hop_from",
            "hop_entities",
            "hop_passages",
            "hop_votes",
        )
        for name in counts:
            value = getattr(self, name)
            if value < 0:
                raise InvalidArgumentError(f"{name} must be non-negative, got {value}")
        if self.walk_related_entities is not None and self.walk_related_entities < 0:
            raise InvalidArgumentError(
                f"walk_related_entities must be non-negative, got {self.walk_related_entities}"
            )
        for name in ("walk_damping", "walk_passage_restart"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise InvalidArgumentError(f"{name} must be between 0 and 1, got {value}")
        if self.relationship_weight < 0:
            raise InvalidArgumentError(
                f"relationship_weight must be non-negative, got {self.relationship_weight}"
            )
        unknown = set(self.weights) - SWITCHABLE - {MENTIONS}
        if unknown:
            raise InvalidArgumentError(
                f"weights for unknown signals {sorted(unknown)}: choose from "
                f"{sorted(SWITCHABLE | {MENTIONS})}"
            )
        for signal, weight in self.weights.items():
            if not weight >= 0:
                raise InvalidArgumentError(f"the weight of {signal} must be >= 0, got {weight}")
        ttl = self.query_vector_ttl_seconds
        if ttl is not None and not ttl > 0:
            raise InvalidArgumentError(f"query_vector_ttl_seconds must be positive, got {ttl}")

    def weight(self, signal: str) -> float:
        """The fusion weight of ``signal`` (1 when not given)."""
        return self.weights.get(signal, 1.0)
