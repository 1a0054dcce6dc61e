"""Ingest settles a name's type by votes across passages and the tenant, and records where
each passage sits in its document."""

from __future__ import annotations

from dataclasses import dataclass

from redstring import IngestSettings, KnowledgeGraph
from redstring.domain.extraction import ExtractedEntity, Extraction
from redstring.domain.schema import Schema
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider


@dataclass
class Scripted:
    """Types each passage's one name by the word the passage uses for it."""

    model: str = "test/scripted-types-1"

    async def extract(self, text: str, schema: Schema) -> Extraction:
        kind = "Person" if "person" in text else "Product"
        return Extraction(entities=[ExtractedEntity(name="Memcheck", type=kind)])


def graph() -> KnowledgeGraph:
    return KnowledgeGraph.in_memory(
        embeddings=FakeEmbeddingProvider(dimension=8),
        extractor=Scripted(),
        settings=IngestSettings(chunk_chars=60, chunk_overlap=0),
    )


DOCUMENT = (
    "# Valgrind\n\n## Tools\n\nMemcheck is a tool that finds leaks.\n\n"
    "Memcheck, a person said, is slow.\n\n### Usage\n\nRun Memcheck as a tool on binaries."
)


async def test_a_name_typed_two_ways_in_one_document_is_one_entity_of_the_majority_type() -> None:
    """Two passages say Product, one Person: one Product entity; the outvoted mention is
    reported as a type conflict."""
    async with graph() as kg:
        report = await kg.ingest("t", "valgrind", DOCUMENT)
        snapshot = await kg.export("t")
    assert [(e.entity.name, e.entity.type) for e in snapshot.entities] == [("Memcheck", "Product")]
    assert report.dropped == {"type_conflict": 1}


async def test_the_tenant_keeps_a_name_on_the_type_its_entities_hold() -> None:
    """A later document's lone other-typed mention joins the tenant's entity of that name."""
    async with graph() as kg:
        await kg.ingest("t", "valgrind", DOCUMENT)
        report = await kg.ingest("t", "note", "A person said Memcheck again.")
        snapshot = await kg.export("t")
    assert [(e.entity.name, e.entity.type) for e in snapshot.entities] == [("Memcheck", "Product")]
    assert report.dropped == {"type_conflict": 1}


async def test_each_passage_records_its_heading_path() -> None:
    """Stored passages carry the headings they sit under, for citations."""
    async with graph() as kg:
        await kg.ingest("t", "valgrind", DOCUMENT, metadata={"format": "md"})
        snapshot = await kg.export("t")
    paths = [p.metadata.get("headings") for p in snapshot.passages]
    assert paths[0] == ["Valgrind", "Tools"]
    assert ["Valgrind", "Tools", "Usage"] in paths
    assert all(p.metadata.get("format") == "md" for p in snapshot.passages)
