"""What the passage-recall benchmarks share: questions with gold sources, recall@k, tables.

A question names the sources (documents) that support its answer. ``recall@k`` is the share
of them among the first ``k`` *distinct* sources of the ranked passages (a source cut into
several passages counts once, at its best passage), averaged over questions, as the
multi-hop literature scores paragraph retrieval (HippoRAG's R@2 and R@5).

Each signal is scored from the same ``query`` call as the fused ranking: the query runs with a
large ``k``, so every passage any signal put in its head comes back with its rank in every
signal (``RetrievedPassage.ranks``), and a signal's own ranking is the passages ordered by
their rank in it. That is the signal as the fusion saw it (the graph seeded as it is seeded in
the product), not a different configuration.
"""

from __future__ import annotations

import os
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from redstring import KnowledgeGraph
from redstring.retrieval import QueryResult, RetrievalSettings, Retriever
from redstring.retrieval.results import (
    GRAPH,
    HOP,
    LEXICAL,
    MENTIONS,
    NAMES,
    PASSAGE_VECTOR,
    SIGNALS,
)
from redstring.retrieval.settings import DEFAULT_WEIGHTS

KS = (2, 5, 10)
FUSED = "query (fused)"
PASSAGE_SIGNALS = (LEXICAL, PASSAGE_VECTOR, NAMES, GRAPH, HOP)
"""The signals that rank passages (entity vectors and mentions rank entities only)."""


@dataclass(frozen=True)
class GoldQuestion:
    """A question, its kind, and the sources that support its answer."""

    id: str
    kind: str
    text: str
    sources: frozenset[str]


def distinct_sources(ranked: Iterable[str]) -> list[str]:
    """``ranked`` with each source at its first position only."""
    return list(dict.fromkeys(ranked))


def recall_at(ranked_sources: Sequence[str], gold: frozenset[str], k: int) -> float:
    """The share of ``gold`` among the first ``k`` distinct sources of ``ranked_sources``."""
    return len(gold & set(distinct_sources(ranked_sources)[:k])) / len(gold)


def hit_at(ranked_sources: Sequence[str], gold: frozenset[str], k: int) -> float:
    """1.0 when any of ``gold`` is among the first ``k`` distinct sources, else 0.0."""
    return 1.0 if gold & set(distinct_sources(ranked_sources)[:k]) else 0.0


def rankings(result: QueryResult) -> dict[str, list[str]]:
    """The fused source ranking and each passage signal's own, from one wide query."""
    ranked = {FUSED: [passage.source_id for passage in result.passages]}
    for signal in PASSAGE_SIGNALS:
        own = sorted(
            (p for p in result.passages if signal in p.ranks), key=lambda p: p.ranks[signal]
        )
        ranked[f"{signal} alone (its ranking in the query)"] = [p.source_id for p in own]
    return ranked


Scores = dict[str, dict[str, dict[int, float]]]
"""configuration -> question kind (and ``"all"``) -> k -> mean recall@k."""


