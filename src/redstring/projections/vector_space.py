"""Which embedding model made a tenant's vectors: the model is part of every vector's identity.

Vectors of two models are not comparable, so a tenant's vector stores must hold the vectors
of one model, and a question must be embedded with that model (ADR 0047). The stores cannot
say which model wrote a row, so the event log's checkpoints record it, per tenant, beside the
projections' own position:

* ``projections generation`` counts the times the tenant's projections started from nothing
  under a known model (its first projection, every ``rebuild``);
* ``vectors <model> <dimension>``, one per model, holds the generation that model's vectors
  follow from the start.

A model's vectors are *current* for a tenant when its marker equals the generation: every
event the projections applied was embedded by that model. They are not when another model's
projection started the generation (a ``rebuild`` elsewhere), or when the tenant was projected
by a version of redstring that recorded no model and this model's stores hold nothing for it
(the per-model tables of :meth:`redstring.KnowledgeGraph.on_postgres` are new; each read
probes them again, one search per store, until a write or a rebuild settles it). Such a tenant
keeps working without vector search, and ``rebuild`` re-embeds it with the configured model;
a tenant projected before the record existed whose stores do hold its vectors is taken to be
this model's (they are the stores it was configured with), and recorded as such.

A new tenant is claimed by the first projection that applies one of its events. Two processes
with different models starting the same new tenant at the same moment can both claim it; give
every process of one deployment the same model.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence

from redstring.domain.ids import TenantId
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.event_log import EventLog
from redstring.ports.vector_store import VectorStore
from redstring.projections.checkpoints import GENERATION, PROJECTIONS

__all__ = ["VectorSpace", "space_key", "space_name"]

_LONGEST_NAME = 256


def space_name(embeddings: EmbeddingProvider) -> str:
    """The checkpoint naming a model's vectors: ``"vectors <model> <dimension>"``.

    A name past the checkpoint limit (256 characters) is shortened to a SHA-256 of itself.
    """
    name = f"vectors {embeddings.model} {embeddings.dimension}"
    if len(name) <= _LONGEST_NAME:
        return name
    return "vectors sha256:" + hashlib.sha256(name.encode()).hexdigest()


def space_key(embeddings: EmbeddingProvider) -> str:
    """A short SQL-safe key of the model and dimension: ``v`` and 8 hexadecimal digits.

    Stores that keep each model's vectors apart (one table per model) name them with it.
    """
    identity = f"{embeddings.model}\x1f{embeddings.dimension}"
    return "v" + hashlib.sha256(identity.encode()).hexdigest()[:8]


class VectorSpace:
    """The record of which model's vectors a tenant's projections hold.

    ``stores`` are the vector stores this model's projection writes (entities, passages):
    they are asked, once per tenant, whether a tenant projected before models were recorded
    has vectors there. Reads and writes only checkpoints of the tenant.
    """

    def __init__(
        self,
        events: EventLog,
        embeddings: EmbeddingProvider,
        stores: Sequence[VectorStore] = (),
    ) -> None:
        self._events = events
        self._name = space_name(embeddings)
        self._model = embeddings.model
        self._dimension = embeddings.dimension
        self._stores = tuple(stores)

    @property
    def name(self) -> str:
        """The checkpoint name of this model's marker."""
        return self._name

    @property
    def model(self) -> str:
        """The embedding model whose vectors this space holds."""
        return self._model

    async def current(self, tenant: TenantId) -> bool:
        """True when the tenant's vectors are this model's, or it has none yet.

        Never claims a new tenant (a read must not decide the model of a later ingest); a
        tenant projected before models were recorded is settled here, once.
        """
        generation, marker = await asyncio.gather(
            self._events.checkpoint(tenant, GENERATION),
            self._events.checkpoint(tenant, self._name),
        )
        if generation > 0:
            return marker == generation
        position = await self._events.checkpoint(tenant, PROJECTIONS)
        if position == 0:
            return True
        return await self._settle_unrecorded(tenant, projecting=False)

    async def enter(self, tenant: TenantId, position: int) -> bool:
        """Before projecting events after ``position``: may this model's vectors be written?

        A tenant never projected (``position`` 0, no generation) is claimed for this model.
        """
        generation, marker = await asyncio.gather(
            self._events.checkpoint(tenant, GENERATION),
            self._events.checkpoint(tenant, self._name),
        )
        if generation > 0:
            return marker == generation
        if position == 0:
            await self._start(tenant, 1)
            return True
        return await self._settle_unrecorded(tenant, projecting=True)

    async def restart(self, tenant: TenantId) -> None:
        """A new generation that only this model follows (``rebuild``, after emptying)."""
        generation = await self._events.checkpoint(tenant, GENERATION)
        await self._start(tenant, generation + 1)

    def stale_notice(self, tenant: TenantId) -> str:
        """What a caller is told when the tenant's vectors are another model's."""
        return (
            f"tenant {str(tenant)!r} was embedded with another model than {self._model} "
            f"({self._dimension} dimensions), or before the model was recorded: vector search "
            "is off for it (BM25, names and the graph still answer) until rebuild re-embeds "
            f"it (KnowledgeGraph.rebuild, or `redstring rebuild --tenant {tenant}`)"
        )

    async def _start(self, tenant: TenantId, generation: int) -> None:
        # The marker first: a crash between the two writes leaves the old generation, which
        # this marker does not match, so the tenant reads as stale rather than as current.
        await self._events.save_checkpoint(tenant, self._name, generation)
        await self._events.save_checkpoint(tenant, GENERATION, generation)

    async def _settle_unrecorded(self, tenant: TenantId, *, projecting: bool) -> bool:
        """A tenant projected before models were recorded: this model's if its stores hold
        vectors for it (they are the ones it was projected into), else stale.

        A read records only the first outcome, so the model that did embed the tenant can
        still claim it; a projection about to apply events without vectors records the
        second, since from then on no model's vectors cover the whole log.
        """
        if await self._holds_vectors(tenant):
            await self._start(tenant, 1)
            return True
        if projecting:
            await self._events.save_checkpoint(tenant, GENERATION, 1)
        return False

    async def _holds_vectors(self, tenant: TenantId) -> bool:
        probe = [1.0] + [0.0] * (self._dimension - 1)
        for store in self._stores:
            if await store.search(tenant, probe, k=1):
                return True
        return False
