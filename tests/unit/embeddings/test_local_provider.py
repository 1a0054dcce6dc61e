"""LocalStaticEmbeddingProvider runs the EmbeddingProvider suite unchanged, offline.

Three opt-ins: the bundled model (the embedded default), the same at a batch size small
enough that the suite's batches are split, and the model2vec path over a real model2vec
directory (the bundled model's own files, so nothing is downloaded). Then what only this
adapter promises: no network at all, unit vectors, a model that means something.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.vector import cosine
from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.testing.embedding_provider import EmbeddingProviderCompliance


def bundled_directory() -> Path:
    """Where tokenlearn-static-model keeps its model2vec-format weights."""
    import static_model

    return Path(static_model.__file__).parent / "model"


@dataclass(frozen=True)
class Loaded:
    """A provider and every network attempt made while it was being built."""

    provider: LocalStaticEmbeddingProvider
    network_attempts: list[str]


def refuse_network(patch: pytest.MonkeyPatch) -> list[str]:
    """Make every attempt to resolve or connect fail loudly; return the record of attempts."""
    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(repr(args[:2]))
        raise OSError("network access attempted in an offline test")

    patch.setattr(socket, "getaddrinfo", refuse)
    patch.setattr(socket.socket, "connect", refuse)
    patch.setattr(socket, "create_connection", refuse)
    return attempts


@pytest.fixture(scope="module")
def model2vec_loaded() -> Loaded:
    """Loaded once per module with the network refused: model2vec takes seconds to load,
    and a provider is stateless, so every test may share it."""
    with pytest.MonkeyPatch.context() as patch:
        attempts = refuse_network(patch)
        provider = LocalStaticEmbeddingProvider.from_model2vec_directory(
            bundled_directory(), name="tokenlearn-10k-64d-int8"
        )
    return Loaded(provider, attempts)


@pytest.fixture
def model2vec_provider(model2vec_loaded: Loaded) -> LocalStaticEmbeddingProvider:
    return model2vec_loaded.provider


class TestBundledStaticProvider(EmbeddingProviderCompliance):
    @pytest.fixture
    def provider(self) -> EmbeddingProvider:
        return LocalStaticEmbeddingProvider.bundled()


class TestBundledStaticProviderInSmallBatches(EmbeddingProviderCompliance):
    """batch_size=2 splits every suite batch, so batching is under the positional contract."""

    @pytest.fixture
    def provider(self) -> EmbeddingProvider:
        return LocalStaticEmbeddingProvider.bundled(batch_size=2)


class TestModel2VecDirectoryProvider(EmbeddingProviderCompliance):
    @pytest.fixture
    def provider(self, model2vec_provider: LocalStaticEmbeddingProvider) -> EmbeddingProvider:
        return model2vec_provider


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every network attempt during the test fails and is recorded."""
    return refuse_network(monkeypatch)


