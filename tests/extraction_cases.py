"""Both extractors through ``KnowledgeGraph.ingest``, written once, run on every backend.

A subclass supplies ``new_graph(extractor)``: a fresh, empty ``KnowledgeGraph``. The documents
are the shipped corpus's, so these cases also show the corpus ingests end to end.
"""

from __future__ import annotations

from typing import Any

from redstring import IngestSettings, KnowledgeGraph, TransientLlmError
from redstring.cache.adapters.memory import MemoryCache
from redstring.corpus import load_corpus
from redstring.extraction.adapters.spacy import SpacyExtractor
from redstring.extraction.llm import LlmExtractor
from redstring.llm.adapters.fake import FakeLlmProvider
from redstring.llm.resilience.provider import ResilientLlmProvider
from redstring.llm.resilience.retry import RetryPolicy
from redstring.ports.extractor import Extractor

T = "velmar"
SPACY = SpacyExtractor()


async def no_sleep(_: float) -> None:
    return None


def document(prefix: str) -> str:
    corpus = load_corpus()
    return next(d.text for d in corpus.documents if d.id.startswith(prefix))


class ExtractionThroughIngestCases:
    """Every case here runs on each backend through ``new_graph``."""

    SETTINGS = IngestSettings(chunk_chars=600, chunk_overlap=0)

    async def new_graph(self, extractor: Extractor) -> KnowledgeGraph:
        raise NotImplementedError

    async def test_the_offline_extractor_builds_a_graph_with_one_call_per_passage(self) -> None:
        """SpacyExtractor feeds ingest: entities, edges, one parse per new passage, none on
        re-ingest, and the extractor's identity on the report."""
        kg = await self.new_graph(SPACY)
        text = document("14-")
        report = await kg.ingest(T, "brinewater.md", text)
        assert report.model == SPACY.model
        assert report.model_calls == report.chunks_new == report.chunks > 1
        assert report.failed_chunks == []
        snapshot = await kg.export(T)
        names = {item.entity.name for item in snapshot.entities}
        assert {"Brinewater Analytics", "Jonah Whitlock", "Aldmere"} <= names
        assert snapshot.relationships
        again = await kg.ingest(T, "brinewater.md", text)
        assert again.unchanged
        assert again.model_calls == 0

    async def test_llm_extraction_grounds_and_reports_what_it_dropped(self) -> None:
        """The LLM extractor's drops arrive in the ingest report, by reason."""
        text = "Ingrid Solberg works for the Port Harlow Chamber of Commerce in Port Harlow."
        answer: dict[str, Any] = {
            "entities": [
                {"name": "Ingrid Solberg", "type": "Person"},
                {"name": "Port Harlow Chamber of Commerce", "type": "Organization"},
                {"name": "Port Harlow", "type": "Location"},
                {"name": "Oskar Lund", "type": "Person"},
                {"name": "Commerce", "type": "Topic"},
            ],
            "relationships": [
                {
                    "subject": "Ingrid Solberg",
                    "type": "WORKS_FOR",
                    "object": "Port Harlow Chamber of Commerce",
                },
                {"subject": "Oskar Lund", "type": "WORKS_FOR", "object": "Port Harlow"},
                {"subject": "Ingrid Solberg", "type": "WORKS_FOR", "object": "Port Harlow"},
            ],
        }
        provider = FakeLlmProvider("fake/scripted", by_substring={"Ingrid": answer})
        extractor = LlmExtractor(provider)
        kg = await self.new_graph(extractor)
        report = await kg.ingest(T, "memo.md", text)
        assert report.model == "fake/scripted+prompt-1"
        assert report.model_calls == len(provider.calls) == 1
        assert report.relationships == 1
        assert report.dropped == {
            "dangling_relationship": 1,
            "relationship_pattern": 1,
            "ungrounded_entity": 1,
            "unknown_entity_type": 1,
        }
        names = {item.entity.name for item in (await kg.export(T)).entities}
        assert names == {"Ingrid Solberg", "Port Harlow Chamber of Commerce", "Port Harlow"}

    async def test_a_failed_passage_is_reported_and_only_it_is_retried(self) -> None:
        """With skip_failed_chunks a refused or failed call is listed; the next ingest asks
        the model again for that passage only."""
        text = document("12-")  # three passages at 600 characters
        empty: dict[str, Any] = {"entities": [], "relationships": []}
        first = FakeLlmProvider(
            by_substring={
                "practical information": empty,
                "Registration opens": TransientLlmError,
                "Events Manager": empty,
            }
        )
        kg = await self.new_graph(LlmExtractor(first))
        report = await kg.ingest(T, "summit.md", text)
        assert len(report.failed_chunks) == 1
        assert report.failed_chunks[0].error_type == "TransientLlmError"
        assert report.model_calls == report.chunks
        calls_before = len(first.calls)
        assert calls_before == report.chunks
        retry = await kg.ingest(T, "summit.md", text)
        assert retry.model_calls == 1
        assert len(first.calls) == calls_before + 1
        assert len(retry.failed_chunks) == 1

    async def test_llm_extraction_works_under_the_resilience_wrapper(self) -> None:
        """A transient failure is retried inside ResilientLlmProvider; ingest sees an answer."""
        answer: dict[str, Any] = {
            "entities": [{"name": "Tomas Veil", "type": "Person"}],
            "relationships": [],
        }
        inner = FakeLlmProvider("fake/flaky", script=[TransientLlmError, answer])
        resilient = ResilientLlmProvider(
            inner,
            MemoryCache(),
            retry=RetryPolicy(attempts=3, base_delay_seconds=0.01),
            sleep=no_sleep,
        )
        kg = await self.new_graph(LlmExtractor(resilient))
        report = await kg.ingest(T, "note.md", "Tomas Veil signed the memo.")
        assert report.failed_chunks == []
        assert report.model_calls == 1
        assert len(inner.calls) == 2
        assert report.model == "fake/flaky+prompt-1"
