"""The checkpoints the projections keep per tenant in the event log (``EventLog.checkpoint``).

* :data:`PROJECTIONS`: the position up to which the graph, vector and passage stores hold the
  tenant's events (:mod:`redstring.projections.projector`).
* :data:`GENERATION`: how many times those projections started from nothing under a recorded
  embedding model; each model's vectors name the generation they follow
  (:mod:`redstring.projections.vector_space`).
"""

from __future__ import annotations

__all__ = ["GENERATION", "PROJECTIONS"]

PROJECTIONS = "projections"
"""The position the three store projections have applied the tenant's log up to."""

GENERATION = "projections generation"
"""The count of starts of the tenant's projections under a recorded embedding model."""
