"""FakeEmbeddingProvider: deterministic hash-seeded vectors, for tests that need no model.

It passes ``redstring.testing.embedding_provider.EmbeddingProviderCompliance`` unchanged.
A text's vector is derived from SHAKE-256 of the model name and the text (``hashlib``, never
the per-process salted ``hash()``), so it is the same in every process and on every machine.
Different texts get independent directions: at the default width two of them have a cosine
near zero, so a vector handed to the wrong text is plainly wrong. Vectors carry no meaning;
similar texts are no closer than unrelated ones.

The default width is a realistic 768 on purpose: a fake at width 8 invites a check written
with ``is`` that passes on every integer CPython caches and fails on every real vector.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from redstring.domain.errors import EmptyTextError, InvalidArgumentError

_WORD = 4  # bytes of hash output per component
_SCALE = 2.0**32


class FakeEmbeddingProvider:
    """A symmetric fake: ``embed`` and ``embed_query`` return the same unit vectors.

    ``model`` defaults to ``"fake/hash-<dimension>"`` (``"fake/hash-768"``), since the width
    is part of the vectors' identity. Blank texts raise :class:`EmptyTextError`; a bare
    ``str`` in place of a sequence of texts raises :class:`InvalidArgumentError` rather than
    embedding each character.
    """

    def __init__(self, dimension: int = 768, model: str | None = None) -> None:
        if type(dimension) is not int or dimension < 1:
            raise InvalidArgumentError(
                f"dimension={dimension!r} is not a positive int: pass the vector width, e.g. 768"
            )
        name = f"fake/hash-{dimension}" if model is None else model
        vendor, slash, rest = name.partition("/")
        if not (slash and vendor.strip() and rest.strip()):
            raise InvalidArgumentError(
                f"model={name!r} is not provider-qualified: use '<provider>/<name>', "
                "e.g. 'fake/hash-768'"
            )
        self._dimension = dimension
        self._model = name

    @property
    def model(self) -> str:
        """Provider-qualified identity; it seeds the vectors, so two models never agree."""
        return self._model

    @property
    def dimension(self) -> int:
        """The length of every vector returned."""
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order; the same text always gets the same vector."""
        if isinstance(texts, str):
            raise InvalidArgumentError(
                f"texts is the single string {texts[:40]!r}: pass a list of texts, e.g. [text]"
            )
        for index, text in enumerate(texts):
            if not text.strip():
                raise EmptyTextError(
                    f"text {index} is blank ({text!r}): every text to embed needs at least one "
                    "non-whitespace character"
                )
        return [self._vector(text) for text in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """The same as :meth:`embed`: this fake models a symmetric embedding model."""
        return await self.embed(texts)

    def _vector(self, text: str) -> list[float]:
        digest = hashlib.shake_256(f"{self._model}\x00{text}".encode()).digest(
            _WORD * self._dimension
        )
        # Each word maps to the midpoint of its bucket in (-1, 1), so no component is zero.
        components = [
            (int.from_bytes(digest[i : i + _WORD], "big") + 0.5) / _SCALE * 2.0 - 1.0
            for i in range(0, len(digest), _WORD)
        ]
        norm = math.sqrt(math.fsum(x * x for x in components))
        return [x / norm for x in components]