class TestLocalStaticProviderSpecifics:
    async def test_the_bundled_model_loads_and_embeds_with_no_network(
        self, no_network: list[str]
    ) -> None:
        """The embedded default needs no server and no download: every socket is refused."""
        provider = LocalStaticEmbeddingProvider.bundled()
        vectors = await provider.embed(["Ada Lovelace wrote the first program."])
        assert len(vectors[0]) == provider.dimension
        assert no_network == []

    def test_a_model2vec_directory_loads_with_no_network(self, model2vec_loaded: Loaded) -> None:
        """A local model2vec directory is read from disk, never fetched (loaded offline)."""
        assert model2vec_loaded.provider.dimension == 64
        assert model2vec_loaded.network_attempts == []

    def test_a_missing_directory_is_refused_rather_than_looked_up_on_a_hub(
        self, no_network: list[str], tmp_path: Path
    ) -> None:
        """model2vec treats an unknown path as a hub id; the adapter refuses before that."""
        with pytest.raises(InvalidArgumentError, match="not a model2vec directory"):
            LocalStaticEmbeddingProvider.from_model2vec_directory(
                "minishlab/potion-base-8M", name="potion-base-8M"
            )
        (tmp_path / "config.json").write_text("{}")
        with pytest.raises(InvalidArgumentError, match=r"model\.safetensors"):
            LocalStaticEmbeddingProvider.from_model2vec_directory(tmp_path, name="partial")
        assert no_network == []

    def test_the_models_are_named_by_provider_and_version(
        self, model2vec_provider: LocalStaticEmbeddingProvider
    ) -> None:
        """The bundled weights are versioned by their package; a directory by its given name."""
        version = metadata.version("tokenlearn-static-model")
        bundled = LocalStaticEmbeddingProvider.bundled()
        assert bundled.model == f"tokenlearn-static-model/10k-64d-int8@{version}"
        assert bundled.dimension == 64
        assert model2vec_provider.model == "model2vec/tokenlearn-10k-64d-int8"

    async def test_vectors_are_unit_length(self) -> None:
        """Both encoders normalise, so a score never depends on a text's length."""
        provider = LocalStaticEmbeddingProvider.bundled()
        for vector in await provider.embed(["short", "a much longer text " * 40]):
            assert sum(x * x for x in vector) == pytest.approx(1.0, abs=1e-5)

    async def test_related_texts_are_closer_than_unrelated_ones(self) -> None:
        """The bundled weights are a real model: a paraphrase beats an unrelated sentence."""
        provider = LocalStaticEmbeddingProvider.bundled()
        cat, kitten, revenue = await provider.embed(
            [
                "The cat sat on the mat.",
                "A kitten rested on a rug.",
                "Quarterly revenue grew by twelve percent.",
            ]
        )
        assert cosine(cat, kitten) > cosine(cat, revenue) + 0.2

    async def test_a_text_the_tokenizer_drops_entirely_is_refused(self) -> None:
        """A zero-width space is not blank to Python but is nothing to the model."""
        provider = LocalStaticEmbeddingProvider.bundled()
        with pytest.raises(EmptyTextError, match="no direction"):
            await provider.embed(["\u200b"])

    async def test_a_bare_string_is_refused_rather_than_embedded_per_character(self) -> None:
        """``embed("abc")`` would otherwise return three vectors, one per letter."""
        provider = LocalStaticEmbeddingProvider.bundled()
        with pytest.raises(InvalidArgumentError, match="sequence of texts"):
            await provider.embed("abc")

    @pytest.mark.parametrize("batch_size", [0, -1, True])
    def test_batch_size_must_be_positive(self, batch_size: int) -> None:
        """A batch size that could never make progress is refused at construction."""
        with pytest.raises(InvalidArgumentError, match="batch_size"):
            LocalStaticEmbeddingProvider.bundled(batch_size=batch_size)


async def test_encoding_runs_off_the_event_loop_one_batch_at_a_time() -> None:
    """The encoder runs in a worker thread (a server's loop keeps answering while a long
    document is embedded) and is never called twice at once, even by concurrent embeds."""
    import asyncio
    import threading
    import time

    loop_thread = threading.get_ident()
    seen: list[int] = []
    running = [0, 0]  # now, most at once

    def encoder(texts: list[str]) -> list[list[float]]:
        running[0] += 1
        running[1] = max(running)
        seen.append(threading.get_ident())
        time.sleep(0.01)
        running[0] -= 1
        return [[1.0, float(len(text))] for text in texts]

    provider = LocalStaticEmbeddingProvider(
        encoder, model="test/lengths", dimension=2, batch_size=2
    )
    texts = [f"text {number}" for number in range(8)]
    first, second = await asyncio.gather(provider.embed(texts), provider.embed(texts[::-1]))
    assert first == second[::-1]
    assert len(first) == 8
    assert seen
    assert loop_thread not in seen
    assert running[1] == 1
