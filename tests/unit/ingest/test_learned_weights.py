"""Resolution learns its weights from the tenant's records, records them, and replays them.

ADR 0035: an import of enough records of a type estimates that type's m and u (u from random
pairs, m by EM over candidate pairs), records the estimate as ``ResolutionWeightsEstimated``
before the entities, and resolves with it; later decisions, in any process and after any
rebuild, read the estimate from the log.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from redstring import KnowledgeGraph
from redstring.chunks.adapters.memory import InMemoryChunkStore
from redstring.domain.ids import TenantId
from redstring.domain.resolution import FieldKind
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.eventlog.adapters.memory import InMemoryEventLog
from redstring.graph.adapters.memory import InMemoryGraphStore
from redstring.ingest import evidence_resolver
from redstring.vector.adapters.memory import InMemoryVectorStore

T = "learning"
GIVEN = ["amara", "chidi", "tomas", "marta", "ines", "rufus", "ada", "hugo", "lena", "omar"]
FAMILY = ["okafor", "veil", "quist", "carvalho", "lindqvist", "marsh", "brandt", "osei"]
TOWNS = ["leeds", "york", "hull", "bath", "ely", "wells", "ripon", "truro"]


def people(seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` people as records with a member number (a key no table knows), a town and
    a birth date; the second of each pair misspells the family name and may move town."""
    generator = random.Random(seed)
    records: list[dict[str, Any]] = []
    for n in range(count):
        given, family = generator.choice(GIVEN), generator.choice(FAMILY)
        number = f"{generator.randrange(10**6, 10**7)}"
        born = f"19{generator.randrange(40, 99)}-0{generator.randrange(1, 9)}-1{n % 9}"
        town = generator.choice(TOWNS)
        records.append(
            {
                "kind": "entity",
                "ref": f"p{seed}-{n}",
                "type": "Person",
                "name": f"{given} {family}",
                "attributes": {"member_no": number, "town": town, "date_of_birth": born},
            }
        )
    return records


def duplicates(records: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    generator = random.Random(seed)
    copies = []
    for record in records:
        given, family = record["name"].split()
        attributes = dict(record["attributes"])
        if generator.random() < 0.5:
            attributes["town"] = generator.choice(TOWNS)
        copies.append(
            {
                **record,
                "ref": record["ref"] + "-dup",
                "name": f"{given} {family[:-1]}{family[-1] * 2}",
                "attributes": attributes,
            }
        )
    return copies


def graph(events: InMemoryEventLog | None = None) -> KnowledgeGraph:
    return KnowledgeGraph(
        graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=16),
        chunks=InMemoryChunkStore(),
        events=events or InMemoryEventLog(),
        embeddings=FakeEmbeddingProvider(dimension=16),
    )


async def estimates(kg: KnowledgeGraph) -> list[dict[str, Any]]:
    stored = await kg.events.read(TenantId(T), after=0)
    return [e.payload for e in stored if e.type == "ResolutionWeightsEstimated"]


async def test_an_import_of_enough_records_records_its_estimate_first() -> None:
    """60 people in 120 records: one estimate for Person, recorded before the entities,
    reading the unknown "member_no" as an identifier from its values."""
    first = people(1, 60)
    async with graph() as kg:
        await kg.import_records(T, first + duplicates(first, 2))
        stored = await kg.events.read(TenantId(T), after=0)
        types = [event.type for event in stored]
        assert types.count("ResolutionWeightsEstimated") == 1
        assert types.index("ResolutionWeightsEstimated") < types.index("EntityCreated")
        [payload] = await estimates(kg)
        weights = payload["weights"]
        assert weights["attribute_kinds"]["member_no"] == ["member_no", FieldKind.IDENTIFIER]
        assert weights["records"] == 120
        levels = weights["fields"]["member_no"]["levels"]
        # Every copy keeps its number: agreement is near-certain for a match...
        assert levels["exact"]["m"] > 0.8
        # ...and the misspelt family names are the name's typical variation.
        assert weights["fields"]["name"]["levels"]["close"]["m"] > 0.3


async def test_too_few_records_keep_the_priors() -> None:
    """Ten records estimate nothing; their decisions say they used the priors."""
    few = people(3, 5)
    async with graph() as kg:
        await kg.import_records(T, few + duplicates(few, 4))
        assert await estimates(kg) == []


async def test_merges_carry_the_learned_weights() -> None:
    """A later import's merges are explained with the estimated weights: each field's weight
    is its level's log2(m/u) from the recorded estimate, plus the frequency adjustment."""
    first = people(5, 60)
    async with graph() as kg:
        await kg.import_records(T, first)
        await kg.import_records(T, duplicates(first[:20], 6))
        [payload] = await estimates(kg)
        fields = payload["weights"]["fields"]
        merges = await kg.merges(T)
        assert merges, "the misspelt copies join their originals as judged merges"
        for merge in merges:
            explanation = merge.explanation
            assert explanation["weights"]["source"] == "estimated"
            for item in explanation["fields"]:
                if item["field"] not in fields or item["level"] in ("missing", "implied", "shared"):
                    continue
                level = fields[item["field"]]["levels"][item["level"]]
                expected = math.log2(level["m"] / level["u"]) + item["adjustment"]
                assert abs(item["weight"] - expected) < 0.002


async def test_a_rebuilt_graph_resolves_later_records_as_the_original_does() -> None:
    """The estimate lives in the log: a new process that rebuilds the tenant from the log
    and imports the next records decides exactly as the process that learned it."""
    first, later = people(7, 60), None
    later = duplicates(first[:25], 8) + people(9, 10)

    original = graph()
    async with original:
        await original.import_records(T, first)
        expected = await original.import_records(T, later)
        expected_merges = [(m.rule, m.score) for m in await original.merges(T)]

    events = InMemoryEventLog()
    async with graph(events) as learner:
        await learner.import_records(T, first)
    async with graph(events) as rebuilt:
        await rebuilt.rebuild(T)
        got = await rebuilt.import_records(T, later)
        got_merges = [(m.rule, m.score) for m in await rebuilt.merges(T)]
        assert len(await estimates(rebuilt)) == 1  # 70 more records do not double the tenant

    def grouping(refs: dict[str, Any]) -> list[list[str]]:
        groups: dict[Any, list[str]] = {}
        for ref, entity in sorted(refs.items()):
            groups.setdefault(entity, []).append(ref)
        return sorted(groups.values())

    assert grouping(got.refs) == grouping(expected.refs)
    assert got_merges == expected_merges


async def test_a_refresh_sees_the_stored_records_its_batch_blocks_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file of 400 people, then a file of a misspelt copy of each: the refresh pairs the
    copies it samples with the stored originals they share keys with, so EM sees both
    records of most pairs and learns that a misspelt name is the copies' usual variation
    (an even sample of each file, 100 beside 100, holds one original in four)."""
    monkeypatch.setattr(evidence_resolver, "SAMPLE", 200)
    first = people(7, 400)
    async with graph() as kg:
        await kg.import_records(T, first)
        await kg.import_records(T, duplicates(first, 8))
        _, refreshed = await estimates(kg)
        weights = refreshed["weights"]
        assert weights["records"] == 300
        assert weights["fields"]["name"]["levels"]["close"]["m"] > 0.62
