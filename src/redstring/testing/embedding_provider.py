"""The EmbeddingProvider compliance suite: the definition of ``redstring.ports.embedding_provider``.

**Every EmbeddingProvider adapter must pass this suite unchanged.** The contract it exists to
hold is positional: one vector per input, in input order. An adapter that batches, retries a
partial failure or de-duplicates can return the right vectors in the wrong order, and a
caller zipping them onto entities stores the mismatch without raising.

Opt in with a ``provider`` fixture **defined on the subclass**::

    class TestMyProvider(EmbeddingProviderCompliance):
        @pytest.fixture
        def provider(self) -> EmbeddingProvider:
            return MyProvider()

The suite declares a placeholder ``provider`` that raises, so that a subclass that forgot to
supply one fails rather than testing nothing. A fixture on the class shadows it; one at module
level does not, and yields the placeholder's error.

Every case that embeds runs twice, through ``embed`` and through ``embed_query``. Vectors are
compared by cosine, never ``==``: a real server's arithmetic depends on how a batch was
packed, so one text embedded alone and inside a batch differs in its low bits. Texts in a
batch differ from each other, because identical inputs make every permutation look right, and
wrong pairings are asserted dissimilar, so similar-but-wrong vectors cannot pass on the
tolerance alone. The suite does not ask the two sides to differ: a symmetric model is legal.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence

import pytest

from redstring.domain.errors import EmptyTextError
from redstring.domain.vector import cosine, has_zero_norm
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.testing.harness import SuiteGuard

Embed = Callable[[Sequence[str]], Awaitable[list[list[float]]]]
"""``provider.embed`` or ``provider.embed_query``: the two share one contract."""

SIDES = ("embed", "embed_query")

SAME_TEXT_COSINE = 0.999
"""One text, embedded twice or alone and in a batch, is at least this similar to itself."""

DIFFERENT_TEXT_COSINE = 0.95
"""Two of :data:`TEXTS` are less similar than this: far enough below the match threshold that
a vector handed to the wrong text cannot pass as the right one."""

TEXTS = (
    "The cat slept on the warm windowsill all afternoon.",
    "Quarterly revenue rose twelve percent on strong cloud sales.",
    "Photosynthesis turns sunlight, water and carbon dioxide into sugar.",
    "Der Zug nach Berlin fährt morgen um acht Uhr ab.",
    "Whisk two eggs into the flour until the batter is smooth.",
)
"""Unrelated sentences in two languages, so that any real model embeds them far apart."""


class EmbeddingProviderCompliance(SuiteGuard):
    """Cases every EmbeddingProvider passes; define the ``provider`` fixture on the subclass.

    A failure names the port rule in the case's docstring; check that rule in
    ``redstring.ports.embedding_provider`` before suspecting the case.
    """

    @pytest.fixture
    def provider(self) -> EmbeddingProvider:
        """Placeholder: the subclass must shadow it with its own ``provider`` fixture."""
        raise NotImplementedError(
            f"{type(self).__name__} must define `provider` as a fixture on the subclass "
            "(`@pytest.fixture` on a method named `provider`), returning the adapter under "
            "test; a module-level fixture does not shadow this placeholder"
        )

    @pytest.fixture(params=SIDES)
    def embed(self, provider: EmbeddingProvider, request: pytest.FixtureRequest) -> Embed:
        """Each embedding case runs once per side of the model."""
        side: Embed = getattr(provider, request.param)
        return side

    # --- identity -----------------------------------------------------------------------------

    async def test_the_provider_is_an_embedding_provider(self, provider: EmbeddingProvider) -> None:
        """The adapter has every member of the port (a smoke check before any behaviour)."""
        assert isinstance(provider, EmbeddingProvider)

    async def test_model_is_provider_qualified(self, provider: EmbeddingProvider) -> None:
        """``model`` is provenance such as ``"model2vec/potion-base-8M"``: provider, slash, name."""
        model = provider.model
        assert isinstance(model, str)
        vendor, slash, name = model.partition("/")
        assert slash == "/", f"model {model!r} does not name its provider before a '/'"
        assert vendor.strip(), f"model {model!r} has an empty provider part"
        assert name.strip(), f"model {model!r} has an empty name after the provider"

    async def test_dimension_is_a_positive_int(self, provider: EmbeddingProvider) -> None:
        """``dimension`` is an ``int`` above zero (``bool`` is not a dimension)."""
        dimension = provider.dimension
        assert type(dimension) is int
        assert dimension > 0

    # --- shape --------------------------------------------------------------------------------

    async def test_every_vector_has_dimension_finite_components_and_a_direction(
        self, provider: EmbeddingProvider, embed: Embed
    ) -> None:
        """One list of ``dimension`` finite floats per text, none of them the zero vector."""
        vectors = await embed(list(TEXTS))
        assert isinstance(vectors, list)
        assert len(vectors) == len(TEXTS)
        for vector in vectors:
            assert isinstance(vector, list)
            assert len(vector) == provider.dimension
            assert all(isinstance(x, float) and math.isfinite(x) for x in vector)
            assert not has_zero_norm(vector)

    async def test_no_texts_give_no_vectors(self, embed: Embed) -> None:
        """``[]`` in, ``[]`` out: an empty batch is not an error and calls nothing that fails."""
        assert await embed([]) == []

    async def test_a_single_text_gives_a_single_vector(
        self, provider: EmbeddingProvider, embed: Embed
    ) -> None:
        """A batch of one is a list holding one vector, not the vector itself."""
        vectors = await embed([TEXTS[0]])
        assert len(vectors) == 1
        assert len(vectors[0]) == provider.dimension

    # --- the positional contract --------------------------------------------------------------

    async def test_order_is_preserved(self, embed: Embed) -> None:
        """``embed(texts)[i]`` is the vector of ``texts[i]``, and of no other text.

        Each text embedded alone is the reference. The right pairings must match within
        :data:`SAME_TEXT_COSINE`, and every wrong pairing must fall below
        :data:`DIFFERENT_TEXT_COSINE`, so a reordered batch cannot pass on tolerance.
        """
        batch = await embed(list(TEXTS))
        alone = [(await embed([text]))[0] for text in TEXTS]
        for i, vector in enumerate(batch):
            for j, reference in enumerate(alone):
                similarity = cosine(vector, reference)
                if i == j:
                    assert similarity >= SAME_TEXT_COSINE, f"text {i}: cosine {similarity}"
                else:
                    assert similarity < DIFFERENT_TEXT_COSINE, (
                        f"vector {i} resembles text {j} (cosine {similarity})"
                    )

    async def test_a_reversed_batch_gives_the_reversed_vectors(self, embed: Embed) -> None:
        """Permuting the input permutes the output the same way."""
        forward = await embed(list(TEXTS))
        backward = await embed(list(reversed(TEXTS)))
        for vector, reference in zip(forward, reversed(backward), strict=True):
            assert cosine(vector, reference) >= SAME_TEXT_COSINE

    async def test_a_repeated_text_keeps_every_position(self, embed: Embed) -> None:
        """De-duplicating identical texts must still answer each position, in order."""
        texts = [TEXTS[0], TEXTS[1], TEXTS[0], TEXTS[2], TEXTS[1]]
        vectors = await embed(texts)
        alone = {text: (await embed([text]))[0] for text in set(texts)}
        assert len(vectors) == len(texts)
        for text, vector in zip(texts, vectors, strict=True):
            assert cosine(vector, alone[text]) >= SAME_TEXT_COSINE
            for other in alone.keys() - {text}:
                assert cosine(vector, alone[other]) < DIFFERENT_TEXT_COSINE

    async def test_embedding_is_deterministic(self, embed: Embed) -> None:
        """The same texts embedded twice give the same vectors (by cosine)."""
        first = await embed(list(TEXTS))
        second = await embed(list(TEXTS))
        for vector, again in zip(first, second, strict=True):
            assert cosine(vector, again) >= SAME_TEXT_COSINE

    async def test_each_position_holds_its_own_list(self, embed: Embed) -> None:
        """Every vector handed out is the caller's: changing one changes no other answer.

        A provider that de-duplicates a batch, or caches vectors, and hands out the same
        list twice lets a caller normalising one vector in place corrupt its twin, or every
        later answer for that text.
        """
        alone = (await embed([TEXTS[0]]))[0]
        expected = list(alone)
        alone[:] = [-component for component in alone]
        first, second = await embed([TEXTS[0], TEXTS[0]])
        assert cosine(first, expected) >= SAME_TEXT_COSINE, "a later answer shares the list"
        first[:] = [-component for component in first]
        assert cosine(second, expected) >= SAME_TEXT_COSINE, "the duplicate shares its list"

    # --- arguments ----------------------------------------------------------------------------

    async def test_a_bare_string_is_refused_not_split_into_characters(self, embed: Embed) -> None:
        """``embed("Lovelace")`` raises ``ValueError``: a ``str`` is a sequence of characters,
        and one vector per letter is never what the caller meant."""
        with pytest.raises(ValueError, match=r"."):
            await embed("Lovelace")

    async def test_a_blank_text_raises_empty_text_error(self, embed: Embed) -> None:
        """Blank input is refused (``EmptyTextError``, a ``ValueError``), alone or in a batch."""
        for blank in ("", " ", "\n\t  "):
            with pytest.raises(EmptyTextError):
                await embed([blank])
            with pytest.raises(EmptyTextError):
                await embed([TEXTS[0], blank])


EmbeddingProviderCompliance.SUITE = EmbeddingProviderCompliance
