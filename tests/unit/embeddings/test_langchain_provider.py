"""LangChainEmbeddingProvider over a scripted LangChain ``Embeddings`` client.

``HashingEmbeddings`` is a real ``langchain_core`` ``Embeddings``: it hashes words and
character trigrams into a fixed width (deterministic across processes, unlike ``hash()``)
and records every text it was sent, so the tests see exactly what reached the client.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re

import pytest
from langchain_core.embeddings import Embeddings

from redstring.domain.errors import (
    DimensionMismatchError,
    EmptyTextError,
    InvalidArgumentError,
    RedstringError,
)
from redstring.domain.vector import cosine
from redstring.embeddings.adapters.langchain import LangChainEmbeddingProvider
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.testing.embedding_provider import EmbeddingProviderCompliance

WIDTH = 384
MODEL = "ollama/nomic-embed-text"
DOCUMENT_PREFIX = "search_document: "
QUERY_PREFIX = "search_query: "


class HashingEmbeddings(Embeddings):
    """Feature hashing of words and character trigrams; records every call it receives."""

    def __init__(self, width: int = WIDTH) -> None:
        self.width = width
        self.document_calls: list[list[str]] = []
        self.query_calls: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.document_calls.append(list(texts))
        return [self._vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        self.query_calls.append(text)
        return self._vector(text)

    def _vector(self, text: str) -> list[float]:
        lowered = text.lower()
        features = re.findall(r"\w+", lowered) + [
            lowered[i : i + 3] for i in range(max(1, len(lowered) - 2))
        ]
        vector = [0.0] * self.width
        for feature in features:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "big") % self.width
            vector[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        return [x / norm for x in vector]


class TestLangChainProvider(EmbeddingProviderCompliance):
    @pytest.fixture
    def provider(self) -> EmbeddingProvider:
        return LangChainEmbeddingProvider(HashingEmbeddings(), model=MODEL, dimension=WIDTH)


class TestLangChainProviderWithPrefixesInSmallBatches(EmbeddingProviderCompliance):
    """Asymmetric prefixes and batch_size=2: the suite's batches are split and de-duplicated."""

    @pytest.fixture
    def provider(self) -> EmbeddingProvider:
        return LangChainEmbeddingProvider(
            HashingEmbeddings(),
            model=MODEL,
            dimension=WIDTH,
            document_prefix=DOCUMENT_PREFIX,
            query_prefix=QUERY_PREFIX,
            batch_size=2,
        )


def prefixed(client: Embeddings, **options: object) -> LangChainEmbeddingProvider:
    return LangChainEmbeddingProvider(
        client,
        model=MODEL,
        dimension=WIDTH,
        document_prefix=DOCUMENT_PREFIX,
        query_prefix=QUERY_PREFIX,
        **options,  # type: ignore[arg-type]
    )


class TestPrefixes:
    async def test_each_prefix_reaches_the_client_verbatim_on_its_own_side(self) -> None:
        """Documents go through aembed_documents with one prefix, queries through
        aembed_query with the other, byte for byte."""
        client = HashingEmbeddings()
        provider = prefixed(client)
        [document] = await provider.embed(["Ada Lovelace"])
        [query] = await provider.embed_query(["Ada Lovelace"])
        assert client.document_calls == [["search_document: Ada Lovelace"]]
        assert client.query_calls == ["search_query: Ada Lovelace"]
        assert cosine(document, query) < 0.999

    async def test_without_prefixes_the_text_is_sent_unchanged(self) -> None:
        """No prefix means nothing is added, not even a space."""
        client = HashingEmbeddings()
        provider = LangChainEmbeddingProvider(client, model=MODEL, dimension=WIDTH)
        await provider.embed([" Ada "])
        await provider.embed_query([" Ada "])
        assert client.document_calls == [[" Ada "]]
        assert client.query_calls == [" Ada "]

    def test_the_prefixes_are_part_of_the_model_identity(self) -> None:
        """Changing or swapping a prefix changes ``model``; no prefix leaves it bare."""
        client = HashingEmbeddings()

        def model_of(document: str, query: str) -> str:
            return LangChainEmbeddingProvider(
                client, model=MODEL, dimension=WIDTH, document_prefix=document, query_prefix=query
            ).model

        names = {
            model_of("", ""),
            model_of(DOCUMENT_PREFIX, QUERY_PREFIX),
            model_of(QUERY_PREFIX, DOCUMENT_PREFIX),
            model_of(DOCUMENT_PREFIX, ""),
            model_of("", DOCUMENT_PREFIX),
            model_of("search_document:", QUERY_PREFIX),
        }
        assert len(names) == 6
        assert model_of("", "") == MODEL
        assert model_of(DOCUMENT_PREFIX, QUERY_PREFIX).startswith(f"{MODEL};")
        assert '"search_document: "' in model_of(DOCUMENT_PREFIX, QUERY_PREFIX)


