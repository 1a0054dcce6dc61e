"""Generated sequences of ingests, imports and deletions across two tenants.

After any sequence, every store holds exactly what the folded log says, a rebuild arrives at
the same state, and no tenant's reads show another tenant's data.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redstring import KnowledgeGraph, tenant_id
from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ingest.service import IngestSettings
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.index_checks import checking_indexes
from tests.ingest_support import (
    CITIES,
    ORGS,
    PEOPLE,
    VocabularyExtractor,
    assert_projections_match_history,
    store_state,
)

TENANTS = ("t1", "t2")
SOURCES = ("a.md", "b.md", "c.md")

sentences = st.one_of(
    st.builds("{} works for {}.".format, st.sampled_from(PEOPLE), st.sampled_from(ORGS)),
    st.builds("{} visited {}.".format, st.sampled_from(PEOPLE), st.sampled_from(CITIES)),
    st.builds(
        "{} met {} at {}.".format,
        st.sampled_from(PEOPLE),
        st.sampled_from(PEOPLE),
        st.sampled_from(ORGS),
    ),
)
documents = st.lists(sentences, min_size=1, max_size=5).map(" ".join)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("ingest"), st.sampled_from(TENANTS), st.sampled_from(SOURCES), documents),
        st.tuples(
            st.just("delete"), st.sampled_from(TENANTS), st.sampled_from(SOURCES), st.just("")
        ),
        st.tuples(
            st.just("import"),
            st.sampled_from(TENANTS),
            st.sampled_from(("crm", "erp")),
            st.sampled_from(PEOPLE),
        ),
    ),
    min_size=1,
    max_size=8,
)


async def check_history(kg: KnowledgeGraph, ops: list[tuple[str, str, str, str]]) -> None:
    """Run ``ops``; then stores match the log, a rebuild matches them, tenants stay apart."""
    written: dict[str, set[str]] = {tenant: set() for tenant in TENANTS}
    for kind, tenant, source, payload in ops:
        if kind == "ingest":
            await kg.ingest(tenant, source, payload)
            written[tenant].add(source)
        elif kind == "delete":
            await kg.delete_source(tenant, source)
            written[tenant].discard(source)
        else:
            await kg.import_records(
                tenant,
                [
                    {
                        "kind": "entity",
                        "ref": "r1",
                        "type": "Person",
                        "name": payload,
                        "source": source,
                    }
                ],
            )
            written[tenant].add(source)
    for tenant in TENANTS:
        await assert_projections_match_history(kg, tenant)
        incremental = await store_state(kg, tenant)
        await kg.rebuild(tenant)
        assert await store_state(kg, tenant) == incremental
        snapshot = await kg.export(tenant)
        for item in snapshot.entities:
            assert set(item.sources) <= written[tenant]
        assert {p.source_id for p in snapshot.passages} <= written[tenant]
        other = tenant_id(next(t for t in TENANTS if t != tenant))
        for item in snapshot.entities:
            assert await kg.graph.get_entity(other, item.entity.id) is None
            assert await kg.vectors.get(other, item.entity.id) is None
            assert await kg.chunks.get_by_entity(other, item.entity.id) == []
            assert await kg.graph.neighbours(other, item.entity.id) == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
async def test_incremental_state_equals_rebuilt_state_and_tenants_stay_apart(
    ops: list[tuple[str, str, str, str]],
) -> None:
    """Whatever happened, the stores match the log, a rebuild matches them, tenants are apart."""
    await check_history(_checking_indexes_in_memory(), ops)


def _checking_indexes_in_memory() -> KnowledgeGraph:
    """``KnowledgeGraph.in_memory``'s adapters, each checking its indexes against its rows
    after every call (``tests.index_checks``), so a history that leaves a projection's index
    half-updated fails at the call that did it."""
    embeddings = FakeEmbeddingProvider(dimension=8)
    return KnowledgeGraph(
        graph=checking_indexes(InMemoryGraphStore)(),
        vectors=checking_indexes(InMemoryVectorStore)(dimension=embeddings.dimension),
        chunks=checking_indexes(InMemoryChunkStore)(),
        events=checking_indexes(InMemoryEventLog)(),
        embeddings=embeddings,
        extractor=VocabularyExtractor(),
        settings=IngestSettings(chunk_chars=40, chunk_overlap=0),
        passage_vectors=checking_indexes(InMemoryVectorStore)(dimension=embeddings.dimension),
    )
