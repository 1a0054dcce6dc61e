"""What an ingest refuses, it refuses before its first write; what it stores, every later read
and a rebuild can project (ADR 0041). Run on every backend through ``new_graph``.

The embedding model matters here: the bundled offline model gives no direction to text made
only of characters its tokenizer drops (``"\\x02"``, a zero-width space, a byte-order mark),
which is how one document used to leave a tenant whose every read failed.
"""

from __future__ import annotations

import pytest

from redstring import EmptyTextError, IngestSettings, InvalidArgumentError, KnowledgeGraph
from redstring.domain.ids import tenant_id
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.projections.passage_vectors import passage_vector_id
from tests.ingest_support import assert_projections_match_history, store_state

T = "acme"
# Each of these was accepted by the probe of issue 26 and bricked its tenant.
NOTHING_TO_EMBED = ("\u0002", "\u200b", "\ufeff", "\u0001\u0003", "\u007f")
GOOD = "Amara Okafor works for Okafor Labs in Lagos."
MIXED = GOOD + "\n\n" + "\x02" * 50 + "\n\nChen Wei works for Northwind."


def bundled() -> EmbeddingProvider:
    return LocalStaticEmbeddingProvider.bundled()


class AdmissionCases:
    """Every case runs on each backend through ``new_graph``."""

    SETTINGS = IngestSettings(chunk_chars=60, chunk_overlap=0)

    async def new_graph(
        self, embeddings: EmbeddingProvider, *, fresh: bool = True
    ) -> KnowledgeGraph:
        """A graph over the backend's stores; ``fresh=False`` reuses the previous stores
        (another process over the same database)."""
        raise NotImplementedError

    async def _log(self, kg: KnowledgeGraph, tenant: str = T) -> int:
        return len(await kg.events.read(tenant_id(tenant)))

    async def _usable(self, kg: KnowledgeGraph) -> None:
        """Every read and write the probe saw failing works on the tenant."""
        await kg.stats(T)
        await kg.sources(T)
        await kg.export(T)
        await kg.merges(T)
        report = await kg.ingest(T, "good.md", GOOD)
        assert report.entities_created >= 2
        assert (await kg.delete_source(T, "bad.md")).existed is False
        await kg.rebuild(T)
        await assert_projections_match_history(kg, T)

    @pytest.mark.parametrize("text", NOTHING_TO_EMBED)
    async def test_a_document_with_nothing_to_embed_is_refused_and_writes_nothing(
        self, text: str
    ) -> None:
        """A document none of whose passages the model can embed is refused whole: no
        extraction, no event, and the tenant stays usable."""
        kg = await self.new_graph(bundled())
        with pytest.raises(EmptyTextError, match="nothing the embedding model can embed"):
            await kg.ingest(T, "bad.md", text)
        assert await self._log(kg) == 0
        await self._usable(kg)

    async def test_a_passage_with_nothing_to_embed_is_stored_without_a_vector(self) -> None:
        """Such a passage is kept (and counted) with no passage vector; its neighbours get
        theirs, a query and a rebuild work, and the rebuild ends in the same stores."""
        kg = await self.new_graph(bundled())
        report = await kg.ingest(T, "mixed.md", MIXED)
        assert (report.chunks, report.passages_without_vector) == (3, 1)
        passages = await kg.chunks.get_by_source(tenant_id(T), "mixed.md")
        assert kg.passage_vectors is not None
        with_vector = [
            await kg.passage_vectors.get(tenant_id(T), passage_vector_id(p.id)) is not None
            for p in passages
        ]
        assert with_vector == [True, False, True]
        found = await kg.query(T, "Who works for Northwind?")
        assert found.passages
        before = await store_state(kg, T)
        await kg.rebuild(T)
        assert await store_state(kg, T) == before
        await assert_projections_match_history(kg, T)

    @pytest.mark.parametrize(
        ("metadata", "message"),
        [
            ({"k": "lone \ud800"}, "lone surrogate"),
            ({"k\udfff": "v"}, "key"),
            ({"line\r\nbreak": "v"}, "key"),
            ({"": "v"}, "key"),
            ({"k": float("nan")}, "NaN"),
            ({"k": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}, "levels"),
            ({"k": "x" * 20_000}, "bytes"),
        ],
    )
    async def test_metadata_that_cannot_be_stored_is_refused_before_any_write(
        self, metadata: dict[str, object], message: str
    ) -> None:
        """Bad metadata is an argument error naming the rule; nothing reaches the log."""
        kg = await self.new_graph(FakeEmbeddingProvider(dimension=64))
        with pytest.raises(InvalidArgumentError, match=message):
            await kg.ingest(T, "m.md", GOOD, metadata=metadata)  # type: ignore[arg-type]
        assert await self._log(kg) == 0
        await self._usable(kg)

    @pytest.mark.parametrize("source", ["a\r\nb.md", "\x1b[31mred.md", "tab\there", "x\ud800"])
    async def test_a_source_id_with_a_control_character_is_refused(self, source: str) -> None:
        """Control characters and lone surrogates never become part of a source id."""
        kg = await self.new_graph(FakeEmbeddingProvider(dimension=64))
        with pytest.raises(InvalidArgumentError, match="invalid source id"):
            await kg.ingest(T, source, GOOD)
        assert await self._log(kg) == 0

    async def test_a_tenant_broken_by_an_earlier_version_is_repaired_by_a_rebuild(
        self,
    ) -> None:
        """A log holding a passage the model cannot embed (written before this check
        existed) projects again: reads catch up and a rebuild replays it whole."""
        writer = await self.new_graph(FakeEmbeddingProvider(dimension=64))
        await writer.ingest(T, "good.md", GOOD)
        await writer.ingest(T, "bad.md", "\u0002")  # the fake model embeds anything
        # The same log under the bundled model, its projections behind: what a tenant
        # broken by the old version looks like to a new server.
        kg = await self.new_graph(bundled(), fresh=False)
        await kg.events.save_checkpoint(tenant_id(T), "projections", 0)
        stats = await kg.stats(T)
        assert stats.sources == 2
        assert await kg.rebuild(T) == await self._log(kg)
        assert kg.passage_vectors is not None
        bad = await kg.chunks.get_by_source(tenant_id(T), "bad.md")
        assert [
            await kg.passage_vectors.get(tenant_id(T), passage_vector_id(p.id)) for p in bad
        ] == [None]
        await assert_projections_match_history(kg, T)
        assert (await kg.delete_source(T, "bad.md")).existed
