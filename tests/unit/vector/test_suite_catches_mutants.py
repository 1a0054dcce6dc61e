"""VectorStoreCompliance fails on adapters with planted defects, each named where it is caught.

Every mutant is InMemoryVectorStore with one plausible mistake. Each row names the suite
tests that must fail on it; they are run in process against the mutant, and run the same way
against the unbroken adapter to prove the harness itself reports a pass.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from redstring.domain.errors import DimensionMismatchError, ZeroVectorError
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorMatch, VectorRecord, cosine, has_zero_norm
from redstring.ports.vector_store import VectorStore
from redstring.testing.vector_store import VectorStoreCompliance
from redstring.vector.adapters.memory import InMemoryVectorStore
from tests.compliance_coverage import isolation_test_names
from tests.lifecycle_mutants import lifecycle_mutants
from tests.suite_failures import run_suite_test


class ReturnsTheStoredRecord(InMemoryVectorStore):
    async def get(self, tenant_id: TenantId, entity_id: EntityId) -> VectorRecord | None:
        return self._records.get((tenant_id, entity_id))


class SharesMetadataWithMatches(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        found = await super().search(tenant_id, query, **kw)
        return [
            VectorMatch.model_construct(
                entity_id=match.entity_id,
                score=match.score,
                metadata=self._records[(tenant_id, match.entity_id)].metadata,
            )
            for match in found
        ]


class KeepsTheCallersRecord(InMemoryVectorStore):
    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        for record in records:
            self._validate(record.vector)
        for record in records:
            self._records[(tenant_id, record.entity_id)] = record


class GetIgnoresTheTenant(InMemoryVectorStore):
    async def get(self, tenant_id: TenantId, entity_id: EntityId) -> VectorRecord | None:
        for (_, stored_id), record in self._records.items():
            if stored_id == entity_id:
                return record.model_copy(deep=True)
        return None


class SearchIgnoresTheTenant(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        everyone = InMemoryVectorStore(dimension=self.dimension)
        for (_, entity_id), record in self._records.items():
            everyone._records[(tenant_id, entity_id)] = record
        return await InMemoryVectorStore.search(everyone, tenant_id, query, **kw)


class DeleteIgnoresTheTenant(InMemoryVectorStore):
    async def delete(self, tenant_id: TenantId, entity_id: EntityId) -> bool:
        doomed = [key for key in self._records if key[1] == entity_id]
        for key in doomed:
            del self._records[key]
        return bool(doomed)


class DeleteByTenantCountsEveryone(InMemoryVectorStore):
    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        await super().delete_by_tenant(tenant_id)
        return len(self._records) + 1


class DeleteAlwaysSaysYes(InMemoryVectorStore):
    async def delete(self, tenant_id: TenantId, entity_id: EntityId) -> bool:
        await super().delete(tenant_id, entity_id)
        return True


class FiltersAfterK(InMemoryVectorStore):
    async def search(
        self,
        tenant_id: TenantId,
        query: Sequence[float],
        *,
        k: int = 10,
        entity_types: Collection[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        top = await super().search(tenant_id, query, k=k)
        return [
            match
            for match in top
            if (entity_types is None or match.metadata.get("entity_type") in entity_types)
            and (min_score is None or match.score >= min_score)
        ]


class IgnoresMinScore(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        kw.pop("min_score", None)
        return await super().search(tenant_id, query, **kw)


class EmptyEntityTypesMeansNoFilter(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        if not kw.get("entity_types"):
            kw["entity_types"] = None
        return await super().search(tenant_id, query, **kw)


class ReadsEntityTypeRaw(InMemoryVectorStore):
    """Compares the raw metadata value with a set: TypeError on a list-valued entity_type."""

    async def search(
        self,
        tenant_id: TenantId,
        query: Sequence[float],
        *,
        k: int = 10,
        entity_types: Collection[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        found = await super().search(tenant_id, query, k=len(self._records) + 1)
        if entity_types is not None:
            wanted = frozenset(entity_types)
            found = [m for m in found if m.metadata.get("entity_type") in wanted]
        return found[:k]


class NoIdTieBreak(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        k = kw.pop("k", 10)
        found = await super().search(tenant_id, query, k=len(self._records), **kw)
        order = list(self._records)
        found.sort(key=lambda m: (-m.score, order.index((tenant_id, m.entity_id))))
        return found[:k]


class ReportsCosineDistance(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        found = await super().search(tenant_id, query, **kw)
        for match in found:
            match.score = 1.0 - cosine(query, self._records[(tenant_id, match.entity_id)].vector)
        return found


class ReportsRawCosine(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        found = await super().search(tenant_id, query, **kw)
        for match in found:
            match.score = cosine(query, self._records[(tenant_id, match.entity_id)].vector)
        return found


class ChecksOnlyTheLength(InMemoryVectorStore):
    def _validate(self, vector: Sequence[float]) -> None:
        if len(vector) != self.dimension:
            raise DimensionMismatchError(expected=self.dimension, actual=len(vector))


class RejectsOnlyExactZeros(InMemoryVectorStore):
    def _validate(self, vector: Sequence[float]) -> None:
        if len(vector) != self.dimension:
            raise DimensionMismatchError(expected=self.dimension, actual=len(vector))
        if all(component == 0.0 for component in vector):
            raise ZeroVectorError("zero vector")


class ComparesTheDimensionWithIs(InMemoryVectorStore):
    def _validate(self, vector: Sequence[float]) -> None:
        if len(vector) is not self._dimension:
            raise DimensionMismatchError(expected=self.dimension, actual=len(vector))
        super()._validate(vector)


class ValidatesQueriesOnlyAgainstRecords(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        if not any(owner == tenant_id for owner, _ in self._records):
            return []
        return await super().search(tenant_id, query, **kw)


class UpsertManyIsNotAtomic(InMemoryVectorStore):
    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        for record in records:
            self._validate(record.vector)
            self._records[(tenant_id, record.entity_id)] = record.model_copy(deep=True)


class FirstWriteWins(InMemoryVectorStore):
    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        for record in records:
            self._validate(record.vector)
        for record in records:
            self._records.setdefault((tenant_id, record.entity_id), record.model_copy(deep=True))


class DropsMetadata(InMemoryVectorStore):
    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        await super().upsert_many(
            tenant_id, [record.model_copy(update={"metadata": {}}) for record in records]
        )


class RoundsComponents(InMemoryVectorStore):
    """Stores three decimals, as a lossy quantising backend would."""

    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        rounded = [
            record.model_copy(update={"vector": [round(c, 3) or 1.0 for c in record.vector]})
            for record in records
        ]
        await super().upsert_many(tenant_id, rounded)


class NegativeKFindsNothing(InMemoryVectorStore):
    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        if kw.get("k", 10) < 0:
            return []
        return await super().search(tenant_id, query, **kw)


class MissesAQuarterOfALargeCorpus(InMemoryVectorStore):
    """An approximate index: exact on small tenants, blind to a quarter of a large one."""

    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        held = [key for key in self._records if key[0] == tenant_id]
        if len(held) < 100:
            return await super().search(tenant_id, query, **kw)
        visible = InMemoryVectorStore(dimension=self.dimension)
        visible._records = {
            key: record for key, record in self._records.items() if key[1].int % 4 != 0
        }
        return await InMemoryVectorStore.search(visible, tenant_id, query, **kw)


class ExclusiveMinScore(InMemoryVectorStore):
    """``score > min_score``: a record scoring exactly the threshold is dropped."""

    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        if kw.get("min_score") is not None:
            kw["min_score"] = math.nextafter(kw["min_score"], math.inf)
        return await super().search(tenant_id, query, **kw)


class StartsWithARecord(InMemoryVectorStore):
    """Not empty when handed over, as a store after an incomplete wipe would be."""

    def __init__(self, dimension: int) -> None:
        super().__init__(dimension=dimension)
        leftover = [1.0] * dimension
        self._records[(TenantId("tenant-a"), EntityId(uuid.UUID(int=7)))] = VectorRecord(
            entity_id=EntityId(uuid.UUID(int=7)), vector=leftover
        )


class ReportsAnotherDimension(InMemoryVectorStore):
    """Validates at the width it was built with but reports a hard-coded 768."""

    @property
    def dimension(self) -> int:
        return 768


class UpsertChecksOnlyTheNorm(InMemoryVectorStore):
    """The single-record path skips the length check its batch twin makes."""

    async def upsert(self, tenant_id: TenantId, record: VectorRecord) -> None:
        if has_zero_norm(record.vector):
            raise ZeroVectorError("a zero vector has no direction")
        self._records[(tenant_id, record.entity_id)] = record.model_copy(deep=True)


class UpsertManyChecksTheFirstRecord(InMemoryVectorStore):
    """A batch validated by its first record alone."""

    async def upsert_many(self, tenant_id: TenantId, records: Sequence[VectorRecord]) -> None:
        if records:
            self._validate(records[0].vector)
        for record in records:
            self._records[(tenant_id, record.entity_id)] = record.model_copy(deep=True)


class KZeroMeansTheDefault(InMemoryVectorStore):
    """``k or 10``: asking for no matches gets ten."""

    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        kw["k"] = kw.get("k", 10) or 10
        return await super().search(tenant_id, query, **kw)


class DefaultKIsFive(InMemoryVectorStore):
    """A default page of five where the port says ten."""

    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        kw.setdefault("k", 5)
        return await super().search(tenant_id, query, **kw)


class MatchesCarryOnlyTheType(InMemoryVectorStore):
    """Matches read from a type column alone: the rest of the metadata is dropped."""

    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        return [
            match.model_copy(
                update={"metadata": {k: v for k, v in match.metadata.items() if k == "entity_type"}}
            )
            for match in await super().search(tenant_id, query, **kw)
        ]


class ScoresWithTwoSquareRoots(InMemoryVectorStore):
    """The old norm, a product of two square roots: a self-match scored 0.9999999999999999."""

    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        found = await super().search(tenant_id, query, **kw)
        for match in found:
            stored = self._records[(tenant_id, match.entity_id)].vector
            dot = math.fsum(x * y for x, y in zip(query, stored, strict=True))
            norm = math.sqrt(math.fsum(x * x for x in query)) * math.sqrt(
                math.fsum(y * y for y in stored)
            )
            match.score = (1.0 + max(-1.0, min(1.0, dot / norm))) / 2.0
        return found


class FindsNothingForUnstorableText(InMemoryVectorStore):
    """Answers a NUL tenant with no matches, where pgvector raised a driver error."""

    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        if "\x00" in tenant_id or "\ud800" in tenant_id:
            return []
        return await super().search(tenant_id, query, **kw)


class NanMinScoreKeepsEverything(InMemoryVectorStore):
    """Treats a NaN ``min_score`` as no filter, as the in-memory store did."""

    async def search(
        self, tenant_id: TenantId, query: Sequence[float], **kw: Any
    ) -> list[VectorMatch]:
        if kw.get("min_score") is not None and math.isnan(kw["min_score"]):
            kw["min_score"] = None
        return await super().search(tenant_id, query, **kw)


@dataclass(frozen=True)
class Case:
    mutant: type[InMemoryVectorStore]
    caught_by: tuple[str, ...]
    dimension: int = VectorStoreCompliance.DIMENSION


CASES = (
    Case(ReturnsTheStoredRecord, ("test_get_returns_copies",)),
    Case(SharesMetadataWithMatches, ("test_search_returns_copies",)),
    Case(KeepsTheCallersRecord, ("test_upsert_keeps_its_own_copy_of_the_record",)),
    Case(GetIgnoresTheTenant, ("test_get_never_crosses_tenants",)),
    Case(SearchIgnoresTheTenant, ("test_search_never_crosses_tenants",)),
    Case(DeleteIgnoresTheTenant, ("test_delete_never_crosses_tenants",)),
    Case(DeleteByTenantCountsEveryone, ("test_delete_by_tenant_counts_and_spares_other_tenants",)),
    Case(DeleteAlwaysSaysYes, ("test_delete_returns_whether_the_record_was_there",)),
    Case(FiltersAfterK, ("test_entity_types_and_min_score_apply_before_k",)),
    Case(IgnoresMinScore, ("test_min_score_keeps_exactly_the_records_scoring_at_least_it",)),
    Case(ExclusiveMinScore, ("test_min_score_is_inclusive_at_an_exact_boundary",)),
    Case(StartsWithARecord, ("test_a_new_store_holds_nothing",)),
    Case(ReportsAnotherDimension, ("test_the_store_has_the_dimension_it_was_built_with",)),
    Case(UpsertChecksOnlyTheNorm, ("test_a_vector_of_another_dimension_is_rejected_on_upsert",)),
    Case(
        UpsertManyChecksTheFirstRecord,
        ("test_a_vector_of_another_dimension_is_rejected_by_upsert_many",),
    ),
    Case(KZeroMeansTheDefault, ("test_k_zero_returns_nothing",)),
    Case(DefaultKIsFive, ("test_the_default_k_is_ten",)),
    Case(MatchesCarryOnlyTheType, ("test_search_returns_the_metadata_stored_with_each_match",)),
    Case(
        EmptyEntityTypesMeansNoFilter,
        ("test_an_empty_entity_types_matches_nothing_and_none_means_no_filter",),
    ),
    Case(
        ReadsEntityTypeRaw,
        ("test_a_non_string_entity_type_matches_no_type_filter_and_never_raises",),
    ),
    Case(NoIdTieBreak, ("test_score_ties_break_by_ascending_entity_id",)),
    Case(
        ReportsCosineDistance,
        (
            "test_the_score_is_cosine_on_a_zero_to_one_scale",
            "test_every_score_agrees_with_cosine_score",
            "test_a_vector_matches_itself_at_score_one",
        ),
    ),
    Case(
        ReportsRawCosine,
        (
            "test_the_score_is_cosine_on_a_zero_to_one_scale",
            "test_every_score_agrees_with_cosine_score",
        ),
    ),
    Case(
        ChecksOnlyTheLength,
        ("test_a_zero_vector_is_rejected", "test_a_vector_whose_norm_underflows_is_rejected_too"),
    ),
    Case(RejectsOnlyExactZeros, ("test_a_vector_whose_norm_underflows_is_rejected_too",)),
    # At the suite's dimension of 8 an identity check is accidentally right (CPython caches
    # small ints); a suite raised to 768 shows the suite's tests catch it there.
    Case(ComparesTheDimensionWithIs, ("test_search_returns_the_exact_top_k_in_order",), 768),
    Case(
        ValidatesQueriesOnlyAgainstRecords,
        (
            "test_a_query_of_another_dimension_is_rejected_in_search",
            "test_a_zero_vector_is_rejected",
        ),
    ),
    Case(UpsertManyIsNotAtomic, ("test_upsert_many_is_all_or_nothing",)),
    Case(
        FindsNothingForUnstorableText,
        ("test_text_arguments_no_store_can_hold_are_refused",),
    ),
    Case(ScoresWithTwoSquareRoots, ("test_a_vector_matches_itself_at_score_one",)),
    Case(
        NanMinScoreKeepsEverything,
        ("test_a_nan_min_score_or_a_k_past_the_maximum_raises",),
    ),
    Case(
        FirstWriteWins,
        (
            "test_upsert_is_idempotent_and_the_last_write_wins",
            "test_upsert_many_writes_every_record_and_the_last_duplicate_wins",
        ),
    ),
    Case(DropsMetadata, ("test_upsert_then_get_round_trips_the_whole_record",)),
    Case(RoundsComponents, ("test_upsert_then_get_round_trips_the_whole_record",)),
    Case(NegativeKFindsNothing, ("test_a_negative_k_raises_value_error",)),
    Case(MissesAQuarterOfALargeCorpus, ("test_the_true_nearest_neighbour_is_within_the_top_k",)),
    *(Case(mutant, (name,)) for mutant, name in lifecycle_mutants(InMemoryVectorStore).items()),
)


def suite_for(adapter: type[InMemoryVectorStore], dimension: int) -> VectorStoreCompliance:
    """The suite, unchanged but for its adapter (and, for one case, its dimension)."""

    class Subject(VectorStoreCompliance):
        DIMENSION = dimension

        async def new_store(self) -> VectorStore:
            return adapter(dimension=self.DIMENSION)

    return Subject()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.mutant.__name__)
def test_the_suite_catches_the_mutant(case: Case) -> None:
    """Every test named for the mutant fails on it."""
    suite = suite_for(case.mutant, case.dimension)
    survived = [name for name in case.caught_by if run_suite_test(suite, name) is None]
    assert survived == [], f"{case.mutant.__name__} passed {survived}"


@pytest.mark.parametrize(
    "dimension", sorted({case.dimension for case in CASES}), ids=lambda d: f"dimension-{d}"
)
def test_the_catching_tests_pass_on_the_unbroken_adapter(dimension: int) -> None:
    """The same tests, run the same way, pass on InMemoryVectorStore: the harness can pass."""
    suite = suite_for(InMemoryVectorStore, dimension)
    names = sorted(
        {name for case in CASES if case.dimension == dimension for name in case.caught_by}
    )
    failures = {name: repr(failure) for name in names if (failure := run_suite_test(suite, name))}
    assert failures == {}


def test_every_read_method_has_a_live_object_mutant_and_a_tenant_mutant() -> None:
    """Each read's copy test and tenant test has been watched failing on some mutant."""
    caught = {name for case in CASES for name in case.caught_by}
    unwatched = [name for name in isolation_test_names(VectorStore) if name not in caught]
    assert unwatched == []


