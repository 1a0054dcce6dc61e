"""Attribute kinds from the schema, the key table and the values; organisation names; shared
places (ADR 0036)."""

from __future__ import annotations

import pytest

from redstring.domain.name_forms import name_form
from redstring.domain.resolution import (
    DEFAULT_MERGE_THRESHOLD,
    DEFAULT_POSSIBLE_THRESHOLD,
    FieldKind,
    Frequencies,
    compare_names,
    frequencies_of,
    profile,
    score_pair,
)
from redstring.domain.resolution.fields import DEFAULT_FIELD_KINDS
from redstring.domain.resolution.kinds import attribute_kinds, infer_kind
from redstring.domain.resolution.names import Information
from redstring.domain.schema import AttributeSpec, EntityTypeSpec, Schema

TOWNS = ("Akron", "Boise", "Dayton", "Eugene", "Fresno", "Gary", "Helena", "Irvine", "Joliet")
TOWNS = TOWNS + tuple(f"{town}ville" for town in TOWNS)


def _information(data: Frequencies, entity_type: str = "Organization") -> Information:
    return lambda token: data.information(f"name:{entity_type}", token)


class TestKindsFromValues:
    """An attribute no table knows is read by what its values look like."""

    @pytest.mark.parametrize(
        ("values", "kind"),
        [
            (["1980-03-07", "07/03/1981", "19790212", "12 March 1975", "1966-01-30"], "date"),
            (["a@x.org", "b.c@y.co.uk", "d@z.com", "e@w.net", "f@v.io"], "email"),
            (["+44 20 7946 0958", "020 7946 0011", "(02) 9876-5432", "02-9876-5400"] * 2, "phone"),
            (["12 High Street", "3 Mill Rd", "Flat 2, 9 Elm Ave", "44 Quay Lane"] * 2, "address"),
            ([f"{n * 7919 % 10_000_000:07d}" for n in range(1, 60)], "identifier"),
            ([f"{2000 + n % 9}" for n in range(60)], "postcode"),
            ([str(n % 40 + 1) for n in range(60)], "code"),
            (["nsw", "vic", "qld", "wa", "sa", "tas"] * 10, "code"),
            (["leeds", "york", "hull", "bath", "ely", "ripon", "truro"] * 3, "locality"),
            (["a quiet man who liked boats", "tall", "met at the fair in june"] * 3, "text"),
            (["1980-03-07", "x"], "text"),  # too few values to tell
        ],
    )  # fmt: skip
    def test_values_show_their_kind(self, values: list[str], kind: str) -> None:
        """Dates, e-mails, phones, streets, identifiers, postcodes, codes and places."""
        assert infer_kind(values) is FieldKind(kind)

    def test_the_schema_wins_over_the_table_and_the_values(self) -> None:
        """A declared kind is used as declared; the table beats the values; the rest are
        inferred."""
        records = [
            {"postcode": f"{n:07d}", "member_no": f"{n * 7919:09d}", "notes": "x"}
            for n in range(30)
        ]
        kinds = attribute_kinds(
            records,
            declared={"notes": ("notes", FieldKind.IDENTIFIER)},
            recorded={},
            hints=DEFAULT_FIELD_KINDS,
        )
        assert kinds["notes"] == ("notes", FieldKind.IDENTIFIER)
        assert kinds["postcode"] == ("postcode", FieldKind.POSTCODE)
        assert kinds["member_no"] == ("member_no", FieldKind.IDENTIFIER)

    def test_a_schema_declares_a_kind_and_keeps_its_fingerprint_without_one(self) -> None:
        """``attributes`` takes a description or an AttributeSpec; plain descriptions dump
        as before, so schemas written before kinds keep their fingerprint."""
        plain = Schema(entity_types=[EntityTypeSpec(name="P", attributes={"ssn": "an id"})])
        assert plain.model_dump()["entity_types"][0]["attributes"] == {"ssn": "an id"}
        typed = Schema.model_validate(
            {"entity_types": [{"name": "P", "attributes": {"ssn": {"kind": "identifier"}}}]}
        )
        spec = typed.entity_types[0]
        assert spec.attribute_kinds() == {"ssn": "identifier"}
        assert spec.attribute_descriptions() == {"ssn": ""}
        assert plain.fingerprint != typed.fingerprint
        with pytest.raises(ValueError, match="kind"):
            AttributeSpec.model_validate({"kind": "shoe size"})


