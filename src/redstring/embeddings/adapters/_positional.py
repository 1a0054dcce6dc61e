"""The positional contract, kept in one place for every embedding adapter.

``embed_in_order`` checks the texts, embeds each distinct text once in batches, checks every
vector the model returned and hands back one fresh list per input, in input order. Batching
and de-duplication happen here and nowhere else, so no adapter can reorder by accident.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence

from redstring.domain.errors import (
    DimensionMismatchError,
    EmptyTextError,
    InvalidArgumentError,
    RedstringError,
)
from redstring.domain.vector import has_zero_norm

_SURELY_DIRECTED = 1e-18

EmbedBatch = Callable[[list[str]], Awaitable[Sequence[Sequence[float]]]]
"""Embeds a batch of distinct, non-blank texts; must return one vector per text, in order."""


def check_batch_size(batch_size: int) -> int:
    """``batch_size`` if it is a positive int, else InvalidArgumentError."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidArgumentError(f"batch_size is {batch_size!r}: pass a positive integer")
    return batch_size


def check_model_name(model: str) -> str:
    """``model`` if it reads ``provider/name``, else InvalidArgumentError."""
    provider, _, name = model.partition("/")
    if not provider.strip() or not name.strip():
        raise InvalidArgumentError(
            f"model {model!r} is not provider-qualified: pass provenance such as "
            "'ollama/nomic-embed-text' or 'model2vec/potion-base-8M'"
        )
    return model


async def embed_in_order(
    texts: Sequence[str],
    embed_batch: EmbedBatch,
    *,
    dimension: int,
    batch_size: int,
    model: str,
) -> list[list[float]]:
    """One checked vector per text, in input order; ``[]`` for ``[]``.

    Raises InvalidArgumentError for a bare ``str`` (a sequence of characters, never what a
    caller meant), EmptyTextError for a blank text (before any call) or for a text the model
    gives no direction to, DimensionMismatchError for a vector of the wrong length, and
    RedstringError when the model returns the wrong number of vectors or a non-finite one.
    """
    if isinstance(texts, str):
        raise InvalidArgumentError(
            f"texts is the str {texts[:40]!r}: pass a sequence of texts, e.g. [text]"
        )
    for index, text in enumerate(texts):
        if not text.strip():
            raise EmptyTextError(
                f"texts[{index}] is blank ({text[:20]!r}): every text needs at least one "
                "non-whitespace character"
            )
    # dict keeps first-occurrence order; duplicates are embedded once and copied out.
    distinct = list(dict.fromkeys(texts))
    vectors: dict[str, list[float]] = {}
    for start in range(0, len(distinct), batch_size):
        batch = distinct[start : start + batch_size]
        returned = await embed_batch(batch)
        if len(returned) != len(batch):
            raise RedstringError(
                f"{model} returned {len(returned)} vectors for {len(batch)} texts: the "
                "positional contract needs exactly one per text"
            )
        for text, vector in zip(batch, returned, strict=True):
            vectors[text] = _checked(vector, text=text, dimension=dimension, model=model)
    return [list(vectors[text]) for text in texts]


def _checked(vector: Sequence[float], *, text: str, dimension: int, model: str) -> list[float]:
    if len(vector) != dimension:
        raise DimensionMismatchError(expected=dimension, actual=len(vector))
    components = [float(component) for component in vector]
    if not all(math.isfinite(component) for component in components):
        raise RedstringError(f"{model} returned a non-finite component for text {text[:40]!r}")
    # has_zero_norm narrows every component to float32 in Python; a component this large
    # already squares above float32's smallest normal, so only near-zero vectors pay for it.
    if max(map(abs, components), default=0.0) < _SURELY_DIRECTED and has_zero_norm(components):
        raise EmptyTextError(
            f"{model} gives text {text[:40]!r} a vector with no direction: it holds nothing "
            "the model can embed (only characters its tokenizer drops)"
        )
    return components
