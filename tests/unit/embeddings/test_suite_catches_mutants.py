"""EmbeddingProviderCompliance fails on each defect an embedding adapter is known to ship with.

Each mutant is FakeEmbeddingProvider with one planted defect. The suite must fail the named
case on it, on the side the defect is planted in, and pass everything on the intact
provider, or the failure would say nothing about the defect.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import pytest

from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.testing.embedding_provider import EmbeddingProviderCompliance
from tests.suite_failures import failing_cases


class ReversingProvider(FakeEmbeddingProvider):
    """A batch answered back to front, as a server returning results out of order would."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return list(reversed(await super().embed(texts)))


class SortingDedupProvider(FakeEmbeddingProvider):
    """De-duplication through a sorted set, answered in the set's order, not the input's."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        distinct = sorted(set(texts))
        vectors = await super().embed(distinct)
        return vectors + vectors[: len(texts) - len(distinct)]


class AppendingDedupProvider(FakeEmbeddingProvider):
    """Each distinct text embedded once, in first-seen order, repeats tacked on at the end.

    Correct for distinct texts, so only a batch holding a repeated text can catch it.
    """

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        distinct = list(dict.fromkeys(texts))
        vectors = dict(zip(distinct, await super().embed(distinct), strict=True))
        repeats = [text for index, text in enumerate(texts) if text in texts[:index]]
        return [vectors[text] for text in distinct + repeats]


class WrongDimensionProvider(FakeEmbeddingProvider):
    """Declares 768 and returns 767: the off-by-one a truncated response would produce."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [vector[:-1] for vector in await super().embed(texts)]


class QuerySideReversingProvider(FakeEmbeddingProvider):
    """Only the query side reorders, so only the suite's ``embed_query`` run can notice."""

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return list(reversed(await super().embed(texts)))


class BlankAcceptingProvider(FakeEmbeddingProvider):
    """Blank texts embedded like any other instead of refused."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]


class PerCharacterProvider(FakeEmbeddingProvider):
    """No check for a bare ``str``: "Lovelace" is eight one-letter texts."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await super().embed(list(texts))


class SharedDuplicatesProvider(FakeEmbeddingProvider):
    """A de-duplicated batch answers each repeat with the very list of its first occurrence."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        distinct = list(dict.fromkeys(texts))
        vectors = dict(zip(distinct, await super().embed(distinct), strict=True))
        return [vectors[text] for text in texts]


class CachingByReferenceProvider(FakeEmbeddingProvider):
    """A cache that hands out its own stored lists instead of copies."""

    def __init__(self) -> None:
        super().__init__()
        self._cache: dict[str, list[float]] = {}

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        fresh = [text for text in dict.fromkeys(texts) if text not in self._cache]
        self._cache.update(zip(fresh, await super().embed(fresh), strict=True))
        return [
            self._cache[text] if texts.count(text) == 1 else list(self._cache[text])
            for text in texts
        ]


class UnqualifiedModelProvider(FakeEmbeddingProvider):
    """A bare model name: provenance that cannot say whose model made the vectors."""

    @property
    def model(self) -> str:
        return "hash-768"


class FloatDimensionProvider(FakeEmbeddingProvider):
    """``dimension`` read from a JSON config as 768.0: equal to 768, but not an int."""

    @property
    def dimension(self) -> int:
        return float(super().dimension)  # type: ignore[return-value]


class EmptyBatchFailsProvider(FakeEmbeddingProvider):
    """An empty batch forwarded to a client that refuses one."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            raise RuntimeError("input must contain at least one text")
        return await super().embed(texts)


class UnwrapsASingleTextProvider(FakeEmbeddingProvider):
    """A batch of one answered with the bare vector, as ``embed_query``-style clients do."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = await super().embed(texts)
        return vectors[0] if len(vectors) == 1 else vectors  # type: ignore[return-value]


class DriftingProvider(FakeEmbeddingProvider):
    """A different model on every call, as an unpinned remote model version would be."""

    def __init__(self) -> None:
        super().__init__()
        self._calls = 0

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self._calls += 1
        drifted = FakeEmbeddingProvider(model=f"fake/drift-{self._calls}")
        return await drifted.embed(texts)


class SortsByTextProvider(FakeEmbeddingProvider):
    """Answers sorted by text: right whenever the input happens to be sorted."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            return await super().embed(texts)
        return await super().embed(sorted(texts))


