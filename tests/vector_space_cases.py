"""The embedding model is part of every vector's identity (ADR 0047). Run on every backend
through ``graph_with``: two graphs of different models over the same database stand for a
deployment before and after its embedding model changed.

What must hold: a tenant embedded with one model is never searched with another model's
query vector, keeps answering (without vector search, saying so) and gets no vectors of the
second model beside the first, until ``rebuild`` re-embeds it; deleting or rebuilding a
tenant leaves none of its vectors in any model's stores.
"""

from __future__ import annotations

from redstring import KnowledgeGraph
from redstring.domain.ids import tenant_id
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.vector_store import VectorStore
from redstring.projections.checkpoints import GENERATION
from redstring.projections.vector_space import space_name
from redstring.retrieval.results import ENTITY_VECTOR, PASSAGE_VECTOR

T = "acme"
OTHER = "globex"
THIRD = "initech"
OLD = FakeEmbeddingProvider(dimension=16, model="fake/old-16")
NEW = FakeEmbeddingProvider(dimension=24, model="fake/new-24")
FIRST = "Amara Okafor works for Okafor Labs in Lagos."
SECOND = "Chen Wei works for Northwind in Osaka."
QUESTION = "Who works for Okafor Labs?"


async def holds(store: VectorStore | None, tenant: str, dimension: int) -> bool:
    """Whether ``store`` holds any vector of ``tenant``."""
    assert store is not None
    probe = [1.0] + [0.0] * (dimension - 1)
    return bool(await store.search(tenant_id(tenant), probe, k=1))


class VectorSpaceCases:
    """Every case runs on each backend."""

    async def graph_with(self, embeddings: EmbeddingProvider) -> KnowledgeGraph:
        """A graph with ``embeddings`` over the case's database: every call of one case
        shares the event log, graph and passage stores; each model has its own vectors."""
        raise NotImplementedError

    async def test_a_new_model_answers_without_vector_search_until_rebuild(self) -> None:
        """After the model changes, a tenant keeps answering from BM25, names and the graph,
        its result says to rebuild, and the new model's stores get none of its vectors; a
        rebuild re-embeds it and vector search is back."""
        old = await self.graph_with(OLD)
        await old.ingest(T, "first.md", FIRST)
        before = await old.query(T, QUESTION)
        assert before.notices == ()
        assert before.signal_hits[PASSAGE_VECTOR] > 0

        new = await self.graph_with(NEW)
        stale = await new.query(T, QUESTION)
        assert stale.passages, "BM25 and names still answer"
        assert stale.signal_hits[PASSAGE_VECTOR] == stale.signal_hits[ENTITY_VECTOR] == 0
        assert len(stale.notices) == 1
        assert "fake/new-24" in stale.notices[0]
        assert "rebuild" in stale.notices[0]
        assert await new.vector_notice(T) == stale.notices[0]
        answer = await new.ask(T, QUESTION)
        assert answer.context.notices == stale.notices

        await new.ingest(T, "second.md", SECOND)
        assert not await holds(new.passage_vectors, T, NEW.dimension)
        assert not await holds(new.vectors, T, NEW.dimension)

        await new.rebuild(T)
        current = await new.query(T, QUESTION)
        assert current.notices == ()
        assert current.signal_hits[PASSAGE_VECTOR] > 0
        assert await new.vector_notice(T) is None
        assert await holds(new.passage_vectors, T, NEW.dimension)

    async def test_a_rebuild_under_a_new_model_retires_the_old_ones_vectors(self) -> None:
        """Once another model rebuilt the tenant, the old model's graph says it is stale and
        its stores hold nothing of the tenant; another tenant keeps its old vectors."""
        old = await self.graph_with(OLD)
        await old.ingest(T, "first.md", FIRST)
        await old.ingest(OTHER, "first.md", FIRST)
        new = await self.graph_with(NEW)
        await new.rebuild(T)
        assert (await old.query(T, QUESTION)).notices != ()
        assert not await holds(old.passage_vectors, T, OLD.dimension)
        assert not await holds(old.vectors, T, OLD.dimension)
        assert (await old.query(OTHER, QUESTION)).notices == ()
        assert await holds(old.passage_vectors, OTHER, OLD.dimension)
        assert (await new.query(OTHER, QUESTION)).notices != ()

    async def test_deleting_a_tenant_empties_every_models_vectors(self) -> None:
        """A deleted tenant leaves no entity or passage vector in its model's stores, and one
        deleted through the new model's graph none in the old one's either (the right to
        erasure covers retired models); other tenants keep theirs."""
        old = await self.graph_with(OLD)
        for tenant in (T, OTHER, THIRD):
            await old.ingest(tenant, "first.md", FIRST)
        await old.delete_tenant(THIRD)
        assert not await holds(old.passage_vectors, THIRD, OLD.dimension)
        assert not await holds(old.vectors, THIRD, OLD.dimension)
        new = await self.graph_with(NEW)
        await new.delete_tenant(T)
        assert not await holds(old.passage_vectors, T, OLD.dimension)
        assert not await holds(old.vectors, T, OLD.dimension)
        assert await holds(old.passage_vectors, OTHER, OLD.dimension)
        await new.ingest(T, "first.md", FIRST)
        assert (await new.query(T, QUESTION)).notices == ()

    async def test_a_tenant_projected_before_models_were_recorded(self) -> None:
        """A tenant whose log records no model keeps its vectors where its stores hold them,
        and is stale for a model whose stores hold none."""
        old = await self.graph_with(OLD)
        await old.ingest(T, "first.md", FIRST)
        key = tenant_id(T)
        # What a version before ADR 0047 left: the projections' position and nothing else.
        await old.events.save_checkpoint(key, space_name(OLD), 0)
        await old.events.save_checkpoint(key, GENERATION, 0)
        new = await self.graph_with(NEW)
        assert (await new.query(T, QUESTION)).notices != ()
        claimed = await old.query(T, QUESTION)
        assert claimed.notices == ()
        assert claimed.signal_hits[PASSAGE_VECTOR] > 0
        assert (await new.query(T, QUESTION)).notices != ()

    async def test_a_write_without_vectors_makes_an_unrecorded_tenant_stale_for_all(
        self,
    ) -> None:
        """When a model whose stores hold nothing of an unrecorded tenant projects a write,
        no model's vectors cover the log any more: the old model may not claim it after."""
        old = await self.graph_with(OLD)
        await old.ingest(T, "first.md", FIRST)
        key = tenant_id(T)
        await old.events.save_checkpoint(key, space_name(OLD), 0)
        await old.events.save_checkpoint(key, GENERATION, 0)
        new = await self.graph_with(NEW)
        await new.ingest(T, "second.md", SECOND)
        assert not await holds(new.passage_vectors, T, NEW.dimension)
        assert (await old.query(T, QUESTION)).notices != ()
        await old.rebuild(T)
        assert (await old.query(T, QUESTION)).notices == ()

    async def test_a_new_tenant_is_claimed_by_its_first_ingest_not_by_a_query(self) -> None:
        """Asking a tenant that holds nothing decides nothing: the model that first ingests
        into it is the tenant's."""
        old = await self.graph_with(OLD)
        assert (await old.query(T, QUESTION)).notices == ()
        new = await self.graph_with(NEW)
        await new.ingest(T, "first.md", FIRST)
        assert (await new.query(T, QUESTION)).notices == ()
        assert (await old.query(T, QUESTION)).notices != ()
