"""Personalised PageRank: the oracle of a small graph, mass, restart, bounded reads."""

from __future__ import annotations

import pytest

from redstring.retrieval.walk import personalised_pagerank


def undirected(*edges: tuple[str, str]) -> dict[str, dict[str, float]]:
    links: dict[str, dict[str, float]] = {}
    for a, b in edges:
        links.setdefault(a, {})[b] = 1.0
        links.setdefault(b, {})[a] = 1.0
    return links


def test_a_path_of_three_matches_the_closed_form() -> None:
    """On a - b - c restarting at a with damping d, the stationary scores solve
    pa = (1-d) + d*pb/2, pb = d*(pa + pc), pc = d*pb/2 (computed by hand here)."""
    d = 0.5
    scores = personalised_pagerank(
        undirected(("a", "b"), ("b", "c")), {"a": 1.0}, damping=d, iterations=200, tolerance=0
    )
    pb = d * (1 - d) / (1 - d * d)
    pc = d * pb / 2
    pa = (1 - d) + d * pb / 2
    assert scores["a"] == pytest.approx(pa)
    assert scores["b"] == pytest.approx(pb)
    assert scores["c"] == pytest.approx(pc)
    assert sum(scores.values()) == pytest.approx(1.0)


def test_a_hub_passes_little_to_each_neighbour() -> None:
    """Two passages two hops from the seed: the one behind a rare entity outscores the one
    behind an entity named by many passages."""
    links = undirected(
        ("seed", "p0"),
        ("p0", "rare"),
        ("p0", "hub"),
        ("rare", "p_rare"),
        *[("hub", f"p_hub{n}") for n in range(10)],
    )
    scores = personalised_pagerank(links, {"seed": 1.0})
    assert scores["p_rare"] > scores["p_hub0"] > 0


def test_mass_is_kept_and_a_node_without_links_sends_it_back() -> None:
    """Scores sum to one; a node with no links sends all it holds back to the restart, so with
    restart weights 2 and 2 (normalised to halves) and damping 0.5 the lonely node holds x with
    x = (0.5 * (1 - x) + x) / 2, that is 1/3."""
    scores = personalised_pagerank(undirected(("a", "b")), {"a": 2.0, "lonely": 2.0})
    assert sum(scores.values()) == pytest.approx(1.0)
    assert scores["lonely"] == pytest.approx(1 / 3, abs=1e-4)
    assert personalised_pagerank(undirected(("a", "b")), {}) == {}
    assert personalised_pagerank(undirected(("a", "b")), {"a": 0.0}) == {}


def test_it_is_deterministic() -> None:
    links = undirected(("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"))
    assert personalised_pagerank(links, {"a": 1.0, "d": 0.5}) == personalised_pagerank(
        links, {"a": 1.0, "d": 0.5}
    )
