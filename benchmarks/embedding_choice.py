"""The embedding models a quality benchmark can run with, by name (``--embeddings``)."""

from __future__ import annotations

from collections.abc import Callable

from redstring.ports.embedding_provider import EmbeddingProvider


def _static() -> EmbeddingProvider:
    from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider

    return LocalStaticEmbeddingProvider.bundled()


EMBEDDINGS: dict[str, Callable[[], EmbeddingProvider]] = {
    "default": _static,
    "static": _static,
}
"""``default`` is what ``KnowledgeGraph.in_memory()`` uses when given no provider."""


def load_embeddings(name: str) -> EmbeddingProvider:
    """The provider called ``name`` in :data:`EMBEDDINGS`, loaded now."""
    return EMBEDDINGS[name]()