class RecallTable:
    """Collects per-question recall for named configurations; renders means per kind."""

    def __init__(
        self,
        ks: Sequence[int] = KS,
        metric: Callable[[Sequence[str], frozenset[str], int], float] = recall_at,
    ) -> None:
        self.ks = tuple(ks)
        self._metric = metric
        self._rows: dict[str, dict[str, list[dict[int, float]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        self._kinds: dict[str, None] = {}
        self._baselines: set[str] = set()

    def add(
        self,
        configuration: str,
        question: GoldQuestion,
        ranked: Sequence[str],
        *,
        baseline: bool = False,
    ) -> None:
        """Score ``ranked`` for ``question``; a ``baseline`` row is one the fused ranking
        must not fall below (a single signal, BM25)."""
        if baseline:
            self._baselines.add(configuration)
        scores = {k: self._metric(ranked, question.sources, k) for k in self.ks}
        self._kinds.setdefault(question.kind)
        self._rows[configuration][question.kind].append(scores)
        self._rows[configuration]["all"].append(scores)

    def add_query(self, question: GoldQuestion, result: QueryResult, *, cut: int) -> None:
        """Score every ranking of one query: the fused one cut to its first ``cut`` sources,
        each single signal whole as a baseline."""
        for configuration, sources in rankings(result).items():
            fused = configuration == FUSED
            self.add(
                configuration, question, sources[:cut] if fused else sources, baseline=not fused
            )

    def means(self) -> Scores:
        return {
            configuration: {
                kind: {k: statistics.fmean(row[k] for row in rows) for k in self.ks}
                for kind, rows in by_kind.items()
            }
            for configuration, by_kind in self._rows.items()
        }

    def render(self, title: str) -> str:
        means = self.means()
        kinds = [*self._kinds, "all"]
        counts = {kind: len(next(iter(self._rows.values()))[kind]) for kind in kinds}
        header = ["configuration"] + [
            f"{kind} ({counts[kind]}) @{k}" for kind in kinds for k in self.ks
        ]
        lines = [title, "| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
        for configuration, by_kind in means.items():
            cells = [f"{100 * by_kind[kind][k]:.1f}" for kind in kinds for k in self.ks]
            lines.append(f"| {configuration} | " + " | ".join(cells) + " |")
        lines.append(self.verdict(means))
        return "\n".join(lines)

    def verdict(self, means: Scores) -> str:
        """Whether the fused ranking is at least every baseline row at every k and kind."""
        if FUSED not in means:
            return ""
        fused = means[FUSED]
        losses = [
            f"{configuration} {kind} R@{k} ({100 * by_kind[kind][k]:.1f} > "
            f"{100 * fused[kind][k]:.1f})"
            for configuration, by_kind in means.items()
            if configuration in self._baselines
            for kind in by_kind
            for k in self.ks
            if by_kind[kind][k] > fused[kind][k] + 1e-9
        ]
        if not losses:
            return "fused >= every single signal and baseline at every k and kind: yes"
        return "fused >= every single signal and baseline at every k and kind: no: " + "; ".join(
            losses
        )


def retriever(graph: KnowledgeGraph, settings: RetrievalSettings) -> Retriever:
    """A retriever over ``graph``'s stores with other settings."""
    return Retriever(
        graph=graph.graph,
        vectors=graph.vectors,
        chunks=graph.chunks,
        embeddings=graph.embeddings,
        passage_vectors=graph.passage_vectors,
        cache=graph.cache,
        settings=settings,
        link_types=[spec.name for spec in graph.schema.entity_types],
    )


def leave_one_out(
    graph: KnowledgeGraph, settings: RetrievalSettings | None = None
) -> dict[str, Retriever]:
    """One retriever per switchable signal, running every other one (``settings`` otherwise;
    ``None``: the defaults)."""
    switchable = [signal for signal in SIGNALS if signal != MENTIONS]
    return {
        f"query without {signal}": retriever(
            graph,
            replace(
                settings or RetrievalSettings(),
                signals=frozenset(s for s in switchable if s != signal),
            ),
        )
        for signal in switchable
    }


def weighted(**changes: float) -> dict[str, float]:
    """The default weights with ``changes``."""
    return {**DEFAULT_WEIGHTS, **changes}


_CHANGES: dict[str, dict[str, Any]] = {
    "defaults": {},
    "rrf_k 10": {"rrf_k": 10},
    "rrf_k 20": {"rrf_k": 20},
    "rrf_k 60": {"rrf_k": 60},
    "per_signal 20": {"per_signal": 20},
    "graph 1.5": {"weights": weighted(graph=1.5)},
    "graph 2": {"weights": weighted(graph=2.0)},
    "passage_vector 1.5": {"weights": weighted(passage_vector=1.5)},
    "lexical 0.75": {"weights": weighted(lexical=0.75)},
    "names 0.25": {"weights": weighted(names=0.25)},
    "damping 0.7": {"walk_damping": 0.7},
    "damping 0.3": {"walk_damping": 0.3},
    "passage restart 0.75": {"walk_passage_restart": 0.75},
    "passage restart 0.25": {"walk_passage_restart": 0.25},
    "seeds 5": {"seeds": 5},
    "walk seed passages 5": {"walk_seed_passages": 5},
    "walk seed passages 3": {"walk_seed_passages": 3},
    "walk seed passages 5, graph 1.5": {"walk_seed_passages": 5, "weights": weighted(graph=1.5)},
    "graph 1.5, names 0.25": {"weights": weighted(graph=1.5, names=0.25)},
    "walk seed passages 5, graph 1.5, names 0.25": {
        "walk_seed_passages": 5,
        "weights": weighted(graph=1.5, names=0.25),
    },
    "walk passages 96, entities 128": {"walk_passages": 96, "walk_entities": 128},
    "per_signal 20, graph 1.5": {"per_signal": 20, "weights": weighted(graph=1.5)},
    "names 0.25, rrf_k 10": {"rrf_k": 10, "weights": weighted(names=0.25)},
    "names 0.25, walk seed passages 3": {"walk_seed_passages": 3, "weights": weighted(names=0.25)},
    "names 0.25, passage restart 0.75": {
        "walk_passage_restart": 0.75,
        "weights": weighted(names=0.25),
    },
    "names 0.25, damping 0.3": {"walk_damping": 0.3, "weights": weighted(names=0.25)},
    "names 0.25, per_signal 15": {"per_signal": 15, "weights": weighted(names=0.25)},
    "names 0, graph 1.5": {"weights": weighted(names=0.0, graph=1.5)},
    "hop 0": {"weights": weighted(hop=0.0)},
    "hop 0.25": {"weights": weighted(hop=0.25)},
    "hop 0.75": {"weights": weighted(hop=0.75)},
    "hop 1": {"weights": weighted(hop=1.0)},
    "hop from 2": {"hop_from": 2},
    "hop from 5": {"hop_from": 5},
}
"""Settings variants a benchmark's ``--sweep`` scores (one or two changes from the defaults)."""

_ONLY = [name for name in os.environ.get("REDSTRING_SWEEP", "").split(";") if name]

VARIANTS: dict[str, RetrievalSettings] = {
    name: replace(RetrievalSettings(), **changes)
    for name, changes in _CHANGES.items()
    if not _ONLY or name == "defaults" or name in _ONLY
}
"""The variants to score: every one, or the defaults and those named in ``REDSTRING_SWEEP``
(separated by ";")."""
