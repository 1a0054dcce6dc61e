"""FakeEmbeddingProvider runs the EmbeddingProvider suite unchanged, plus what only it promises."""

from __future__ import annotations

import subprocess
import sys

import pytest

from redstring.domain.vector import cosine
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.testing.embedding_provider import EmbeddingProviderCompliance


class TestFakeEmbeddingProvider(EmbeddingProviderCompliance):
    @pytest.fixture
    def provider(self) -> EmbeddingProvider:
        return FakeEmbeddingProvider()


class TestFakeEmbeddingProviderSpecifics:
    async def test_the_default_dimension_is_768_compared_by_value(self) -> None:
        """Above 256 CPython caches no ints, so an ``is`` check in the fake would fail here."""
        provider = FakeEmbeddingProvider()
        width = int("768")
        assert provider.dimension == width
        assert provider.model == "fake/hash-768"
        vectors = await provider.embed(["a text", "another text"])
        assert [len(vector) for vector in vectors] == [width, width]

    async def test_dimension_one_works(self) -> None:
        """The smallest width the port permits gives one non-zero component per text."""
        provider = FakeEmbeddingProvider(dimension=1)
        vectors = await provider.embed_query(["one", "two", "three"])
        assert [len(vector) for vector in vectors] == [1, 1, 1]
        assert all(abs(vector[0]) == pytest.approx(1.0) for vector in vectors)
        assert provider.model == "fake/hash-1"

    async def test_different_texts_are_far_apart(self) -> None:
        """Hash-seeded directions at width 768 are nearly orthogonal, never near-duplicates."""
        provider = FakeEmbeddingProvider()
        texts = [f"entity number {n}" for n in range(20)]
        vectors = await provider.embed(texts)
        worst = max(
            abs(cosine(vectors[i], vectors[j]))
            for i in range(len(vectors))
            for j in range(i + 1, len(vectors))
        )
        assert worst < 0.25

    async def test_the_model_name_seeds_the_vectors(self) -> None:
        """Two fake models never agree, as two real models would not."""
        [first] = await FakeEmbeddingProvider(model="fake/one").embed(["Ada Lovelace"])
        [second] = await FakeEmbeddingProvider(model="fake/two").embed(["Ada Lovelace"])
        assert abs(cosine(first, second)) < 0.25

    def test_vectors_are_the_same_in_another_process(self) -> None:
        """``hashlib``, not the salted ``hash()``: another interpreter gets the same vector."""
        script = (
            "import asyncio\n"
            "from redstring.embeddings.adapters.fake import FakeEmbeddingProvider\n"
            "v = asyncio.run(FakeEmbeddingProvider(dimension=4).embed(['Ada']))[0]\n"
            "print(repr(v))\n"
        )
        runs = {
            subprocess.run(
                [sys.executable, "-c", script],
                capture_output=True,
                text=True,
                check=True,
                env={"PYTHONHASHSEED": seed},
            ).stdout
            for seed in ("1", "2")
        }
        assert len(runs) == 1

    async def test_a_bare_string_is_refused_rather_than_split_into_characters(self) -> None:
        """``embed("text")`` would otherwise return one vector per character."""
        with pytest.raises(ValueError, match="pass a list of texts"):
            await FakeEmbeddingProvider().embed("Ada Lovelace")

    async def test_the_blank_text_error_names_its_index(self) -> None:
        """The message says which text was blank."""
        with pytest.raises(ValueError, match=r"text 1 is blank \(' '\)"):
            await FakeEmbeddingProvider().embed(["Ada", " "])

    @pytest.mark.parametrize("dimension", [0, -3, True, 7.0])
    def test_a_dimension_that_is_not_a_positive_int_is_refused(self, dimension: object) -> None:
        """Zero, negatives, ``bool`` and floats are not widths."""
        with pytest.raises(ValueError, match="is not a positive int"):
            FakeEmbeddingProvider(dimension=dimension)  # type: ignore[arg-type]

    @pytest.mark.parametrize("model", ["hash-768", "/hash", "fake/", " /x"])
    def test_a_model_without_a_provider_is_refused(self, model: str) -> None:
        """``model`` is provenance and must name its provider."""
        with pytest.raises(ValueError, match="is not provider-qualified"):
            FakeEmbeddingProvider(model=model)
