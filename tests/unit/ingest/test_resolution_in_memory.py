"""The resolution cases on the in-memory stores, plus what only a counting store can show."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pytest

from redstring import KnowledgeGraph
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import SourceId, TenantId
from redstring.domain.models import Entity
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ingest.evidence_resolver import EvidenceResolver
from redstring.ingest.resolution import Mention
from tests.resolution_cases import ResolutionCases


class TestResolutionInMemory(ResolutionCases):
    async def new_graph(self) -> KnowledgeGraph:
        return KnowledgeGraph.in_memory(embeddings=FakeEmbeddingProvider(dimension=16))


class CountingGraphStore(InMemoryGraphStore):
    """The real in-memory store, counting the candidate reads resolution makes."""

    def __init__(self) -> None:
        super().__init__()
        self.batched: list[int] = []
        self.limits: list[int | None] = []
        self.single = 0
        self.scans = 0

    async def find_by_blocking_keys(
        self, tenant_id: TenantId, keys: Collection[str], *, limit_per_key: int | None = None
    ) -> dict[str, list[Entity]]:
        self.batched.append(len(keys))
        self.limits.append(limit_per_key)
        return await super().find_by_blocking_keys(tenant_id, keys, limit_per_key=limit_per_key)

    async def find_by_blocking_key(self, tenant_id: TenantId, key: str) -> list[Entity]:
        self.single += 1
        return await super().find_by_blocking_key(tenant_id, key)

    async def find_entities(self, *args: Any, **kwargs: Any) -> list[Entity]:
        self.scans += 1
        return await super().find_entities(*args, **kwargs)


def mention(name: str, **attributes: Any) -> Mention:
    return Mention(
        type="Person", name=name, attributes=attributes, description=None, source_id=SourceId("s")
    )


async def test_a_batch_reads_candidates_once_and_never_scans() -> None:
    """Fifty mentions: one batched key lookup, no single-key reads, no paging through entities."""
    store = CountingGraphStore()
    await store.upsert_entity(
        TenantId("t"),
        Entity(
            id=__import__("uuid").uuid4(),  # type: ignore[arg-type]
            type="Person",
            name="Amara Okafor",
            blocking_keys=("Person|n:amara okafor",),
        ),
    )
    mentions = [mention(f"Person Number{i} Okafor") for i in range(50)]
    decisions = await EvidenceResolver().resolve(store, TenantId("t"), mentions)
    assert len(decisions) == 50
    assert len(store.batched) == 1
    assert store.limits == [65]
    assert store.single == 0
    assert store.scans == 0


async def test_mentions_of_one_batch_resolve_against_each_other() -> None:
    """With an empty store, variants in one batch share a group; a stranger gets its own."""
    store = InMemoryGraphStore()
    decisions = await EvidenceResolver().resolve(
        store,
        TenantId("t"),
        [
            mention("Amara Okafor", dob="1980-03-07"),
            mention("Ada Lovelace"),
            mention("A. Okafor", dob="07/03/1980"),
        ],
    )
    assert [d.entity_id for d in decisions] == [None, None, None]
    assert decisions[0].group == decisions[2].group != decisions[1].group
    assert decisions[2].rule == "evidence_weights"
    assert decisions[0].rule == decisions[1].rule == "new_entity"


async def test_a_name_without_letters_is_its_own_entity() -> None:
    """'!!!' cannot be compared; it becomes a new entity rather than an error."""
    decisions = await EvidenceResolver().resolve(
        InMemoryGraphStore(), TenantId("t"), [mention("!!!"), mention("!!!")]
    )
    assert decisions[0].group != decisions[1].group


@pytest.mark.parametrize("bound", ["max_candidates", "max_bucket", "max_members"])
def test_bounds_below_one_are_refused(bound: str) -> None:
    """The message names the bound and the value."""
    with pytest.raises(InvalidArgumentError, match=f"{bound} must be at least 1, got 0"):
        EvidenceResolver(**{bound: 0})


def test_a_negative_ambiguity_margin_is_refused() -> None:
    """A margin is a number of bits, zero or more."""
    with pytest.raises(InvalidArgumentError, match=r"ambiguity_margin must be .* got -1"):
        EvidenceResolver(ambiguity_margin=-1)


@pytest.mark.parametrize("cohesion", [float("nan"), float("inf"), float("-inf")])
def test_a_cohesion_that_is_not_a_number_of_bits_is_refused(cohesion: float) -> None:
    """Cohesion is a finite number of bits (any sign)."""
    with pytest.raises(InvalidArgumentError, match="cohesion must be a finite number of bits"):
        EvidenceResolver(cohesion=cohesion)
