"""Lexical ranking: tokenisation and BM25 over the statistics a passage store returns."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from redstring.domain.chunk_ranking import (
    LexicalCandidate,
    LexicalCandidates,
    bm25,
    query_terms,
    selective_terms,
    term_frequencies,
    tokenize,
)
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import ChunkId

D1, D2, D3 = ChunkId("c1"), ChunkId("c2"), ChunkId("c3")


def _corpus() -> LexicalCandidates:
    """Three documents, statistics for the query terms ``cat`` and ``hat``.

    d1 "the cat sat" (3 tokens), d2 "the cat and the hat" (5), d3 "dogs bark" (2).
    N = 3, total length 10, so the average length is 10/3; df(cat) = 2, df(hat) = 1.
    d3 contains neither term, so it is not a candidate, but it counts in N and the average.
    """
    return LexicalCandidates(
        corpus_size=3,
        total_length=10,
        document_frequencies={"cat": 2, "hat": 1},
        candidate_terms=["hat", "cat"],
        candidates=[
            LexicalCandidate(chunk_id=D1, length=3, term_frequencies={"cat": 1}),
            LexicalCandidate(chunk_id=D2, length=5, term_frequencies={"cat": 1, "hat": 1}),
        ],
    )


class TestTokenize:
    """One tokeniser for every store, so term statistics mean the same everywhere."""

    def test_words_are_casefolded_and_punctuation_separates(self) -> None:
        """Case and punctuation never make two spellings of one word differ."""
        assert tokenize("Ada LOVELACE, ada-lovelace!") == ["ada", "lovelace", "ada", "lovelace"]

    def test_unicode_words_survive_and_fold(self) -> None:
        """Accented and non-Latin words are tokens; casefold maps ß to ss."""
        assert tokenize("Café CAFÉ Straße 東京 Zürich") == [
            "café",
            "café",
            "strasse",
            "東京",
            "zürich",
        ]

    def test_digits_are_tokens_and_blank_text_has_none(self) -> None:
        """Numbers are searchable; whitespace and punctuation alone yield nothing."""
        assert tokenize("Room 101 in 1984") == ["room", "101", "in", "1984"]
        assert tokenize("  ... !!! \n") == []

    def test_term_frequencies_count_tokens(self) -> None:
        """Counts are over folded tokens."""
        assert term_frequencies("The cat and THE hat") == {"the": 2, "cat": 1, "and": 1, "hat": 1}

    def test_query_terms_are_distinct_in_first_seen_order(self) -> None:
        """A repeated query word is asked for once."""
        assert query_terms("Hat cat hat CAT dog") == ["hat", "cat", "dog"]


class TestBm25:
    """Okapi BM25 with the non-negative IDF, against hand-computed values."""

    def test_scores_match_the_hand_computed_oracle(self) -> None:
        """k1 = 1.2, b = 0.75.

        idf(cat) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln 1.6
        idf(hat) = ln(1 + (3 - 1 + 0.5) / (1 + 0.5)) = ln(8/3)
        d1: K = 1.2 * (0.25 + 0.75 * 3 / (10/3)) = 1.11; score = ln 1.6 * 2.2 / 2.11
        d2: K = 1.2 * (0.25 + 0.75 * 5 / (10/3)) = 1.65;
            score = (ln 1.6 + ln(8/3)) * 2.2 / 2.65
        """
        ranked = bm25(_corpus(), ["cat", "hat"])
        assert [hit.chunk_id for hit in ranked] == [D2, D1]
        assert ranked[0].score == pytest.approx((math.log(1.6) + math.log(8 / 3)) * 2.2 / 2.65)
        assert ranked[1].score == pytest.approx(math.log(1.6) * 2.2 / 2.11)
        assert ranked[0].score == pytest.approx(1.2044650, abs=1e-6)
        assert ranked[1].score == pytest.approx(0.4900512, abs=1e-6)

    def test_k1_zero_makes_a_term_worth_its_idf(self) -> None:
        """With no term-frequency saturation each matching term adds exactly its IDF."""
        ranked = bm25(_corpus(), ["cat", "hat"], k1=0.0)
        assert {hit.chunk_id: hit.score for hit in ranked} == pytest.approx(
            {D2: math.log(1.6) + math.log(8 / 3), D1: math.log(1.6)}
        )

    def test_b_zero_ignores_length(self) -> None:
        """Without length normalisation, equal term counts give equal scores."""
        ranked = bm25(_corpus(), ["cat"], b=0.0)
        assert ranked[0].score == pytest.approx(ranked[1].score)
        assert ranked[0].score == pytest.approx(math.log(1.6) * 2.2 / 2.2)

    def test_a_repeated_query_term_counts_once(self) -> None:
        """``cat cat`` ranks exactly like ``cat``."""
        assert bm25(_corpus(), ["cat", "cat"]) == bm25(_corpus(), ["cat"])

    def test_a_term_no_chunk_contains_adds_nothing(self) -> None:
        """df = 0 (absent or explicit): no error, and no score from that term."""
        stats = _corpus()
        stats.document_frequencies["unicorn"] = 0
        with_unseen = bm25(stats, ["cat", "unicorn", "griffin"])
        assert with_unseen == bm25(_corpus(), ["cat"])
        assert bm25(_corpus(), ["griffin"]) == []

    def test_ties_are_broken_by_ascending_chunk_id(self) -> None:
        """Identical statistics give identical scores; the id decides, the same on every run."""
        same = {"cat": 1}
        stats = LexicalCandidates(
            corpus_size=4,
            total_length=8,
            document_frequencies={"cat": 3},
            candidate_terms=["cat"],
            candidates=[
                LexicalCandidate(chunk_id=ChunkId("cb"), length=2, term_frequencies=same),
                LexicalCandidate(chunk_id=ChunkId("cc"), length=2, term_frequencies=same),
                LexicalCandidate(chunk_id=ChunkId("ca"), length=2, term_frequencies=same),
            ],
        )
        assert [hit.chunk_id for hit in bm25(stats, ["cat"])] == ["ca", "cb", "cc"]
        assert [hit.chunk_id for hit in bm25(stats, ["cat"], limit=2)] == ["ca", "cb"]

    def test_limit_keeps_the_best(self) -> None:
        """``limit`` truncates after ranking; zero asks for nothing."""
        assert [hit.chunk_id for hit in bm25(_corpus(), ["cat", "hat"], limit=1)] == [D2]
        assert bm25(_corpus(), ["cat", "hat"], limit=0) == []

    def test_an_empty_corpus_ranks_nothing(self) -> None:
        """No chunks, no division by zero."""
        empty = LexicalCandidates(
            corpus_size=0,
            total_length=0,
            document_frequencies={},
            candidate_terms=[],
            candidates=[],
        )
        assert bm25(empty, ["cat"]) == []

    @pytest.mark.parametrize(
        ("arguments", "named"),
        [
            ({"k1": -0.1}, "k1"),
            ({"b": -0.01}, "b must be within"),
            ({"b": 1.01}, "b must be within"),
            ({"limit": -1}, "limit"),
        ],
    )
    def test_out_of_range_parameters_are_typed_errors(
        self, arguments: dict[str, float], named: str
    ) -> None:
        """Each message names the parameter and the value given."""
        with pytest.raises(InvalidArgumentError, match=named):
            bm25(_corpus(), ["cat"], **arguments)

    @given(
        st.lists(
            st.tuples(st.integers(1, 30), st.integers(0, 5), st.integers(0, 5)),
            min_size=1,
            max_size=12,
        ),
        st.floats(0.0, 3.0),
        st.floats(0.0, 1.0),
    )
    def test_results_are_positive_and_in_rank_order(
        self, rows: list[tuple[int, int, int]], k1: float, b: float
    ) -> None:
        """Scores are positive, descending, and equal scores are in ascending id order."""
        candidates = [
            LexicalCandidate(
                chunk_id=ChunkId(f"c{index:03d}"),
                length=length,
                term_frequencies={"x": min(x, length), "y": min(y, length)},
            )
            for index, (length, x, y) in enumerate(rows)
        ]
        stats = LexicalCandidates(
            corpus_size=len(rows) + 1,
            total_length=sum(length for length, _, _ in rows),
            document_frequencies={
                term: sum(1 for c in candidates if c.term_frequencies[term]) for term in "xy"
            },
            candidate_terms=["x", "y"],
            candidates=candidates,
        )
        ranked = bm25(stats, ["x", "y"], k1=k1, b=b)
        assert all(hit.score > 0 for hit in ranked)
        keys = [(-hit.score, hit.chunk_id) for hit in ranked]
        assert keys == sorted(keys)
        matching = {c.chunk_id for c in candidates if any(c.term_frequencies.values())}
        assert {hit.chunk_id for hit in ranked} == matching


def test_statistics_reject_negative_counts_and_unknown_fields() -> None:
    """A store handing back a negative length or a misspelt field fails loudly."""
    with pytest.raises(ValidationError):
        LexicalCandidate(chunk_id=D1, length=-1, term_frequencies={})
    with pytest.raises(ValidationError):
        LexicalCandidates.model_validate(
            {
                "corpus_size": 1,
                "total_length": 1,
                "document_frequencies": {},
                "candidate_terms": [],
                "candidates": [],
                "avg": 1,
            }
        )


class TestSelectiveTerms:
    """Which terms' chunks a store fetches: rarest first, within a budget of postings."""

    def test_terms_are_taken_rarest_first_while_the_postings_fit(self) -> None:
        """The running sum of document frequencies stops at the budget; ties go by term."""
        frequencies = {"the": 900, "cat": 40, "hat": 40, "sat": 300, "unseen": 0}
        assert selective_terms(frequencies, None) == ["cat", "hat", "sat", "the"]
        assert selective_terms(frequencies, 380) == ["cat", "hat", "sat"]
        assert selective_terms(frequencies, 379) == ["cat", "hat"]
        assert selective_terms(frequencies, 40) == ["cat"]
        assert selective_terms(frequencies, 39) == []
        assert selective_terms(frequencies, 0) == []

    def test_a_term_no_chunk_holds_is_never_chosen(self) -> None:
        """A zero frequency has no postings to read, so it never takes part."""
        assert selective_terms({"absent": 0}, None) == []

    def test_a_negative_budget_is_a_typed_error(self) -> None:
        """The message names the parameter and the value."""
        with pytest.raises(InvalidArgumentError, match="posting_budget must be non-negative"):
            selective_terms({"cat": 1}, -1)
