"""Lexical ranking: tokenisation, the term statistics stores return, and BM25 over them.

Stores return statistics and never rank (``LexicalCandidates``); ranking lives here so two
adapters cannot disagree about relevance. Every store tokenises with :func:`tokenize`, and
chooses which terms' chunks become candidates with :func:`selective_terms` (ADR 0020).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import ChunkId

_TOKEN = re.compile(r"\w+", re.UNICODE)

DEFAULT_POSTING_BUDGET = 1_000
"""How many postings ``lexical_candidates`` reads by default: the cost bound of ADR 0020."""


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens of ``text`` in order (Unicode-aware, casefolded)."""
    return _TOKEN.findall(text.casefold())


def term_frequencies(text: str) -> Counter[str]:
    """How often each token of ``text`` occurs."""
    return Counter(tokenize(text))


class LexicalCandidate(BaseModel):
    """One chunk containing at least one query term: its length and per-term counts."""

    model_config = ConfigDict(extra="forbid")

    chunk_id: ChunkId
    length: int = Field(ge=0)
    term_frequencies: dict[str, int]


class LexicalCandidates(BaseModel):
    """Term statistics over one tenant's whole passage corpus for a set of query terms.

    ``corpus_size`` and ``total_length`` cover every chunk of the tenant, not only the
    candidates; ``document_frequencies`` counts chunks containing each query term (0 when
    none does). ``candidate_terms`` are the query terms chosen by :func:`selective_terms`
    under the call's posting budget; ``candidates`` holds every chunk containing any of them,
    sorted by id, each with its count of **every** query term it holds, common ones included.
    """

    model_config = ConfigDict(extra="forbid")

    corpus_size: int = Field(ge=0)
    total_length: int = Field(ge=0)
    document_frequencies: dict[str, int]
    candidate_terms: list[str]
    candidates: list[LexicalCandidate]


class RankedChunk(BaseModel):
    """A chunk id with its BM25 score."""

    model_config = ConfigDict(extra="forbid")

    chunk_id: ChunkId
    score: float


def query_terms(question: str) -> list[str]:
    """The distinct tokens of ``question``, in first-seen order."""
    return list(dict.fromkeys(tokenize(question)))


def selective_terms(
    document_frequencies: Mapping[str, int], posting_budget: int | None
) -> list[str]:
    """The terms whose chunks become lexical candidates, rarest first.

    Terms held by at least one chunk, ascending by ``(document frequency, term)``, kept while
    the running sum of their document frequencies stays within ``posting_budget``; ``None``
    keeps them all. Rarer terms carry most of BM25's weight (IDF falls with frequency), so the
    budget drops the common terms first, and it bounds how many postings a store reads.
    Raises :class:`InvalidArgumentError` for a negative budget.
    """
    if posting_budget is not None and posting_budget < 0:
        raise InvalidArgumentError(
            f"posting_budget must be non-negative or None, got {posting_budget}"
        )
    held = sorted(
        (frequency, term) for term, frequency in document_frequencies.items() if frequency > 0
    )
    chosen: list[str] = []
    running = 0
    for frequency, term in held:
        running += frequency
        if posting_budget is not None and running > posting_budget:
            break
        chosen.append(term)
    return chosen


def bm25(
    stats: LexicalCandidates,
    terms: Sequence[str],
    *,
    k1: float = 1.2,
    b: float = 0.75,
    limit: int | None = None,
) -> list[RankedChunk]:
    """Rank candidates by Okapi BM25, best first, ties broken by ascending chunk id.

    Uses the non-negative IDF ``ln(1 + (N - df + 0.5) / (df + 0.5))``. Raises
    :class:`InvalidArgumentError` for negative ``k1``, ``b`` outside [0, 1] or a negative limit.
    """
    if k1 < 0:
        raise InvalidArgumentError(f"k1 must be non-negative, got {k1}")
    if not 0 <= b <= 1:
        raise InvalidArgumentError(f"b must be within [0, 1], got {b}")
    if limit is not None and limit < 0:
        raise InvalidArgumentError(f"limit must be non-negative, got {limit}")
    if stats.corpus_size == 0:
        return []
    average = stats.total_length / stats.corpus_size or 1.0
    unique_terms = list(dict.fromkeys(terms))
    idf = {
        term: math.log(
            1.0
            + (stats.corpus_size - stats.document_frequencies.get(term, 0) + 0.5)
            / (stats.document_frequencies.get(term, 0) + 0.5)
        )
        for term in unique_terms
    }
    # Scores are ranked as plain tuples and only the kept ones become models: a query with
    # a common term has every chunk of the corpus as a candidate.
    scored: list[tuple[float, ChunkId]] = []
    for candidate in stats.candidates:
        norm = k1 * (1.0 - b + b * candidate.length / average)
        score = 0.0
        for term in unique_terms:
            frequency = candidate.term_frequencies.get(term, 0)
            if frequency:
                score += idf[term] * frequency * (k1 + 1.0) / (frequency + norm)
        if score > 0.0:
            scored.append((-score, candidate.chunk_id))
    scored.sort()
    kept = scored if limit is None else scored[:limit]
    return [RankedChunk(chunk_id=chunk, score=-negative) for negative, chunk in kept]
