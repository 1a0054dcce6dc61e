"""Entity resolution through ``import_records``, written once and run on every backend.

A subclass supplies ``new_graph()``: a fresh, empty ``KnowledgeGraph`` with the default
resolver. The cases pin what the issue asks of resolution: variants of one person merge,
within a batch and against the store; relatives, namesakes with conflicting dates and other
types stay apart; decisions are explained; the same input gives the same graph.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from typing import Any

from redstring import KnowledgeGraph
from redstring.domain.blocking import blocking_keys
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.domain.models import Entity
from redstring.ingest.evidence_resolver import EvidenceResolver
from redstring.ingest.resolution import Decision, Mention

T = "acme"


def person(ref: str, name: str, **attributes: Any) -> dict[str, Any]:
    return {"kind": "entity", "ref": ref, "type": "Person", "name": name, "attributes": attributes}


OKAFOR = [
    person("a1", "Dr. Amara Okafor", date_of_birth="1980-03-07", address="12 High Street"),
    person("a2", "A. Okafor", dob="07/03/1980", city="Leeds"),
    person("a3", "OKAFOR, Amara", address="12 High St", postcode="LS1 4AB"),
    person("a4", "Amara N. Okafor", born="7 March 1980"),
]
RELATIVE = person("c1", "Chidi Okafor", date_of_birth="2011-09-30", address="12 High Street")


class ResolutionCases:
    """Every case here runs on each backend through ``new_graph``."""

    async def new_graph(self) -> KnowledgeGraph:
        raise NotImplementedError

    async def live(self, kg: KnowledgeGraph, ids: Collection[EntityId]) -> set[EntityId]:
        resolved = await kg.graph.resolve_entity_ids(TenantId(T), set(ids))
        return set(resolved.values())

    async def test_the_default_resolver_weighs_evidence(self) -> None:
        """KnowledgeGraph resolves with EvidenceResolver unless told otherwise."""
        async with await self.new_graph() as kg:
            assert isinstance(kg.resolver, EvidenceResolver)

    async def test_variants_of_one_person_in_one_batch_become_one_entity(self) -> None:
        """Titles, initials, swapped order and date formats: four records, one entity."""
        async with await self.new_graph() as kg:
            report = await kg.import_records(T, OKAFOR)
            assert len({report.refs[r["ref"]] for r in OKAFOR}) == 1
            assert report.entities_created == 1

    async def test_a_later_import_resolves_against_the_store(self) -> None:
        """A variant imported later joins the entity already in the graph."""
        async with await self.new_graph() as kg:
            first = await kg.import_records(T, OKAFOR[:1])
            later = await kg.import_records(T, [person("b1", "Okafor Amara", dob="1980-03-07")])
            assert later.refs["b1"] == first.refs["a1"]
            assert later.entities_matched == 1
            assert later.entities_created == 0

    async def test_a_relative_at_the_same_address_stays_apart(self) -> None:
        """Same surname and address, another given name and birth date: two people."""
        async with await self.new_graph() as kg:
            report = await kg.import_records(T, [*OKAFOR, RELATIVE])
            assert report.refs["c1"] != report.refs["a1"]
            assert report.entities_created == 2

    async def test_a_conflicting_date_of_birth_keeps_namesakes_apart(self) -> None:
        """The same name born on different days is two people, in a batch and later."""
        async with await self.new_graph() as kg:
            report = await kg.import_records(
                T,
                [
                    person("j1", "John Smith", date_of_birth="1950-01-01"),
                    person("j2", "John Smith", date_of_birth="1987-06-30"),
                ],
            )
            assert report.refs["j1"] != report.refs["j2"]
            later = await kg.import_records(T, [person("j3", "J. Smith", dob="1987-06-30")])
            assert later.refs["j3"] == report.refs["j2"]

    async def test_one_name_in_two_types_is_two_entities(self) -> None:
        """A person and an organisation called alike never merge."""
        async with await self.new_graph() as kg:
            report = await kg.import_records(
                T,
                [
                    person("p", "Jordan Lee"),
                    {"kind": "entity", "ref": "o", "type": "Organization", "name": "Jordan Lee"},
                ],
            )
            assert report.refs["p"] != report.refs["o"]

    async def test_a_merge_is_explained_field_by_field(self) -> None:
        """A merge decision carries its weight, each field's level, the candidate and thresholds."""
        async with await self.new_graph() as kg:
            stored = await kg.import_records(T, OKAFOR[:1])
            mention = Mention(
                type="Person",
                name="A. Okafor",
                attributes={"dob": "1980-03-07"},
                description=None,
                source_id=SourceId("s"),
            )
            [decision] = await kg.resolver.resolve(kg.graph, TenantId(T), [mention])
            assert decision.entity_id == stored.refs["a1"]
            assert decision.rule == "evidence_weights"
            explanation = decision.explanation
            assert explanation["candidate"] == str(stored.refs["a1"])
            fields = explanation["fields"]
            assert isinstance(fields, list)
            levels = {item["field"]: item["level"] for item in fields if isinstance(item, dict)}
            assert levels["name"] == "initials"
            assert levels["date_of_birth"] == "exact"
            assert decision.score is not None
            assert decision.score >= kg.resolver.settings.merge_threshold  # type: ignore[attr-defined]

    async def test_between_the_thresholds_is_a_possible_match_not_a_merge(self) -> None:
        """A nickname and a surname with nothing else: kept apart, named for review."""
        async with await self.new_graph() as kg:
            stored = await kg.import_records(T, [person("x", "Robert Okafor")])
            mention = Mention(
                type="Person",
                name="Bob Okafor",
                attributes={},
                description=None,
                source_id=SourceId("s"),
            )
            [decision] = await kg.resolver.resolve(kg.graph, TenantId(T), [mention])
            assert decision.entity_id is None
            assert decision.possible_match == stored.refs["x"]
            assert decision.score is not None
            settings = kg.resolver.settings  # type: ignore[attr-defined]
            assert settings.possible_threshold <= decision.score < settings.merge_threshold

    async def test_the_same_records_give_the_same_graph(self) -> None:
        """Deterministic: two fresh graphs fed the same records group them alike."""
        records = [*OKAFOR, RELATIVE, person("z", "Zoë Ødegaard", city="Oslo")]
        groupings = []
        for _ in range(2):
            async with await self.new_graph() as kg:
                report = await kg.import_records(T, records)
                by_entity: dict[EntityId, list[str]] = {}
                for ref, entity_id in report.refs.items():
                    by_entity.setdefault(entity_id, []).append(ref)
                groupings.append(sorted(sorted(refs) for refs in by_entity.values()))
        assert groupings[0] == groupings[1]

    async def test_a_judged_match_is_a_listed_merge_that_unmerge_undoes(self) -> None:
        """A. Okafor joining Dr. Amara Okafor is a recorded, explained merge; unmerge splits it."""
        async with await self.new_graph() as kg:
            first = await kg.import_records(T, OKAFOR[:1])
            later = await kg.import_records(T, [person("b", "A. Okafor", dob="1980-03-07")])
            assert later.refs["b"] == first.refs["a1"]
            [merge] = await kg.merges(T)
            assert merge.winner_id == first.refs["a1"]
            assert merge.loser_name == "A. Okafor"
            assert merge.rule == "evidence_weights"
            fields = merge.explanation["fields"]
            assert isinstance(fields, list)
            assert {item["field"] for item in fields if isinstance(item, dict)} >= {
                "name",
                "date_of_birth",
            }
            restored = await kg.unmerge(T, merge.loser_id)
            assert restored != first.refs["a1"]
            assert (await kg.merges(T))[0].undone
            rebuilt_before = await kg.merges(T)
            await kg.rebuild(T)
            assert await kg.merges(T) == rebuilt_before

    async def test_repeating_a_known_name_adds_evidence_without_a_merge(self) -> None:
        """The same name again with nothing against it is no judgement: no merge is written."""
        async with await self.new_graph() as kg:
            await kg.import_records(T, [person("x", "Amara Okafor", city="Leeds")])
            again = await kg.import_records(T, [person("y", "Amara Okafor")])
            assert again.entities_matched == 1
            assert await kg.merges(T) == []

    async def test_a_possible_match_is_listed_for_review(self) -> None:
        """Between the thresholds: two entities, and the pair in possible_matches()."""
        async with await self.new_graph() as kg:
            first = await kg.import_records(T, [person("x", "Robert Okafor")])
            later = await kg.import_records(T, [person("y", "Bob Okafor")])
            assert later.refs["y"] != first.refs["x"]
            [pair] = await kg.possible_matches(T)
            assert {pair.entity_id, pair.candidate_id} == {later.refs["y"], first.refs["x"]}
            assert pair.score is not None

    async def test_an_initial_that_fits_two_people_is_not_guessed(self) -> None:
        """'R. Cranworth' at the address of Rufus and of Rhoda: a possible match, not a merge."""
        async with await self.new_graph() as kg:
            await kg.import_records(
                T,
                [
                    person("ru", "Rufus Cranworth", address="5 Mill Street", dob="1950-02-03"),
                    person("rh", "Rhoda Cranworth", address="5 Mill Street", dob="1981-07-08"),
                ],
            )
            mention = Mention(
                type="Person",
                name="R. Cranworth",
                attributes={"address": "5 Mill St"},
                description=None,
                source_id=SourceId("s"),
            )
            [decision] = await kg.resolver.resolve(kg.graph, TenantId(T), [mention])
            assert decision.entity_id is None
            assert decision.possible_match is not None
            alone = await kg.resolver.resolve(
                kg.graph,
                TenantId(T),
                [
                    Mention(
                        type="Person",
                        name="R. Cranworth",
                        attributes={"address": "5 Mill St", "dob": "1981-07-08"},
                        description=None,
                        source_id=SourceId("s"),
                    )
                ],
            )
            assert alone[0].entity_id is not None  # the date says which one

    async def test_a_record_that_fits_one_member_joins_only_a_cluster_it_fits_on_average(
        self,
    ) -> None:
        """'A. Okafor' at Amara's address joins her; 'Adaeze Okafor' at that address but in
        another town, with another e-mail, fits 'A. Okafor' and not Amara: one bridging
        record does not carry her into Amara's entity (ADR 0037)."""
        records = [
            person(
                "am",
                "Amara Okafor",
                address="12 High Street",
                city="Leeds",
                email="amara@okafor.ng",
            ),
            person("ao", "A. Okafor", address="12 High Street"),
            person(
                "ad", "Adaeze Okafor", address="12 High Street", city="York", email="adaeze@mail.ng"
            ),
        ]
        async with await self.new_graph() as kg:
            report = await kg.import_records(T, records)
            assert report.refs["ao"] == report.refs["am"]
            assert report.refs["ad"] != report.refs["am"]

    async def test_one_member_that_fits_badly_does_not_keep_a_record_out(self) -> None:
        """Two plain 'Robert Smith' records and a 'Robert Smyth' of York joined to them by
        his passport number: a 'Robert Smith' of Leeds fits the two and not the third, and
        the weakest member alone does not keep it out of the cluster (ADR 0037)."""
        records = [
            person("x1", "Robert Smith", passport="AB1234567"),
            person("x2", "Robert Smith"),
            person(
                "x3",
                "Robert Smyth",
                passport="AB1234567",
                city="York",
                email="rs@york.uk",
                phone="01904 555 123",
                postcode="YO1 7HH",
            ),
            person(
                "m",
                "Robert Smith",
                city="Leeds",
                email="bob@leeds.uk",
                phone="0113 555 999",
                postcode="LS1 4AB",
            ),
        ]
        async with await self.new_graph() as kg:
            report = await kg.import_records(T, records)
            assert len({report.refs[ref] for ref in ("x1", "x2", "x3")}) == 1
            assert report.refs["m"] == report.refs["x1"]

    # -- mentions from text: a name and nothing else (ADR 0022) ---------------------------

    @staticmethod
    def named(name: str, source: str, entity_type: str = "Person") -> Mention:
        """A mention as text ingestion makes it: a name and a type, from a passage."""
        return Mention(
            type=entity_type,
            name=name,
            attributes={},
            description=None,
            source_id=SourceId(source),
            chunk_id=ChunkId(f"{source}#0"),
        )

    async def resolve_named(self, kg: KnowledgeGraph, *named: tuple[str, str]) -> list[Decision]:
        """The resolver's decisions for Person mentions ``(name, source)`` from passages."""
        mentions = [self.named(name, source) for name, source in named]
        return list(await kg.resolver.resolve(kg.graph, TenantId(T), mentions))

    async def test_a_name_mentioned_in_many_documents_is_one_entity(self) -> None:
        """A name spelled the same in passages, with nothing else to compare, is one entity
        however common its words are in the batch (here they push its weight under the merge
        threshold). Records are left to the weights: a register repeating a name may well
        list namesakes."""
        others = ["Maritime Trust", "Halvard Bank", "Maritime Holdings", "Halvard Shipping"] * 3
        mentions = [self.named("Halvard Maritime", f"doc-{n}", "Organization") for n in range(6)]
        mentions += [
            self.named(name, f"other-{n}", "Organization") for n, name in enumerate(others)
        ]
        async with await self.new_graph() as kg:
            decisions = await kg.resolver.resolve(kg.graph, TenantId(T), mentions)
            assert {decision.group for decision in decisions[:6]} == {decisions[0].group}
            assert decisions[1].rule == "same_name_in_text"
            settings = kg.resolver.settings  # type: ignore[attr-defined]
            assert decisions[1].score is not None
            assert decisions[1].score < settings.merge_threshold  # the case the rule is for

    async def test_a_short_form_joins_the_one_entity_its_document_names(self) -> None:
        """'T. Veil' and 'Veil' after 'Tomas Veil' in one document are Tomas Veil; 'Veil' in a
        document that names no Veil is not assumed to be him."""
        async with await self.new_graph() as kg:
            decisions = await self.resolve_named(
                kg,
                ("Tomas Veil", "profile"),
                ("Marta Quist", "profile"),
                ("T. Veil", "profile"),
                ("Veil", "profile"),
                ("Veil", "minutes"),
            )
            groups = [decision.group for decision in decisions]
            assert groups[2] == groups[3] == groups[0]
            assert decisions[3].rule == "short_form_in_document"
            assert groups[1] != groups[0]
            assert groups[4] not in groups[:4]

    async def test_a_short_form_of_two_words_joins_the_one_entity_of_the_tenant(self) -> None:
        """'T. Veil' and 'Tom Veil' in documents that name no Veil join the one Veil the
        tenant knows; 'Veil' alone there does not (one word is too little to go on)."""
        async with await self.new_graph() as kg:
            decisions = await self.resolve_named(
                kg,
                ("Tomas Veil", "profile"),
                ("Marta Quist", "profile"),
                ("T. Veil", "memo"),
                ("Tom Veil", "email"),
                ("Veil", "minutes"),
            )
            groups = [decision.group for decision in decisions]
            assert groups[2] == groups[3] == groups[0]
            assert decisions[2].rule == "short_form_in_tenant"
            assert groups[4] not in groups[:4]

    async def test_a_short_form_that_fits_two_entities_of_the_tenant_stays_apart(self) -> None:
        """'T. Veil' elsewhere, when the tenant knows Tomas and Tilda Veil: not guessed; nor
        with ``tenant_short_forms=False``, when only Tomas is known."""
        async with await self.new_graph() as kg:
            decisions = await self.resolve_named(
                kg,
                ("Tomas Veil", "profile"),
                ("Tilda Veil", "letter"),
                ("T. Veil", "memo"),
            )
            assert len({decision.group for decision in decisions}) == 3
            cautious = EvidenceResolver(tenant_short_forms=False)
            decisions = await cautious.resolve(
                kg.graph,
                TenantId(T),
                [self.named("Tomas Veil", "profile"), self.named("T. Veil", "memo")],
            )
            assert decisions[0].group != decisions[1].group

    async def test_a_tenant_short_form_is_not_guessed_from_a_truncated_bucket(self) -> None:
        """'T. Veil' fits only Tomas Veil among the stored entities its keys read. With 10
        other T-Valleys under its key (V400 t) it joins him; with 69, the bucket holds more
        than the resolver reads, another fitting Veil could be among the unread, and it
        stays apart."""
        veil = Entity(
            id=EntityId(uuid.UUID(int=1)),
            type="Person",
            name="Tomas Veil",
            blocking_keys=blocking_keys("Person", "Tomas Veil"),
        )
        for others in (10, 69):
            async with await self.new_graph() as kg:
                valleys = [
                    Entity(
                        id=EntityId(uuid.UUID(int=1000 + n)),
                        type="Person",
                        name=f"Ta{chr(97 + n // 26)}{chr(97 + n % 26)} Valley",
                        blocking_keys=blocking_keys(
                            "Person", f"Ta{chr(97 + n // 26)}{chr(97 + n % 26)} Valley"
                        ),
                    )
                    for n in range(others)
                ]
                await kg.graph.upsert_entities(TenantId(T), [veil, *valleys])
                [decision] = await kg.resolver.resolve(
                    kg.graph, TenantId(T), [self.named("T. Veil", "memo")]
                )
                if others == 10:
                    assert decision.entity_id == veil.id
                    assert decision.rule == "short_form_in_tenant"
                else:
                    assert decision.entity_id is None

    async def test_a_short_form_that_fits_two_entities_of_its_document_stays_apart(self) -> None:
        """'Okafor' in a document naming Rufus and Adaeze Okafor could be either: not guessed."""
        async with await self.new_graph() as kg:
            decisions = await self.resolve_named(
                kg,
                ("Rufus Okafor", "letter"),
                ("Adaeze Okafor", "letter"),
                ("Okafor", "letter"),
            )
            groups = [decision.group for decision in decisions]
            assert len(set(groups)) == 3

    async def test_names_sharing_a_first_word_are_different_things(self) -> None:
        """On LightRAG's corpus 'Northwind Corporation' absorbed Northwind Holdings,
        Industries, Logistics and the place 'North Halden' as short forms. A short form says
        no more than the name it stands for: each of these names another thing."""
        names = [
            "Northwind Corporation", "Northwind Holdings", "Northwind Industries",
            "Northwind Logistics", "North Halden", "Westgate Corporation", "Westgate Foods",
            "Westgate Partners",
        ]  # fmt: skip
        async with await self.new_graph() as kg:
            mentions = [self.named(n, f"doc-{i}", "Organization") for i, n in enumerate(names)]
            decisions = await kg.resolver.resolve(kg.graph, TenantId(T), mentions)
            assert len({decision.group for decision in decisions}) == len(names)

    async def test_a_merge_is_recorded_once(self) -> None:
        """'T. Veil' joining Tomas Veil is one judged merge; the same short form again, in
        the batch or once the entity holds it, only adds evidence."""
        async with await self.new_graph() as kg:
            stored = Entity(
                id=EntityId(uuid.UUID(int=7)),
                type="Person",
                name="Tomas Veil",
                blocking_keys=blocking_keys("Person", "Tomas Veil"),
            )
            await kg.graph.upsert_entities(TenantId(T), [stored])
            decisions = await self.resolve_named(kg, ("T. Veil", "memo"), ("T. Veil", "email"))
            assert [d.entity_id for d in decisions] == [stored.id, stored.id]
            assert [d.audited for d in decisions] == [True, False]
            holding = stored.model_copy(
                update={
                    "blocking_keys": tuple(
                        sorted(
                            {*blocking_keys("Person", "Tomas Veil")}
                            | {*blocking_keys("Person", "T. Veil")}
                        )
                    )
                }
            )
            await kg.graph.upsert_entities(TenantId(T), [holding])
            [again] = await self.resolve_named(kg, ("T. Veil", "minutes"))
            assert again.entity_id == stored.id
            assert not again.audited

    async def test_a_one_word_form_of_another_types_name_stays_apart(self) -> None:
        """'Hadley' in a document naming the town Hadley and 'Cllr Ruth Hadley' is not taken
        for her, even when a passage types it a person."""
        async with await self.new_graph() as kg:
            mentions = [
                self.named("Cllr Ruth Hadley", "minutes"),
                self.named("Hadley", "minutes", "Location"),
                self.named("Hadley", "minutes"),
            ]
            decisions = await kg.resolver.resolve(kg.graph, TenantId(T), mentions)
            assert decisions[2].group != decisions[0].group
            alone = await self.resolve_named(kg, ("Cllr Ruth Hadley", "note"), ("Hadley", "note"))
            assert alone[1].group == alone[0].group  # with no town of that name, it is her

    async def test_a_project_named_after_a_place_stays_apart_from_it(self) -> None:
        """'Brennock' after 'the Brennock Storage Pilot' is the village, not the pilot."""
        async with await self.new_graph() as kg:
            mentions = [
                self.named("the Brennock Storage Pilot", "report", "Location"),
                self.named("Brennock", "report", "Location"),
            ]
            decisions = await kg.resolver.resolve(kg.graph, TenantId(T), mentions)
            assert decisions[0].group != decisions[1].group
