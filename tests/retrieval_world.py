"""A small tenant for retrieval tests, and the behaviours every set of stores must show.

``RetrievalBehaviour`` is run against the in-memory stores (tests/unit/retrieval) and against
PostgreSQL (tests/integration/postgres): a subclass supplies ``stores()``. The world is
written through the ports the way the core projects it: entities embedded from
``"{name} ({type}). {aliases}. {description}"`` with metadata ``{"entity_type", "name"}``,
passages through ``project_passage_vectors``, chunks naming the entities resolved from them.

``WordVectors`` is an embedding provider whose vectors are hashed bags of words, so texts
sharing words are close: a test double with the port's contract and a little meaning, where
the hash fake has none.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from redstring import KnowledgeGraph
from redstring.cache.adapters.memory import MemoryCache
from redstring.domain.blocking import blocking_keys
from redstring.domain.chunk_ranking import tokenize
from redstring.domain.chunks import StoredChunk, chunk_id
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId, TenantId
from redstring.domain.models import Entity, Provenance, Relationship
from redstring.domain.vector import VectorRecord
from redstring.llm.adapters.fake import FakeLlmProvider
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.projections.passage_vectors import project_passage_vectors
from redstring.retrieval import Answerer, RetrievalSettings, Retriever
from redstring.retrieval.results import ENTITY_VECTOR, GRAPH, HOP, LEXICAL, NAMES, PASSAGE_VECTOR
from tests.ingest_support import VocabularyExtractor

DIMENSION = 64
TENANT = TenantId("acme")
OTHER_TENANT = TenantId("globex")


class WordVectors:
    """Hashed bag-of-words vectors: symmetric, positional, never zero; counts query calls."""

    def __init__(self, dimension: int = DIMENSION) -> None:
        self._dimension = dimension
        self.query_calls = 0

    @property
    def model(self) -> str:
        return f"test/words-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def _vector(self, text: str) -> list[float]:
        if not text.strip():
            raise EmptyTextError("blank text")
        vector = [0.001] * self._dimension
        for token in tokenize(text):
            digest = hashlib.blake2b(token.encode(), digest_size=4).digest()
            bucket = int.from_bytes(digest[:3], "big") % self._dimension
            vector[bucket] += 1.0 if digest[3] % 2 else -1.0
        return vector

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        self.query_calls += 1
        return [self._vector(text) for text in texts]


@dataclass
class Stores:
    graph: GraphStore
    vectors: VectorStore
    passages: VectorStore
    chunks: ChunkStore


@dataclass
class World:
    """Names to ids for the written tenant."""

    entities: dict[str, EntityId] = field(default_factory=dict)
    chunks: dict[str, ChunkId] = field(default_factory=dict)
    relationships: dict[str, RelationshipId] = field(default_factory=dict)


# (key, type, name, aliases, description)
ENTITIES = (
    ("ada", "Person", "Ada Lovelace", ("Countess of Lovelace",), "mathematician and writer"),
    ("babbage", "Person", "Charles Babbage", (), "inventor of the Analytical Engine"),
    ("london", "Location", "London", (), "capital city"),
    ("hamilton", "Person", "Margaret Hamilton", ("Maggie",), "software engineer"),
    ("lab", "Organization", "Instrumentation Laboratory", ("MIT IL",), "research lab"),
    ("cambridge", "Location", "Cambridge", (), "city in Massachusetts"),
)

# (key, source, text, entities named)
CHUNKS = (
    ("ada-1", "ada.md", "Ada Lovelace wrote the first published algorithm.", ("ada",)),
    (
        "ada-2",
        "ada.md",
        "Lovelace corresponded with Charles Babbage about the Analytical Engine.",
        ("ada", "babbage"),
    ),
    ("babbage-1", "babbage.md", "Babbage was born in London in 1791.", ("babbage", "london")),
    (
        "hamilton-1",
        "hamilton.md",
        "Margaret Hamilton directed software engineering at the Instrumentation Laboratory.",
        ("hamilton", "lab"),
    ),
    (
        "lab-1",
        "lab.md",
        "The Instrumentation Laboratory stands in Cambridge, Massachusetts.",
        ("lab", "cambridge"),
    ),
    ("filler-1", "misc.md", "The weather was mild and the harvest was good.", ()),
    ("filler-2", "misc.md", "A committee met twice and adjourned without a vote.", ()),
)

# (key, subject, type, object, evidence chunk or None)
RELATIONSHIPS = (
    ("ada-babbage", "ada", "CORRESPONDED_WITH", "babbage", "ada-2"),
    ("babbage-london", "babbage", "BORN_IN", "london", "babbage-1"),
    ("hamilton-lab", "hamilton", "WORKS_FOR", "lab", None),
    ("lab-cambridge", "lab", "LOCATED_IN", "cambridge", "lab-1"),
)


def _id(tenant: TenantId, key: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"redstring-test/{tenant}/{key}")


async def write_world(stores: Stores, embeddings: WordVectors, tenant: TenantId = TENANT) -> World:
    """Write the small world for ``tenant`` through the ports, as the core projects it."""
    world = World()
    chunks = []
    for index, (key, source, text, named) in enumerate(CHUNKS):
        chunk = StoredChunk(
            id=chunk_id(source, text),
            source_id=SourceId(source),
            chunk_index=index,
            text=text,
            char_start=0,
            char_end=len(text),
            entity_ids=tuple(EntityId(_id(tenant, name)) for name in named),
        )
        chunks.append(chunk)
        world.chunks[key] = chunk.id
    entities = []
    texts = []
    for key, kind, name, aliases, description in ENTITIES:
        entity_id = EntityId(_id(tenant, key))
        world.entities[key] = entity_id
        evidence = tuple(c.id for c in chunks if entity_id in c.entity_ids)
        entities.append(
            Entity(
                id=entity_id,
                type=kind,
                name=name,
                attributes={"description": description, "aliases": list(aliases)},
                # Indexed under every surface name, as the core's history fold does.
                blocking_keys=tuple(
                    sorted({key for text in (name, *aliases) for key in blocking_keys(kind, text)})
                ),
                provenance=Provenance(
                    source_id=chunks[0].source_id, chunk_ids=evidence, model="test/gold"
                ),
            )
        )
        texts.append(f"{name} ({kind}). {', '.join(aliases)}. {description}")
    relationships = []
    for key, subject, kind, obj, evidence_key in RELATIONSHIPS:
        relationship_id = RelationshipId(_id(tenant, key))
        world.relationships[key] = relationship_id
        evidence = () if evidence_key is None else (world.chunks[evidence_key],)
        relationships.append(
            Relationship(
                id=relationship_id,
                type=kind,
                subject_id=world.entities[subject],
                object_id=world.entities[obj],
                provenance=Provenance(chunk_ids=evidence, model="test/gold"),
            )
        )
    await stores.graph.upsert_entities(tenant, entities)
    await stores.graph.upsert_relationships(tenant, relationships)
    vectors = await embeddings.embed(texts)
    await stores.vectors.upsert_many(
        tenant,
        [
            VectorRecord(
                entity_id=entity.id,
                vector=vector,
                metadata={"entity_type": entity.type, "name": entity.name},
            )
            for entity, vector in zip(entities, vectors, strict=True)
        ],
    )
    await stores.chunks.upsert_many(tenant, chunks)
    await project_passage_vectors(stores.passages, embeddings, tenant, chunks)
    return world


class RetrievalBehaviour:
    """What ``Retriever.query`` and ``Answerer.ask`` promise, on any set of stores."""

    async def stores(self) -> Stores:
        raise NotImplementedError

    async def _world(self) -> tuple[Retriever, World, WordVectors]:
        stores = await self.stores()
        embeddings = WordVectors()
        world = await write_world(stores, embeddings)
        await write_world(stores, embeddings, OTHER_TENANT)
        retriever = Retriever(
            graph=stores.graph,
            vectors=stores.vectors,
            chunks=stores.chunks,
            embeddings=embeddings,
            passage_vectors=stores.passages,
        )
        return retriever, world, embeddings

    async def test_a_rare_word_finds_its_passage_through_every_passage_signal(self) -> None:
        """The passage holding the question's rare words ranks first, found lexically and by
        its vector, with both ranks reported."""
        retriever, world, _ = await self._world()
        result = await retriever.query(TENANT, "published algorithm", k=3)
        best = result.passages[0]
        assert best.chunk_id == world.chunks["ada-1"]
        assert best.ranks[LEXICAL] == 1
        assert PASSAGE_VECTOR in best.ranks
        assert best.marker == "P1"
        assert best.provenance.source_id == "ada.md"

    async def test_an_alias_finds_its_entity(self) -> None:
        """A nickname held as an alias in the entity's embedded text finds the entity first."""
        retriever, world, _ = await self._world()
        result = await retriever.query(TENANT, "Maggie", k=3)
        top = result.entities[0]
        assert top.entity.id == world.entities["hamilton"]
        assert top.ranks[ENTITY_VECTOR] == 1
        assert top.entity.provenance.model == "test/gold"

    async def test_a_name_in_the_question_links_its_entity_and_its_passages(self) -> None:
        """A surname alone ("Babbage") links the entity through its blocking keys: it is the
        names signal's first entity, and every passage naming it carries a names rank; an
        entity type filter that excludes it links nothing."""
        retriever, world, _ = await self._world()
        result = await retriever.query(TENANT, "What did Babbage write to anyone?", k=5)
        babbage = world.entities["babbage"]
        linked = [e for e in result.entities if NAMES in e.ranks]
        assert [e.entity.id for e in linked] == [babbage]
        assert linked[0].ranks[NAMES] == 1
        assert result.entities[0].entity.id == babbage
        naming = {p.chunk_id for p in result.passages if NAMES in p.ranks}
        assert naming == {world.chunks["ada-2"], world.chunks["babbage-1"]}
        assert result.signal_hits[NAMES] == 1
        places = await retriever.query(
            TENANT, "What did Babbage write to anyone?", k=5, entity_types=["Location"]
        )
        assert places.signal_hits[NAMES] == 0
        assert not any(NAMES in p.ranks for p in places.passages)

    async def test_the_rest_of_the_question_orders_the_passages_naming_it(self) -> None:
        """Both passages name Babbage; the words around his name decide which comes first
        in the names ranking."""
        retriever, world, _ = await self._world()
        for question, best in (
            ("Where was Babbage born?", "babbage-1"),
            ("What did Babbage correspond about with Lovelace?", "ada-2"),
        ):
            result = await retriever.query(TENANT, question, k=5)
            ranked = sorted(
                (p for p in result.passages if NAMES in p.ranks), key=lambda p: p.ranks[NAMES]
            )
            assert ranked[0].chunk_id == world.chunks[best], question

    async def test_a_nickname_or_an_initial_links_the_full_name(self) -> None:
        """ "Maggie" (a known short form of Margaret, and the entity's alias) and "C. Babbage"
        link the entities they stand for, ahead of anything else the names signal finds."""
        retriever, world, _ = await self._world()
        by_nickname = await retriever.query(TENANT, "Where did Maggie Hamilton work?", k=5)
        first = min(
            (e for e in by_nickname.entities if NAMES in e.ranks), key=lambda e: e.ranks[NAMES]
        )
        assert first.entity.id == world.entities["hamilton"]
        by_initial = await retriever.query(TENANT, "Whom did C. Babbage correspond with?", k=5)
        first = min(
            (e for e in by_initial.entities if NAMES in e.ranks), key=lambda e: e.ranks[NAMES]
        )
        assert first.entity.id == world.entities["babbage"]

    async def test_the_graph_brings_the_second_hop_and_its_evidence(self) -> None:
        """From Lovelace the graph reaches London through Babbage, the relationships on the
        way and their evidence passages; depth 0 turns the graph signal off."""
        retriever, world, _ = await self._world()
        question = "Ada Lovelace Countess of Lovelace"
        result = await retriever.query(TENANT, question, k=5, depth=2)
        reached = {found.entity.id: found for found in result.entities}
        assert result.entities[0].entity.id == world.entities["ada"]
        assert GRAPH in reached[world.entities["london"]].ranks
        facts = {fact.relationship.id: fact for fact in result.relationships}
        corresponded = facts[world.relationships["ada-babbage"]]
        evidence = result.passage(corresponded.passages[0])
        assert evidence is not None
        assert evidence.chunk_id == world.chunks["ada-2"]
        assert GRAPH in evidence.ranks
        born = facts[world.relationships["babbage-london"]]
        assert (born.subject_name, born.object_name) == ("Charles Babbage", "London")
        flat = await retriever.query(TENANT, question, k=5, depth=0)
        assert flat.relationships == ()
        assert all(GRAPH not in p.ranks for p in flat.passages)
        assert all(GRAPH not in e.ranks for e in flat.entities)

    async def test_the_hop_brings_the_passage_about_the_first_passages_bridge(self) -> None:
        """The question names Hamilton; her passage names the laboratory, and the passage
        that opens with the laboratory's name gets the hop's one vote; depth 0 turns it off.
        (One first-hop passage: in a world of seven, the third may be the laboratory's own.)"""
        stores = await self.stores()
        embeddings = WordVectors()
        world = await write_world(stores, embeddings)
        retriever = Retriever(
            graph=stores.graph,
            vectors=stores.vectors,
            chunks=stores.chunks,
            embeddings=embeddings,
            passage_vectors=stores.passages,
            settings=RetrievalSettings(hop_from=1),
        )
        question = "In which city is the place where Margaret Hamilton directed software?"
        result = await retriever.query(TENANT, question, k=5)
        assert result.passages[0].chunk_id == world.chunks["hamilton-1"]
        hopped = [p.chunk_id for p in result.passages if HOP in p.ranks]
        assert hopped == [world.chunks["lab-1"]]
        flat = await retriever.query(TENANT, question, k=5, depth=0)
        assert all(HOP not in p.ranks for p in flat.passages)

    async def test_evidence_without_provenance_comes_from_passages_naming_both_ends(
        self,
    ) -> None:
        """A relationship with no provenance chunks is evidenced by the passages naming both
        of its entities (ChunkStore.get_by_entity)."""
        retriever, world, _ = await self._world()
        result = await retriever.query(TENANT, "Margaret Hamilton Maggie", k=5)
        facts = {fact.relationship.id: fact for fact in result.relationships}
        works = facts[world.relationships["hamilton-lab"]]
        cited = [result.passage(marker) for marker in works.passages]
        assert [p.chunk_id for p in cited if p is not None] == [world.chunks["hamilton-1"]]

    async def test_entity_types_limit_the_entities(self) -> None:
        """Only entities of the named types come back; an empty collection yields none."""
        retriever, _, _ = await self._world()
        result = await retriever.query(TENANT, "Babbage London", entity_types=["Location"])
        assert result.entities
        assert {e.entity.type for e in result.entities} == {"Location"}
        none = await retriever.query(TENANT, "Babbage London", entity_types=[])
        assert none.entities == ()

    async def test_results_never_cross_tenants_and_repeat_exactly(self) -> None:
        """Another tenant holding the same texts contributes nothing, and the same query
        returns the same result twice."""
        retriever, world, _ = await self._world()
        result = await retriever.query(TENANT, "Babbage born London", k=10, depth=2)
        mine = set(world.entities.values())
        assert {e.entity.id for e in result.entities} <= mine
        assert {f.relationship.id for f in result.relationships} <= set(
            world.relationships.values()
        )
        assert result == await retriever.query(TENANT, "Babbage born London", k=10, depth=2)

    async def test_every_citation_in_the_context_names_a_passage(self) -> None:
        """``as_context`` numbers the passages and cites only those markers."""
        retriever, _, _ = await self._world()
        result = await retriever.query(TENANT, "Where was Babbage born?", k=4, depth=2)
        context = result.as_context()
        markers = {p.marker for p in result.passages}
        assert markers == {f"P{n}" for n in range(1, len(result.passages) + 1)}
        cited = set(re.findall(r"\[(P\d+)\]", context))
        assert cited
        assert cited <= markers
        assert "born in London" in context

    async def test_k_bounds_every_list_and_bad_arguments_are_typed(self) -> None:
        """``k`` bounds passages, entities and relationships; a blank question, a negative k
        or depth, and a bad tenant id raise typed errors."""
        retriever, _, _ = await self._world()
        result = await retriever.query(TENANT, "Babbage Lovelace London", k=2, depth=2)
        assert len(result.passages) <= 2
        assert len(result.entities) <= 2
        assert len(result.relationships) <= 2
        with pytest.raises(EmptyTextError):
            await retriever.query(TENANT, "   ")
        with pytest.raises(InvalidArgumentError, match="k must be non-negative"):
            await retriever.query(TENANT, "x", k=-1)
        with pytest.raises(InvalidArgumentError, match="depth must be non-negative"):
            await retriever.query(TENANT, "x", depth=-1)
        with pytest.raises(InvalidArgumentError, match="invalid tenant id"):
            await retriever.query("no spaces allowed", "x")

    async def test_signals_can_be_measured_alone(self) -> None:
        """With ``signals`` naming one signal, only that signal's ranks appear (mentions are
        derived and stay); an unknown signal name is a typed error."""
        stores = await self.stores()
        embeddings = WordVectors()
        await write_world(stores, embeddings)
        lexical_only = Retriever(
            graph=stores.graph,
            vectors=stores.vectors,
            chunks=stores.chunks,
            embeddings=embeddings,
            passage_vectors=stores.passages,
            settings=RetrievalSettings(signals=frozenset({LEXICAL})),
        )
        result = await lexical_only.query(TENANT, "Babbage born London", depth=2)
        assert result.passages
        assert {signal for p in result.passages for signal in p.ranks} == {LEXICAL}
        assert {signal for e in result.entities for signal in e.ranks} == {"mentions"}
        assert result.relationships == ()
        assert embeddings.query_calls == 0
        with pytest.raises(InvalidArgumentError, match="unknown signals"):
            RetrievalSettings(signals=frozenset({"telepathy"}))

    async def test_query_vectors_are_cached_when_a_cache_is_configured(self) -> None:
        """With a Cache the second identical question embeds nothing; without, it embeds."""
        stores = await self.stores()
        embeddings = WordVectors()
        await write_world(stores, embeddings)
        cached = Retriever(
            graph=stores.graph,
            vectors=stores.vectors,
            chunks=stores.chunks,
            embeddings=embeddings,
            cache=MemoryCache(),
        )
        first = await cached.query(TENANT, "Babbage")
        assert embeddings.query_calls == 1
        assert await cached.query(TENANT, "Babbage") == first
        assert embeddings.query_calls == 1
        await cached.query(TENANT, "Lovelace")
        assert embeddings.query_calls == 2

    async def test_the_last_query_vectors_are_kept_in_the_process(self) -> None:
        """Without a cache a question asked again is not embedded again while it is among
        the last ``query_vectors_kept``; the oldest is forgotten first; 0 keeps none."""
        stores = await self.stores()
        embeddings = WordVectors()
        await write_world(stores, embeddings)

        def retriever(kept: int) -> Retriever:
            return Retriever(
                graph=stores.graph,
                vectors=stores.vectors,
                chunks=stores.chunks,
                embeddings=embeddings,
                settings=RetrievalSettings(query_vectors_kept=kept),
            )

        two = retriever(2)
        for question in ("Babbage", "Lovelace", "Babbage"):
            await two.query(TENANT, question)
        assert embeddings.query_calls == 2
        await two.query(TENANT, "London")  # forgets Lovelace, the least recently asked
        await two.query(TENANT, "Babbage")
        assert embeddings.query_calls == 3
        await two.query(TENANT, "Lovelace")
        assert embeddings.query_calls == 4
        vector = await two.query_vector("Babbage")
        vector[0] += 1.0
        assert await two.query_vector("Babbage") != vector
        none = retriever(0)
        await none.query(TENANT, "Babbage")
        await none.query(TENANT, "Babbage")
        assert embeddings.query_calls == 6

    async def test_ask_with_a_model_keeps_only_citations_of_the_context(self) -> None:
        """One model call; a citation naming no passage of the context is dropped and
        counted, the rest point at the context's passages."""
        retriever, world, _ = await self._world()
        llm = FakeLlmProvider(
            script=[{"answerable": True, "answer": "In London.", "citations": ["P1", "[p9]"]}]
        )
        answer = await Answerer(retriever, llm).ask(TENANT, "Where was Babbage born?")
        assert len(llm.calls) == 1
        assert "[P1]" in llm.calls[0].text
        assert answer.kind == "generated"
        assert answer.text == "In London."
        assert [c.marker for c in answer.citations] == ["P1"]
        assert answer.citations[0].chunk_id == answer.context.passages[0].chunk_id
        assert answer.dropped_citations == ("[p9]",)
        assert answer.dropped_citation_count == 1
        assert answer.model == "fake/scripted"
        assert world.chunks["babbage-1"] in {p.chunk_id for p in answer.context.passages}

    async def test_ask_says_so_when_the_model_finds_no_answer(self) -> None:
        """A model that says the context does not answer yields an unanswerable answer with
        no citations."""
        retriever, _, _ = await self._world()
        llm = FakeLlmProvider(script=[{"answerable": False, "answer": "", "citations": ["P1"]}])
        answer = await Answerer(retriever, llm).ask(TENANT, "Who painted the ceiling?")
        assert answer.kind == "unanswerable"
        assert answer.citations == ()
        assert "nothing relevant" in answer.text

    async def test_ask_without_context_never_calls_the_model(self) -> None:
        """A tenant with no passages gets an unanswerable answer and no model call."""
        retriever, _, _ = await self._world()
        llm = FakeLlmProvider(script=[])
        answer = await Answerer(retriever, llm).ask(TenantId("empty-tenant"), "Anything?")
        assert answer.kind == "unanswerable"
        assert llm.calls == ()

    async def test_ask_without_a_model_answers_extractively_and_says_so(self) -> None:
        """No model: the best passages quoted and cited, labelled extractive."""
        retriever, world, _ = await self._world()
        answer = await Answerer(retriever).ask(TENANT, "Where was Babbage born?")
        assert answer.kind == "extractive"
        assert answer.model is None
        assert answer.text.startswith("Extractive answer")
        cited = [c.chunk_id for c in answer.citations]
        assert world.chunks["babbage-1"] in cited
        for citation in answer.citations:
            assert f"[{citation.marker}]" in answer.text
        # The sentence that answers is quoted first, whole.
        first = answer.text.splitlines()[1]
        assert first.startswith("- Babbage was born in London in 1791. [P")


