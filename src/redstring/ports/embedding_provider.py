"""EmbeddingProvider: text in, vectors out, one per input, in input order.

Rules (enforced by ``redstring.testing.embedding_provider.EmbeddingProviderCompliance``):

* **Positional.** ``embed(texts)[i]`` is the vector of ``texts[i]``; batching, retries and
  de-duplication never reorder. ``[]`` gives ``[]``.
* Every vector has ``dimension`` finite components and a direction.
* ``embed`` addresses the corpus side of a model and ``embed_query`` the query side; a
  symmetric model gives the same answer to both. A prefix is part of the model's identity,
  so ``model`` changes with it.
* Blank texts raise :class:`~redstring.domain.errors.EmptyTextError`; a bare ``str`` in
  place of a sequence of texts raises ``ValueError`` rather than embedding each character.
* Every vector returned is the caller's own list: repeated texts and cached answers are
  copied out, so changing one vector changes no other answer.
* ``model`` is provider-qualified provenance (``"model2vec/potion-base-8M"``).

Not closable: a provider holds nothing a caller must release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Embeds documents and queries."""

    @property
    def model(self) -> str:
        """Provider-qualified model identity, including any prefix convention."""
        ...

    @property
    def dimension(self) -> int:
        """The length of every vector returned."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Corpus-side vectors, one per text, in order."""
        ...

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Query-side vectors, one per text, in order."""
        ...
