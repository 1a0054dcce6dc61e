"""EmbeddingProvider over any LangChain ``Embeddings`` client (OpenAI, Ollama, vLLM, ...).

``LangChainEmbeddingProvider(client, model="ollama/nomic-embed-text", dimension=768)``
embeds documents through ``client.aembed_documents`` and queries through
``client.aembed_query`` (so a client that treats queries differently keeps doing so).

What a caller may rely on:

* The positional contract: one vector per input, in input order; identical texts are sent
  once, batches of at most ``batch_size`` go out in order, and every position gets its own
  list.
* ``document_prefix`` and ``query_prefix`` are prepended verbatim to every text sent on that
  side. A corpus embedded with a prefix and one embedded without are not comparable, so the
  prefixes are part of ``model``: changing one changes the identity, and with it the store.
* Blank texts raise :class:`~redstring.domain.errors.EmptyTextError` before any call; a
  vector of the wrong length raises :class:`~redstring.domain.errors.DimensionMismatchError`.
* The client's own errors propagate unchanged: retrying them is the caller's policy.

No LangChain module is imported at run time; the client is duck-typed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from redstring.domain.errors import InvalidArgumentError
from redstring.embeddings.adapters._positional import (
    check_batch_size,
    check_model_name,
    embed_in_order,
)

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings


class LangChainEmbeddingProvider:
    """Embeds through a LangChain ``Embeddings`` client at a declared dimension."""

    def __init__(
        self,
        client: Embeddings,
        *,
        model: str,
        dimension: int,
        document_prefix: str = "",
        query_prefix: str = "",
        batch_size: int = 64,
    ) -> None:
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
            raise InvalidArgumentError(
                f"dimension is {dimension!r}: pass the model's vector length, a positive int"
            )
        self._client = client
        self._base_model = check_model_name(model)
        self._dimension = dimension
        self._document_prefix = document_prefix
        self._query_prefix = query_prefix
        self._batch_size = check_batch_size(batch_size)

    @property
    def model(self) -> str:
        """``provider/name``, followed by the prefixes when there are any."""
        if not self._document_prefix and not self._query_prefix:
            return self._base_model
        # JSON strings: unambiguous for any prefix, including quotes and trailing spaces.
        return (
            f"{self._base_model};document_prefix="
            f"{json.dumps(self._document_prefix, ensure_ascii=False)};query_prefix="
            f"{json.dumps(self._query_prefix, ensure_ascii=False)}"
        )

    @property
    def dimension(self) -> int:
        """The length of every vector returned, as declared at construction."""
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Corpus-side vectors, one per text, in order, each text sent with the document prefix."""
        return await embed_in_order(
            texts,
            self._embed_documents,
            dimension=self._dimension,
            batch_size=self._batch_size,
            model=self.model,
        )

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Query-side vectors, one per text, in order, each text sent with the query prefix."""
        return await embed_in_order(
            texts,
            self._embed_queries,
            dimension=self._dimension,
            batch_size=self._batch_size,
            model=self.model,
        )

    async def _embed_documents(self, batch: list[str]) -> list[list[float]]:
        return await self._client.aembed_documents([self._document_prefix + t for t in batch])

    async def _embed_queries(self, batch: list[str]) -> list[list[float]]:
        # gather returns results in argument order, whatever order the calls finish in.
        return list(
            await asyncio.gather(
                *(self._client.aembed_query(self._query_prefix + text) for text in batch)
            )
        )