class TestOrganisationNames:
    """Legal forms across languages, joining words, abbreviations and sister companies."""

    @pytest.mark.parametrize(
        ("left", "right", "level"),
        [
            ("Siemens AG", "Siemens Aktiengesellschaft", "exact"),
            ("Robert Bosch GmbH", "Robert Bosch Gesellschaft mit beschränkter Haftung", "exact"),
            ("Toyota Motor Kabushiki Kaisha", "Toyota Motor KK", "exact"),
            ("Nestlé S.A.", "Nestle Societe Anonyme", "exact"),
            ("The Boeing Company", "Boeing Co.", "exact"),
            ("Nissan Motor Co., Ltd.", "Nissan Motor Company, Limited", "exact"),
            ("Board of Regents for the University of Texas", "Regents, Univ. of Texas", "close"),
            ("International Business Machines", "IBM", "acronym"),
            ("General Electric Company", "General Motors Corporation", "shared"),
        ],
    )  # fmt: skip
    def test_company_names_land_on_their_level(self, left: str, right: str, level: str) -> None:
        """The level says how two company names relate."""
        assert compare_names(name_form(left), name_form(right)).level == level

    def test_long_names_weigh_their_words_by_rarity(self) -> None:
        """Between long names a word the tenant's names all carry says little, and a rare
        word only one side holds says they differ, whatever the count of words."""
        names = [
            "Board of Trustees of Oregon State University",
            "Board of Trustees of Oregon Health University",
            "Board of Trustees of the Leland Stanford Junior University",
            *(f"Board of Trustees of {town} University" for town in TOWNS),
        ]
        data = frequencies_of([profile("Organization", name, {}) for name in names])
        state, health, stanford = (profile("Organization", name, {}) for name in names[:3])
        # "Oregon" pairs, "State" and "Health" do not, and the rest weighs nearly nothing.
        comparison = compare_names(state.form, health.form, _information(data))
        assert comparison.level == "some"
        renamed = profile("Organization", "Leland Stanford Jr University Board of Trustees", {})
        assert compare_names(stanford.form, renamed.form, _information(data)).level == "most"
        assert score_pair(stanford, renamed, data).weight >= DEFAULT_MERGE_THRESHOLD
        assert score_pair(state, health, data).weight < DEFAULT_POSSIBLE_THRESHOLD

    def test_three_word_person_names_keep_the_ladder(self) -> None:
        """Three words ("John Paul Parr", "John" common here) are not long names: their
        typo is level ``close``, which the tenant's estimate learns."""
        names = ["John Paul Parr", "John Paul Par", *(f"Ann {town}" for town in TOWNS)]
        data = frequencies_of([profile("Person", name, {}) for name in names])
        left, right = (name_form(name) for name in names[:2])
        information = _information(data, "Person")
        assert compare_names(left, right, information).level == "close"

    def test_businesses_sharing_an_address_and_phone_are_not_one(self) -> None:
        """Two restaurants inside one hotel share its address and switchboard: with names
        that clearly differ that is no evidence; an identifier still would be."""
        place = {"address": "1 Quay Street", "postcode": "LS1 4AB", "phone": "0113 496 0000"}
        left = profile("Organization", "Harbour Grill", place)
        right = profile("Organization", "Lotus Garden", place)
        score = score_pair(left, right)
        assert score.weight < 0
        assert {e.field: e.level for e in score.evidence}["address"] == "shared"
        same = profile("Organization", "Harbour Grill Ltd", place)
        assert score_pair(left, same).weight > 12.5
