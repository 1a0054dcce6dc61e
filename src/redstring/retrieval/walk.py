"""Personalised PageRank over a small graph of entities and passages: the graph signal.

HippoRAG's retrieval step (Gutiérrez et al., NeurIPS 2024, and its second version): a random
walk that restarts at the question's own nodes (the entities it names, the passages that read
like it) spreads their weight along the graph's links, so a passage two hops away (the one
about the director of the film the question names) gathers weight from every path to it,
and a node linked to everything (a country, a year) passes little to each of its many
neighbours. The walk is over what :mod:`redstring.retrieval.neighbourhood` read, a bounded
piece of the tenant's graph, never the whole of it.

Pure and deterministic: the same graph and restart weights give the same scores.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

__all__ = ["personalised_pagerank"]

NodeT = TypeVar("NodeT", bound=Hashable)


def personalised_pagerank(
    links: Mapping[NodeT, Mapping[NodeT, float]],
    restart: Mapping[NodeT, float],
    *,
    damping: float = 0.5,
    iterations: int = 30,
    tolerance: float = 1e-6,
) -> dict[NodeT, float]:
    """Each node's share of a walk that follows a link with probability ``damping`` and
    otherwise jumps back to a node drawn from ``restart``.

    ``links[u][v]`` is the weight of the link from ``u`` to ``v`` (give both directions for an
    undirected link); a walk leaves ``u`` along its links in proportion to their weights. A
    node without links sends its share back to the restart nodes. ``restart`` weights need not
    sum to one (they are normalised); nodes with none, and negative or zero weights, are
    ignored. Iterates until the scores move less than ``tolerance`` in total, at most
    ``iterations`` times. Returns every node reached with a positive score; the scores sum to
    one. An empty restart gives ``{}``.
    """
    total = sum(weight for weight in restart.values() if weight > 0)
    if total <= 0:
        return {}
    nodes: list[NodeT] = []
    index: dict[NodeT, int] = {}

    def at(node: NodeT) -> int:
        found = index.get(node)
        if found is None:
            found = index[node] = len(nodes)
            nodes.append(node)
        return found

    start = {at(node): weight / total for node, weight in restart.items() if weight > 0}
    out: list[list[tuple[int, float]]] = []
    for node, neighbours in links.items():
        source = at(node)
        weights = [(at(target), weight) for target, weight in neighbours.items() if weight > 0]
        while len(out) <= source:
            out.append([])
        norm = sum(weight for _, weight in weights)
        out[source] = [(target, weight / norm) for target, weight in weights] if norm else []
    out.extend([] for _ in range(len(nodes) - len(out)))
    score = [0.0] * len(nodes)
    for position, weight in start.items():
        score[position] = weight
    for _ in range(iterations):
        following = [0.0] * len(nodes)
        stranded = 0.0
        for position, mass in enumerate(score):
            if not mass:
                continue
            edges = out[position]
            if not edges:
                stranded += mass
                continue
            moving = damping * mass
            for target, share in edges:
                following[target] += moving * share
        back = (1.0 - damping) + damping * stranded
        for position, weight in start.items():
            following[position] += back * weight
        # Mass leaves only along links, so the total stays one up to rounding.
        change = sum(abs(a - b) for a, b in zip(following, score, strict=True))
        score = following
        if change < tolerance:
            break
    return {nodes[position]: value for position, value in enumerate(score) if value > 0}
