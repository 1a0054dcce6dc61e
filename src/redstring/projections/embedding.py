"""Embedding what can be embedded: one vector per text, or ``None`` for a text the model gives
no direction.

An :class:`~redstring.ports.embedding_provider.EmbeddingProvider` raises
:class:`~redstring.domain.errors.EmptyTextError` for a whole call when one of its texts is
blank or holds only what its tokenizer drops (``"\\x02"``, a lone byte-order mark). A
projection must never stop on such a text: the event that carries it is already in the log,
so a failing projection would fail every later read of the tenant. :func:`embed_each`
therefore splits a refused batch in halves until each refused text stands alone, and answers
``None`` for it; every other text gets its vector, and a batch with nothing to refuse costs
the one call it always did. The answer depends only on the texts and the model, so an
incremental projection and a rebuild agree.
"""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.errors import EmptyTextError
from redstring.ports.embedding_provider import EmbeddingProvider

__all__ = ["embed_each"]


async def embed_each(
    embeddings: EmbeddingProvider, texts: Sequence[str]
) -> list[list[float] | None]:
    """One corpus-side vector per text in order, ``None`` where the model gives no direction.

    Other errors (a lost connection, a dimension mismatch) propagate unchanged.
    """
    if not texts:
        return []
    try:
        return [list(vector) for vector in await embeddings.embed(list(texts))]
    except EmptyTextError:
        if len(texts) == 1:
            return [None]
    middle = len(texts) // 2
    return [
        *await embed_each(embeddings, texts[:middle]),
        *await embed_each(embeddings, texts[middle:]),
    ]
