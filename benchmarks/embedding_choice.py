"""The embedding models a quality benchmark can run with, by name (``--embeddings``)."""

from __future__ import annotations

from collections.abc import Callable

from redstring.ports.embedding_provider import EmbeddingProvider


def _static() -> EmbeddingProvider:
    from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider

    return LocalStaticEmbeddingProvider.bundled()


def _minilm() -> EmbeddingProvider:
    from redstring.embeddings.adapters.onnx import OnnxEmbeddingProvider

    return OnnxEmbeddingProvider.minilm()


EMBEDDINGS: dict[str, Callable[[], EmbeddingProvider]] = {
    "default": _minilm,
    "static": _static,
    "minilm": _minilm,
}
"""``default`` is what ``KnowledgeGraph.in_memory()`` uses when given no provider (MiniLM)."""


def load_embeddings(name: str) -> EmbeddingProvider:
    """The provider called ``name`` in :data:`EMBEDDINGS`, loaded now."""
    return EMBEDDINGS[name]()