class TestPositionalContract:
    async def test_batches_go_out_in_input_order_at_most_batch_size_each(self) -> None:
        """Five distinct texts at batch_size=2 are three calls, in order."""
        client = HashingEmbeddings()
        provider = LangChainEmbeddingProvider(client, model=MODEL, dimension=WIDTH, batch_size=2)
        texts = ["a one", "b two", "c three", "d four", "e five"]
        vectors = await provider.embed(texts)
        assert client.document_calls == [["a one", "b two"], ["c three", "d four"], ["e five"]]
        assert vectors == [client._vector(text) for text in texts]

    async def test_a_repeated_text_is_sent_once_and_answers_every_position(self) -> None:
        """De-duplication saves calls without losing or moving a position."""
        client = HashingEmbeddings()
        provider = LangChainEmbeddingProvider(client, model=MODEL, dimension=WIDTH)
        texts = ["Ada", "Babbage", "Ada", "Ada", "Menabrea", "Babbage"]
        vectors = await provider.embed(texts)
        assert client.document_calls == [["Ada", "Babbage", "Menabrea"]]
        assert vectors == [client._vector(text) for text in texts]

    async def test_queries_finishing_out_of_order_are_answered_in_input_order(self) -> None:
        """Concurrent aembed_query calls completing in reverse still land on their own texts."""

        class ReverseFinishing(HashingEmbeddings):
            async def aembed_query(self, text: str) -> list[float]:
                # Earlier texts wait longer, so completion order is the reverse of input order.
                await asyncio.sleep(0.01 * (5 - int(text.split()[-1])))
                return self.embed_query(text)

        client = ReverseFinishing()
        provider = LangChainEmbeddingProvider(client, model=MODEL, dimension=WIDTH)
        texts = [f"query {n}" for n in range(5)]
        vectors = await provider.embed_query(texts)
        assert client.query_calls == list(reversed(texts))
        assert vectors == [client._vector(text) for text in texts]


class TestWhatTheClientReturns:
    async def test_a_vector_of_the_wrong_width_raises_dimension_mismatch(self) -> None:
        """A client answering at 383 components for a declared 384 is refused, not stored."""
        provider = LangChainEmbeddingProvider(
            HashingEmbeddings(width=WIDTH - 1), model=MODEL, dimension=WIDTH
        )
        with pytest.raises(DimensionMismatchError) as caught:
            await provider.embed(["Ada"])
        assert (caught.value.expected, caught.value.actual) == (WIDTH, WIDTH - 1)
        with pytest.raises(DimensionMismatchError):
            await provider.embed_query(["Ada"])

    async def test_a_client_returning_too_few_vectors_is_an_error(self) -> None:
        """Zipping fewer vectors onto the texts would silently drop positions."""

        class Lossy(HashingEmbeddings):
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                return super().embed_documents(texts)[:-1]

        provider = LangChainEmbeddingProvider(Lossy(), model=MODEL, dimension=WIDTH)
        with pytest.raises(RedstringError, match="2 vectors for 3 texts"):
            await provider.embed(["Ada", "Babbage", "Menabrea"])

    async def test_a_non_finite_component_is_an_error(self) -> None:
        """NaN has no place in a vector store; it is refused at the provider."""

        class Broken(HashingEmbeddings):
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                return [[math.nan] * self.width for _ in texts]

        provider = LangChainEmbeddingProvider(Broken(), model=MODEL, dimension=WIDTH)
        with pytest.raises(RedstringError, match="non-finite"):
            await provider.embed(["Ada"])

    async def test_the_clients_own_error_propagates_unchanged(self) -> None:
        """Retrying a transport failure is the caller's policy, so it is not wrapped."""

        class Down(HashingEmbeddings):
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                raise ConnectionError("connection refused")

        provider = LangChainEmbeddingProvider(Down(), model=MODEL, dimension=WIDTH)
        with pytest.raises(ConnectionError, match="refused"):
            await provider.embed(["Ada"])


class TestArguments:
    @pytest.mark.parametrize("side", ["embed", "embed_query"])
    async def test_a_blank_text_is_refused_before_any_call(self, side: str) -> None:
        """Nothing reaches the client when any text in the batch is blank."""
        client = HashingEmbeddings()
        provider = prefixed(client)
        with pytest.raises(EmptyTextError, match=r"texts\[1\]"):
            await getattr(provider, side)(["Ada", "  "])
        assert client.document_calls == []
        assert client.query_calls == []

    async def test_a_bare_string_is_refused(self) -> None:
        """A str is a sequence of characters; embedding each one is never what was meant."""
        provider = LangChainEmbeddingProvider(HashingEmbeddings(), model=MODEL, dimension=WIDTH)
        with pytest.raises(InvalidArgumentError, match="sequence of texts"):
            await provider.embed("Ada")

    @pytest.mark.parametrize("model", ["nomic-embed-text", "/nomic", "ollama/ "])
    def test_model_must_be_provider_qualified(self, model: str) -> None:
        """Provenance names the provider and the model."""
        with pytest.raises(InvalidArgumentError, match="provider-qualified"):
            LangChainEmbeddingProvider(HashingEmbeddings(), model=model, dimension=WIDTH)

    @pytest.mark.parametrize("dimension", [0, -3, True])
    def test_dimension_must_be_a_positive_int(self, dimension: int) -> None:
        """The declared width is checked once, at construction."""
        with pytest.raises(InvalidArgumentError, match="dimension"):
            LangChainEmbeddingProvider(HashingEmbeddings(), model=MODEL, dimension=dimension)

    @pytest.mark.parametrize("batch_size", [0, -1])
    def test_batch_size_must_be_positive(self, batch_size: int) -> None:
        """A batch size that could never make progress is refused."""
        with pytest.raises(InvalidArgumentError, match="batch_size"):
            LangChainEmbeddingProvider(
                HashingEmbeddings(), model=MODEL, dimension=WIDTH, batch_size=batch_size
            )