MUTANTS: dict[type[FakeEmbeddingProvider], str] = {
    ReversingProvider: "test_order_is_preserved[embed]",
    SortingDedupProvider: "test_order_is_preserved[embed]",
    AppendingDedupProvider: "test_a_repeated_text_keeps_every_position[embed]",
    WrongDimensionProvider: (
        "test_every_vector_has_dimension_finite_components_and_a_direction[embed]"
    ),
    QuerySideReversingProvider: "test_order_is_preserved[embed_query]",
    BlankAcceptingProvider: "test_a_blank_text_raises_empty_text_error[embed]",
    PerCharacterProvider: "test_a_bare_string_is_refused_not_split_into_characters[embed]",
    SharedDuplicatesProvider: "test_each_position_holds_its_own_list[embed]",
    CachingByReferenceProvider: "test_each_position_holds_its_own_list[embed]",
    UnqualifiedModelProvider: "test_model_is_provider_qualified",
    FloatDimensionProvider: "test_dimension_is_a_positive_int",
    EmptyBatchFailsProvider: "test_no_texts_give_no_vectors[embed]",
    UnwrapsASingleTextProvider: "test_a_single_text_gives_a_single_vector[embed]",
    DriftingProvider: "test_embedding_is_deterministic[embed]",
    SortsByTextProvider: "test_a_reversed_batch_gives_the_reversed_vectors[embed]",
}

NO_MUTANT_OF_ITS_OWN = {
    "test_the_provider_is_an_embedding_provider": (
        "an isinstance smoke check: a provider missing a member fails every case that uses it "
        "(UnqualifiedModelProvider-style defects are named by the case of their member)"
    ),
}
"""Suite cases no mutant names, and why none can be written for them alone."""


class _Run(EmbeddingProviderCompliance):
    """The suite, instantiated outside pytest's collection."""


@functools.cache
def _failures(adapter: type[FakeEmbeddingProvider]) -> dict[str, BaseException]:
    return failing_cases(
        _Run(),
        {
            "provider": {"": adapter},
            "embed": {
                "embed": lambda: adapter().embed,
                "embed_query": lambda: adapter().embed_query,
            },
        },
    )


def test_the_intact_provider_passes_every_case() -> None:
    """The control: without it, a mutant's failures could be the runner's."""
    assert _failures(FakeEmbeddingProvider) == {}


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda cls: cls.__name__)
def test_the_suite_catches_the_mutant(mutant: type[FakeEmbeddingProvider]) -> None:
    """The case written for the defect fails on it."""
    failures = _failures(mutant)
    assert MUTANTS[mutant] in failures, f"{mutant.__name__} survived; failures: {sorted(failures)}"


def test_a_query_side_defect_fails_only_the_query_side() -> None:
    """Both sides really run: a defect in ``embed_query`` leaves every ``[embed]`` case green."""
    failures = _failures(QuerySideReversingProvider)
    assert failures
    assert all(label.endswith("[embed_query]") for label in failures)


def test_a_dedup_correct_on_distinct_texts_passes_the_distinct_text_cases() -> None:
    """Why the repeated-text case exists: the order case alone cannot see this defect."""
    failures = _failures(AppendingDedupProvider)
    assert "test_order_is_preserved[embed]" not in failures


def test_every_case_is_named_by_a_mutant_or_says_why_not() -> None:
    """A new suite case arrives with its mutant; a case without one is a visible decision."""
    cases = {name for name in dir(EmbeddingProviderCompliance) if name.startswith("test_")}
    named = {name.partition("[")[0] for name in MUTANTS.values()}
    unexplained = cases - named - set(NO_MUTANT_OF_ITS_OWN) - {"test_the_suite_is_run_unchanged"}
    assert unexplained == set()


ALONE = (
    UnqualifiedModelProvider,
    FloatDimensionProvider,
    EmptyBatchFailsProvider,
)
"""Mutants exactly one case catches (on both sides where the defect is on both)."""


@pytest.mark.parametrize("mutant", ALONE, ids=lambda cls: cls.__name__)
def test_the_mutant_is_caught_by_its_case_alone(mutant: type[FakeEmbeddingProvider]) -> None:
    """Every failure is the named case, on one side or both."""
    named = MUTANTS[mutant].partition("[")[0]
    assert {label.partition("[")[0] for label in _failures(mutant)} == {named}


def test_the_placeholder_fixture_refuses_to_stand_in_for_an_adapter() -> None:
    """A subclass that forgot its ``provider`` fixture fails, naming what to define."""
    placeholder = EmbeddingProviderCompliance.provider.__wrapped__  # type: ignore[attr-defined]
    with pytest.raises(NotImplementedError, match="define `provider` as a fixture on the subclass"):
        placeholder(_Run())