def test_every_named_test_is_a_suite_test() -> None:
    """Each row names tests the suite has, so a rename in the suite fails here by name."""
    names = {name for case in CASES for name in case.caught_by}
    assert {name for name in names if not hasattr(VectorStoreCompliance, name)} == set()


NO_MUTANT_OF_ITS_OWN = {
    "test_the_store_satisfies_the_port": (
        "an isinstance smoke check: a store missing a member fails every case that calls it"
    ),
    "test_the_suite_is_run_unchanged": "the guard against overridden cases, tested in graph",
}
"""Suite cases no mutant names, and why none is written for them."""


def test_every_case_is_named_by_a_mutant_or_says_why_not() -> None:
    """A new suite case arrives with its mutant; a case without one is a visible decision."""
    cases = {name for name in dir(VectorStoreCompliance) if name.startswith("test_")}
    named = {name for case in CASES for name in case.caught_by}
    assert cases - named - set(NO_MUTANT_OF_ITS_OWN) == set()


def test_the_recall_mutant_is_exact_on_small_tenants() -> None:
    """Tier 2's mutant passes tier 1, so only the recall test stands between it and a pass."""
    suite = suite_for(MissesAQuarterOfALargeCorpus, VectorStoreCompliance.DIMENSION)
    assert run_suite_test(suite, "test_search_returns_the_exact_top_k_in_order") is None
    assert run_suite_test(suite, "test_every_score_agrees_with_cosine_score") is None