DOCUMENTS = {
    "amara.md": "Amara Okafor works for Okafor Labs. The lab grows algae in Lagos.",
    "bruno.md": "Bruno Diaz works for Northwind. Northwind ships turbines from Lisbon.",
    "chen.md": "Chen Wei studied tidal power in Osaka before joining Bluefin Systems.",
}


class KnowledgeGraphRetrievalBehaviour:
    """``KnowledgeGraph.query``/``ask`` end to end: ingest, passage vectors, delete, rebuild.

    A subclass supplies ``new_graph`` (an empty graph with the given providers).
    """

    async def new_graph(
        self, embeddings: WordVectors, extractor: Any, llm: FakeLlmProvider | None
    ) -> KnowledgeGraph:
        raise NotImplementedError

    async def _ingested(self, llm: FakeLlmProvider | None = None) -> KnowledgeGraph:
        kg = await self.new_graph(WordVectors(), VocabularyExtractor(), llm)
        for source, text in DOCUMENTS.items():
            await kg.ingest(TENANT, source, text)
        return kg

    async def test_query_finds_ingested_passages_by_every_passage_signal(self) -> None:
        """After ingest, a question's passage is found lexically and by its projected vector,
        and the entities extracted from it come with it."""
        kg = await self._ingested()
        result = await kg.query(TENANT, "algae Lagos", k=5)
        best = result.passages[0]
        assert best.source_id == "amara.md"
        assert best.ranks[LEXICAL] == 1
        assert best.ranks[PASSAGE_VECTOR] == 1
        names = {found.entity.name for found in result.entities}
        assert {"Lagos", "Amara Okafor", "Okafor Labs"} <= names
        await kg.close()

    async def test_deleting_a_source_removes_its_passage_vectors(self) -> None:
        """A deleted source's passages are found by no signal, its vectors included."""
        kg = await self._ingested()
        await kg.delete_source(TENANT, "amara.md")
        result = await kg.query(TENANT, "algae Lagos", k=10)
        assert all(p.source_id != "amara.md" for p in result.passages)
        assert kg.passage_vectors is not None
        [vector] = await kg.embeddings.embed_query(["algae Lagos"])
        hits = await kg.passage_vectors.search(TENANT, vector, k=10)
        assert {hit.metadata["source_id"] for hit in hits} == {"bruno.md", "chen.md"}
        await kg.close()

    async def test_changed_text_replaces_the_sources_passage_vectors(self) -> None:
        """Re-ingesting changed text leaves vectors for exactly the source's new passages."""
        kg = await self._ingested()
        await kg.ingest(TENANT, "chen.md", "Chen Wei now builds wave farms near Lisbon.")
        assert kg.passage_vectors is not None
        [vector] = await kg.embeddings.embed_query(["wave farms"])
        hits = await kg.passage_vectors.search(TENANT, vector, k=10)
        chen = [hit.metadata["chunk_id"] for hit in hits if hit.metadata["source_id"] == "chen.md"]
        held = [chunk.id for chunk in await kg.chunks.get_by_source(TENANT, SourceId("chen.md"))]
        assert chen == held
        assert len(held) == 1
        await kg.close()

    async def test_a_rebuild_gives_the_same_answer(self) -> None:
        """Passage vectors are a projection: after a rebuild the query result is the same."""
        kg = await self._ingested()
        before = await kg.query(TENANT, "Who works for Northwind?", k=5, depth=2)
        await kg.rebuild(TENANT)
        assert await kg.query(TENANT, "Who works for Northwind?", k=5, depth=2) == before
        await kg.close()

    async def test_ask_answers_from_the_graphs_context(self) -> None:
        """``ask`` with a model makes one call over the query's context and keeps only its
        citations; without a model it answers extractively."""
        llm = FakeLlmProvider(
            script=[{"answerable": True, "answer": "Northwind.", "citations": ["P1", "P7"]}]
        )
        kg = await self._ingested(llm)
        answer = await kg.ask(TENANT, "Who does Bruno Diaz work for?")
        assert answer.kind == "generated"
        assert [c.marker for c in answer.citations] == ["P1"]
        assert answer.citations[0].source_id == "bruno.md"
        assert answer.dropped_citations == ("P7",)
        assert len(llm.calls) == 1
        await kg.close()
        plain = await self._ingested()
        extractive = await plain.ask(TENANT, "Who does Bruno Diaz work for?")
        assert extractive.kind == "extractive"
        assert extractive.citations[0].source_id == "bruno.md"
        await plain.close()
