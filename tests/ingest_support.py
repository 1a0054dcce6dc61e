"""Test support for the core: a vocabulary extractor that counts calls, store snapshots, and
one set of in-memory stores that several KnowledgeGraphs share (as processes share a database).

``VocabularyExtractor`` is a deterministic Extractor for generated documents: it reports every
known name that occurs in a passage and a ``WORKS_FOR`` edge for each person and organisation
of one sentence that contains "works for". It counts calls, so tests can assert "no model
call" on re-ingest and rebuild, and can be told to fail on chosen passages.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from redstring import KnowledgeGraph, tenant_id
from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.extraction import ExtractedEntity, ExtractedRelationship, Extraction
from redstring.domain.schema import Schema
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ingest.service import IngestSettings
from redstring.ports.errors import MalformedCompletionError
from redstring.vector.adapters.memory import InMemoryVectorStore

PEOPLE = ("Amara Okafor", "Bruno Diaz", "Chen Wei", "Dana Ivers", "Eli Stone", "Farah Nasser")
ORGS = ("Okafor Labs", "Northwind", "Bluefin Systems", "Harbor Bank")
CITIES = ("Lagos", "Lisbon", "Osaka")


@dataclass
class VocabularyExtractor:
    """Finds known names by substring; counts calls; fails on texts containing ``fail_on``."""

    people: Sequence[str] = PEOPLE
    orgs: Sequence[str] = ORGS
    cities: Sequence[str] = CITIES
    fail_on: set[str] = field(default_factory=set)
    calls: int = 0
    model_name: str = "test/vocabulary-1"

    @property
    def model(self) -> str:
        return self.model_name

    async def extract(self, text: str, schema: Schema) -> Extraction:
        self.calls += 1
        for marker in self.fail_on:
            if marker in text:
                raise MalformedCompletionError(f"scripted failure for {marker!r}")
        entities: list[ExtractedEntity] = []
        for kind, names in (
            ("Person", self.people),
            ("Organization", self.orgs),
            ("Location", self.cities),
        ):
            for name in names:
                if name in text:
                    entities.append(ExtractedEntity(name=name, type=kind))
        relationships = []
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            if "works for" not in sentence:
                continue
            people = [n for n in self.people if n in sentence]
            orgs = [n for n in self.orgs if n in sentence]
            for person in people:
                for org in orgs:
                    relationships.append(
                        ExtractedRelationship(subject=person, type="WORKS_FOR", object=org)
                    )
        return Extraction(entities=entities, relationships=relationships)


class SharedStores:
    """In-memory stores that several KnowledgeGraphs open at once: each graph stands for a
    process (its own folded histories and locks) over the same database."""

    def __init__(self) -> None:
        self.graph = InMemoryGraphStore()
        self.vectors = InMemoryVectorStore(dimension=8)
        self.chunks = InMemoryChunkStore()
        self.events = InMemoryEventLog()

    def process(
        self,
        extractor: Any,
        *,
        wrap: Callable[[Any], Any] = lambda port: port,
        settings: IngestSettings | None = None,
    ) -> KnowledgeGraph:
        """A "process" over the stores; ``wrap`` wraps each store port (fault injection)."""
        return KnowledgeGraph(
            graph=wrap(self.graph),
            vectors=wrap(self.vectors),
            chunks=wrap(self.chunks),
            events=wrap(self.events),
            embeddings=FakeEmbeddingProvider(dimension=8),
            extractor=extractor,
            settings=settings or IngestSettings(chunk_chars=60, chunk_overlap=0),
        )


async def store_state(kg: KnowledgeGraph, tenant: str) -> dict[str, Any]:
    """Everything the three projections hold for ``tenant``, read through the ports only."""
    key = tenant_id(tenant)
    entities = []
    after = None
    while True:
        page = await kg.graph.find_entities(key, limit=200, after=after)
        if not page:
            break
        entities.extend(page)
        after = page[-1].id
    ids = [entity.id for entity in entities]
    relationships = await kg.graph.get_relationships_for(key, ids) if ids else []
    aliases = {
        str(i): [a.model_dump(mode="json") for a in await kg.graph.find_aliases(key, i)]
        for i in ids
    }
    vectors = {}
    for entity_id in ids:
        record = await kg.vectors.get(key, entity_id)
        vectors[str(entity_id)] = (
            None
            if record is None
            else (
                [round(x, 5) for x in record.vector],
                record.metadata,
            )
        )
    sources = await kg.chunks.list_sources(key)
    passages = {
        source: [c.model_dump(mode="json") for c in await kg.chunks.get_by_source(key, source)]
        for source in sorted(sources)
    }
    return {
        "entities": [e.model_dump(mode="json") for e in entities],
        "relationships": sorted(
            (r.model_dump(mode="json") for r in relationships), key=lambda r: r["id"]
        ),
        "aliases": aliases,
        "vectors": vectors,
        "passages": passages,
    }


async def assert_projections_match_history(kg: KnowledgeGraph, tenant: str) -> None:
    """The stores hold exactly what the folded log says: entities, edges, aliases, vectors."""
    history = await kg.history(tenant)
    state = await store_state(kg, tenant)
    expected_entities = sorted(
        (h.entity.model_dump(mode="json") for h in history.entities.values()),
        key=lambda e: e["id"],
    )
    assert state["entities"] == expected_entities
    expected_edges = sorted(
        (h.relationship.model_dump(mode="json") for h in history.relationships.values()),
        key=lambda r: r["id"],
    )
    assert state["relationships"] == expected_edges
    assert set(state["vectors"]) == {str(i) for i in history.entities}
    assert all(vector is not None for vector in state["vectors"].values())
    for entity_id in history.entities:
        expected = [a.model_dump(mode="json") for a in history.aliases_of(entity_id)]
        assert state["aliases"][str(entity_id)] == expected
    live = set(history.entities)
    for passages in state["passages"].values():
        for passage in passages:
            assert {uuid.UUID(i) for i in passage["entity_ids"]} <= live
    expected_sources = {s for s, h in history.sources.items() if h.chunk_ids}
    assert set(state["passages"]) == expected_sources


class NicknameResolver:
    """Exact names, plus a table of nicknames matched as audited merges (a test resolver)."""

    def __init__(self, nicknames: dict[str, str]) -> None:
        from redstring.ingest.resolution import ExactNameResolver

        self._exact = ExactNameResolver()
        self._nicknames = nicknames

    async def resolve(
        self, graph: Any, tenant: Any, mentions: Sequence[Any], context: Any = None
    ) -> list[Any]:
        from dataclasses import replace

        from redstring.ingest.resolution import Mention, exact_name_key

        proxies = [
            Mention(
                type=m.type,
                name=self._nicknames.get(m.name, m.name),
                attributes=m.attributes,
                description=m.description,
                source_id=m.source_id,
                chunk_id=m.chunk_id,
                ref=m.ref,
            )
            for m in mentions
        ]
        decisions = await self._exact.resolve(graph, tenant, proxies)
        found = []
        for decision, mention in zip(decisions, mentions, strict=True):
            if mention.name in self._nicknames and decision.entity_id is not None:
                decision = replace(
                    decision,
                    rule="nickname",
                    score=0.97,
                    explanation={"name": exact_name_key(mention.type, mention.name)},
                    audited=True,
                )
            found.append(decision)
        return found
