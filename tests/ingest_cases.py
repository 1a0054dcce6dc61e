"""The core's behaviour, written once and run on every backend (memory and PostgreSQL).

A subclass supplies ``new_graph(extractor)``: a fresh, empty ``KnowledgeGraph``.
"""

from __future__ import annotations

import json

import pytest

from redstring import (
    DocumentTooLargeError,
    EmptyTextError,
    EntityRecord,
    ExtractorNotConfiguredError,
    IngestSettings,
    InvalidArgumentError,
    InvalidRecordError,
    KnowledgeGraph,
    RelationshipRecord,
    tenant_id,
)
from tests.ingest_support import (
    VocabularyExtractor,
    assert_projections_match_history,
    store_state,
)

T = "acme"
DOC_A = (
    "Amara Okafor works for Okafor Labs in Lagos.\n\n"
    "Bruno Diaz met Amara Okafor at Northwind last spring.\n\n"
    "Chen Wei works for Northwind."
)
DOC_B = "Dana Ivers works for Northwind. She knows Chen Wei from Osaka."


class KnowledgeGraphCases:
    """Every case here runs on each backend through ``new_graph``."""

    SETTINGS = IngestSettings(chunk_chars=60, chunk_overlap=0)

    async def new_graph(
        self, extractor: VocabularyExtractor | None, resolver: object | None = None
    ) -> KnowledgeGraph:
        raise NotImplementedError

    async def _names(self, kg: KnowledgeGraph, tenant: str = T) -> list[str]:
        await assert_projections_match_history(kg, tenant)
        snapshot = await kg.export(tenant)
        return sorted(item.entity.name for item in snapshot.entities)

    async def test_ingest_builds_entities_relationships_and_passages(self) -> None:
        """A document becomes entities, edges and passages, one extractor call per passage."""
        extractor = VocabularyExtractor()
        kg = await self.new_graph(extractor)
        report = await kg.ingest(T, "a.md", DOC_A)
        assert report.chunks >= 3
        assert report.model_calls == report.chunks == extractor.calls
        names = await self._names(kg)
        assert names == sorted(
            ["Amara Okafor", "Okafor Labs", "Lagos", "Bruno Diaz", "Northwind", "Chen Wei"]
        )
        snapshot = await kg.export(T)
        edges = {(r.type, r.subject_id, r.object_id) for r in snapshot.relationships}
        by_name = {item.entity.name: item.entity.id for item in snapshot.entities}
        assert ("WORKS_FOR", by_name["Amara Okafor"], by_name["Okafor Labs"]) in edges
        assert ("WORKS_FOR", by_name["Chen Wei"], by_name["Northwind"]) in edges
        assert len(snapshot.passages) == report.chunks
        mentioned = await kg.chunks.get_by_entity(tenant_id(T), by_name["Amara Okafor"])
        assert len(mentioned) == 2
        found = await kg.vectors.get(tenant_id(T), by_name["Northwind"])
        assert found is not None
        assert found.metadata["entity_type"] == "Organization"

    async def test_mentions_that_change_no_state_are_recorded_and_deletion_moves_it(
        self,
    ) -> None:
        """Past its first 32 passages an entity's mentions write EntityEvidenceAdded (no store
        write); deleting the early sources moves its provenance on; a rebuild agrees."""
        kg = await self.new_graph(VocabularyExtractor())
        for n in range(36):
            await kg.ingest(T, f"d{n:02d}.md", f"Amara Okafor works for Okafor Labs ({n}).")
        kinds = [event.type for event in await kg.events.read(tenant_id(T))]
        assert kinds.count("EntityEvidenceAdded") == 2 * 4  # two entities, four late docs
        assert kinds.count("RelationshipSupportAdded") == 4
        history = await kg.history(T)
        ada = next(h for h in history.entities.values() if h.entity.name == "Amara Okafor")
        assert len(ada.evidence) == 36
        first = ada.entity.provenance.chunk_ids
        assert len(first) == 32
        await kg.delete_source(T, "d00.md")
        await assert_projections_match_history(kg, T)
        stored = await kg.graph.get_entity(tenant_id(T), ada.entity.id)
        assert stored is not None
        assert stored.provenance.chunk_ids[:31] == first[1:]
        assert len(stored.provenance.chunk_ids) == 32
        incremental = await store_state(kg, T)
        await kg.rebuild(T)
        assert await store_state(kg, T) == incremental

    async def test_unchanged_reingest_and_rebuild_call_the_model_zero_times(self) -> None:
        """Extraction results live in the log: re-ingest and rebuild never ask again."""
        extractor = VocabularyExtractor()
        kg = await self.new_graph(extractor)
        await kg.ingest(T, "a.md", DOC_A)
        before = await store_state(kg, T)
        calls = extractor.calls
        again = await kg.ingest(T, "a.md", DOC_A)
        assert again.unchanged
        assert again.model_calls == 0
        replayed = await kg.rebuild(T)
        assert replayed > 0
        assert extractor.calls == calls
        assert await store_state(kg, T) == before

    async def test_a_changed_paragraph_reextracts_only_its_passages(self) -> None:
        """Only passages whose text changed are extracted; the rest keep their entities."""
        extractor = VocabularyExtractor()
        kg = await self.new_graph(extractor)
        first = await kg.ingest(T, "a.md", DOC_A)
        changed = DOC_A.replace("Chen Wei works for Northwind.", "Eli Stone works for Harbor Bank.")
        report = await kg.ingest(T, "a.md", changed)
        assert report.model_calls == 1
        assert report.chunks_removed == 1
        assert report.chunks == first.chunks
        names = await self._names(kg)
        assert "Chen Wei" not in names
        assert "Eli Stone" in names
        assert "Northwind" in names
        incremental = await store_state(kg, T)
        await kg.rebuild(T)
        assert await store_state(kg, T) == incremental

    async def test_delete_source_keeps_shared_entities_and_drops_the_rest(self) -> None:
        """Facts only the deleted source supported vanish; shared entities keep their evidence."""
        kg = await self.new_graph(VocabularyExtractor())
        await kg.ingest(T, "a.md", DOC_A)
        await kg.ingest(T, "b.md", DOC_B)
        report = await kg.delete_source(T, "a.md")
        assert report.existed
        assert report.entities_removed == 4
        names = await self._names(kg)
        assert names == ["Chen Wei", "Dana Ivers", "Northwind", "Osaka"]
        snapshot = await kg.export(T)
        assert {item.sources[0] for item in snapshot.entities} == {"b.md"}
        assert all(p.source_id == "b.md" for p in snapshot.passages)
        stats = await kg.stats(T)
        assert stats.entities == 4
        assert stats.sources == 1
        assert [s.source_id for s in await kg.sources(T)] == ["b.md"]
        incremental = await store_state(kg, T)
        await kg.rebuild(T)
        assert await store_state(kg, T) == incremental
        missing = await kg.delete_source(T, "a.md")
        assert not missing.existed

    async def test_import_records_resolves_and_maps_every_ref(self) -> None:
        """Imported records resolve like extracted ones; the report maps refs to entities."""
        kg = await self.new_graph(VocabularyExtractor())
        await kg.ingest(T, "a.md", DOC_A)
        report = await kg.import_records(
            T,
            [
                {
                    "kind": "entity",
                    "ref": "p1",
                    "type": "Person",
                    "name": "Amara Okafor",
                    "attributes": {"born": "1984-02-11"},
                    "source": "crm",
                },
                EntityRecord(ref="o1", type="Organization", name="Quill Press", source="crm"),
                RelationshipRecord(subject="p1", type="WORKS_FOR", object="o1", source="crm"),
            ],
        )
        assert report.entities_created == 1
        assert report.entities_matched == 1
        snapshot = await kg.export(T)
        amara = next(i for i in snapshot.entities if i.entity.name == "Amara Okafor")
        assert report.refs["p1"] == amara.entity.id
        assert amara.entity.attributes["born"] == "1984-02-11"
        assert amara.sources == ["a.md", "crm"]
        assert amara.import_refs == ["crm:p1"]
        assert report.relationships == 1

    async def test_import_records_accept_types_spelled_loosely(self) -> None:
        """Records typed "person", "organisation" and "works_for" land on the schema's
        "Person", "Organization" and "WORKS_FOR"; nothing is dropped, the graph stores the
        declared spellings, and a rebuild gives the same graph."""
        kg = await self.new_graph(None)
        report = await kg.import_records(
            T,
            [
                EntityRecord(ref="p1", type="person", name="Amara Okafor", source="crm"),
                EntityRecord(ref="o1", type="Organisation", name="Quill Press", source="crm"),
                RelationshipRecord(subject="p1", type="works_for", object="o1", source="crm"),
            ],
        )
        assert report.dropped == {}
        assert report.relationships == 1
        snapshot = await kg.export(T)
        assert sorted(item.entity.type for item in snapshot.entities) == [
            "Organization",
            "Person",
        ]
        assert [edge.type for edge in snapshot.relationships] == ["WORKS_FOR"]
        before = await store_state(kg, T)
        await kg.rebuild(T)
        assert await store_state(kg, T) == before

    async def test_a_malformed_line_names_line_and_field_and_writes_nothing(self) -> None:
        """The batch is validated whole before anything is written."""
        kg = await self.new_graph(None)
        lines = [
            json.dumps({"kind": "entity", "ref": "p1", "type": "Person", "name": "Ada"}),
            json.dumps({"kind": "entity", "ref": "p2", "type": "Person"}),
        ]
        with pytest.raises(InvalidRecordError) as caught:
            await kg.import_jsonl(T, lines)
        assert caught.value.line == 2
        assert caught.value.field == "name"
        dangling = [
            json.dumps({"kind": "entity", "ref": "p1", "type": "Person", "name": "Ada"}),
            json.dumps(
                {"kind": "relationship", "subject": "p1", "type": "WORKS_FOR", "object": "x"}
            ),
        ]
        with pytest.raises(InvalidRecordError) as caught:
            await kg.import_jsonl(T, dangling)
        assert caught.value.line == 2
        assert caught.value.field == "object"
        assert (await kg.stats(T)).events == 0

    async def test_bad_input_is_refused_with_a_typed_error_and_nothing_written(self) -> None:
        """Blank, NUL, lone surrogates, oversized texts: typed errors, no events."""
        kg = await self.new_graph(VocabularyExtractor())
        for text, error in (
            ("   \n ", EmptyTextError),
            ("Ada\x00Lovelace", InvalidArgumentError),
            ("Ada \udc80 Lovelace", InvalidArgumentError),
            ("x" * (kg.settings.max_document_chars + 1), DocumentTooLargeError),
        ):
            with pytest.raises(error):
                await kg.ingest(T, "bad.md", text)
        with pytest.raises(InvalidArgumentError):
            await kg.ingest("bad tenant!", "a.md", DOC_A)
        assert (await kg.stats(T)).events == 0

    async def test_ingest_without_an_extractor_says_how_to_configure_one(self) -> None:
        """The error names the two extractors and the import alternative."""
        kg = await self.new_graph(None)
        with pytest.raises(ExtractorNotConfiguredError, match="SpacyExtractor"):
            await kg.ingest(T, "a.md", DOC_A)

    async def test_failed_passages_are_reported_and_only_they_are_retried(self) -> None:
        """A failing passage is recorded; the next ingest of the same text retries only it."""
        extractor = VocabularyExtractor(fail_on={"Chen Wei works"})
        kg = await self.new_graph(extractor)
        report = await kg.ingest(T, "a.md", DOC_A)
        assert [f.error_type for f in report.failed_chunks] == ["MalformedCompletionError"]
        assert "Chen Wei" not in await self._names(kg)
        extractor.fail_on.clear()
        calls = extractor.calls
        retry = await kg.ingest(T, "a.md", DOC_A)
        assert extractor.calls == calls + 1
        assert retry.failed_chunks == []
        assert "Chen Wei" in await self._names(kg)

    async def test_tenants_never_see_each_other(self) -> None:
        """The same document in two tenants; deleting it in one leaves the other whole."""
        kg = await self.new_graph(VocabularyExtractor())
        await kg.ingest("t1", "a.md", DOC_A)
        await kg.ingest("t2", "b.md", DOC_B)
        assert "Dana Ivers" not in await self._names(kg, "t1")
        assert "Amara Okafor" not in await self._names(kg, "t2")
        await kg.delete_tenant("t1")
        assert await self._names(kg, "t1") == []
        assert (await kg.stats("t1")).events == 0
        assert "Dana Ivers" in await self._names(kg, "t2")

    async def test_schema_violations_are_dropped_and_counted(self) -> None:
        """An undeclared entity type never reaches the graph; the report counts it."""
        from redstring import EntityTypeSpec, RelationshipTypeSpec, Schema

        schema = Schema(
            entity_types=(EntityTypeSpec(name="Person"),),
            relationship_types=(RelationshipTypeSpec(name="WORKS_FOR"),),
        )
        kg = await self.new_graph(VocabularyExtractor())
        report = await kg.ingest(T, "a.md", DOC_A, schema=schema)
        assert report.dropped["unknown_entity_type"] >= 3
        assert report.dropped["dangling_relationship"] >= 2
        assert await self._names(kg) == ["Amara Okafor", "Bruno Diaz", "Chen Wei"]

    async def test_merge_moves_evidence_edges_and_passages_and_unmerge_restores_them(
        self,
    ) -> None:
        """A person's merge is an event; unmerge restores both and keeps them apart."""
        from redstring import MergeRefusedError

        kg = await self.new_graph(VocabularyExtractor())
        await kg.ingest(T, "a.md", "Amara Okafor works for Okafor Labs.")
        await kg.ingest(T, "b.md", "Dana Ivers works for Northwind.")
        by_name = {i.entity.name: i.entity.id for i in (await kg.export(T)).entities}
        amara, dana = by_name["Amara Okafor"], by_name["Dana Ivers"]
        before = await store_state(kg, T)
        survivor = await kg.merge(T, amara, dana)
        assert survivor == amara
        assert await self._names(kg) == ["Amara Okafor", "Northwind", "Okafor Labs"]
        snapshot = await kg.export(T)
        merged = next(i for i in snapshot.entities if i.entity.id == amara)
        assert [a.alias_id for a in merged.aliases] == [dana]
        assert merged.sources == ["a.md", "b.md"]
        neighbours = await kg.graph.neighbours(tenant_id(T), amara)
        assert {n.entity.name for n in neighbours} == {"Okafor Labs", "Northwind"}
        passages = await kg.chunks.get_by_entity(tenant_id(T), amara)
        assert {p.source_id for p in passages} == {"a.md", "b.md"}
        merges = await kg.merges(T)
        assert [(m.winner_id, m.loser_id, m.rule) for m in merges] == [(amara, dana, "manual")]
        with pytest.raises(MergeRefusedError):
            await kg.merge(T, amara, by_name["Okafor Labs"])
        merged_state = await store_state(kg, T)
        await kg.rebuild(T)
        assert await store_state(kg, T) == merged_state

        restored = await kg.unmerge(T, dana)
        assert restored == dana
        await assert_projections_match_history(kg, T)
        assert await store_state(kg, T) == before
        assert (await kg.merges(T))[0].undone
        with pytest.raises(MergeRefusedError):
            await kg.merge(T, amara, dana)
        await kg.rebuild(T)
        assert await store_state(kg, T) == before

    async def test_an_audited_match_is_a_merge_that_can_be_listed_and_undone(self) -> None:
        """A resolver's audited match records a merge with its rule; unmerge splits it off."""
        from tests.ingest_support import NicknameResolver

        extractor = VocabularyExtractor(people=("Amara Okafor", "Mara"))
        kg = await self.new_graph(extractor, NicknameResolver({"Mara": "Amara Okafor"}))
        await kg.ingest(T, "a.md", "Amara Okafor works for Okafor Labs.")
        report = await kg.ingest(T, "b.md", "Mara works for Northwind.")
        assert report.entities_matched == 1
        await assert_projections_match_history(kg, T)
        merges = await kg.merges(T)
        assert [(m.winner_name, m.loser_name, m.rule, m.score) for m in merges] == [
            ("Amara Okafor", "Mara", "nickname", 0.97)
        ]
        amara = merges[0].winner_id
        neighbours = await kg.graph.neighbours(tenant_id(T), amara)
        assert {n.entity.name for n in neighbours} == {"Okafor Labs", "Northwind"}
        state = await store_state(kg, T)
        await kg.rebuild(T)
        assert await store_state(kg, T) == state
        restored = await kg.unmerge(T, merges[0].loser_id)
        await assert_projections_match_history(kg, T)
        assert sorted(await self._names(kg)) == ["Amara Okafor", "Mara", "Northwind", "Okafor Labs"]
        moved = await kg.graph.neighbours(tenant_id(T), restored)
        assert [n.entity.name for n in moved] == ["Northwind"]
