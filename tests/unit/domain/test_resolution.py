"""Resolution scoring: ladders, explainable weights, thresholds, and the properties they keep."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.blocking import attribute_keys
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.name_forms import name_form
from redstring.domain.resolution import (
    LADDERS,
    FieldKind,
    Frequencies,
    ResolutionSettings,
    compare_names,
    decide,
    frequencies_of,
    profile,
    score_pair,
)
from redstring.domain.resolution.fields import (
    DEFAULT_FIELD_KINDS,
    compare_values,
    field_of,
    normalise_value,
)


def level(left: str, right: str) -> str:
    return compare_names(name_form(left), name_form(right)).level


class TestNameLevels:
    """Every rung of the name ladder is reached by the variation it is named for."""

    @pytest.mark.parametrize(
        ("left", "right", "expected"),
        [
            ("Amara Okafor", "OKAFOR, Amara", "exact"),
            ("Dr. José Müller", "Jose Muller PhD", "exact"),
            ("Acme Widgets Ltd", "ACME Widgets Limited", "exact"),
            ("Northwind Bakery Public Limited Company", "Northwind Bakery PLC", "exact"),
            ("Bob Smith", "Robert Smith", "equivalent"),
            ("Amara Okafor", "Amara Ngozi Okafor", "subset"),
            ("Jon Smith", "John Smyth", "close"),
            ("Ynki Hall", "Yuki Hall", "close"),
            ("A. Okafor", "Amara Okafor", "initials"),
            ("Okafor, A.", "Dr Amara N. Okafor", "initials"),
            ("IBM", "International Business Machines", "acronym"),
            ("Okafor", "Amara Okafor", "partial"),
            ("Amara Okafor", "Chidi Okafor", "shared"),
            ("Northwind Holdings", "Northwind Logistics", "shared"),
            ("Ada Lovelace", "Grace Hopper", "different"),
        ],
    )
    def test_variation_lands_on_its_level(self, left: str, right: str, expected: str) -> None:
        """The level names the kind of variation between the two names."""
        assert level(left, right) == expected

    def test_an_initial_pair_is_not_a_whole_token(self) -> None:
        """'R. Wright' twice agrees on one informative token, not two."""
        comparison = compare_names(name_form("R. Wright"), name_form("Wright, R."))
        assert comparison.level == "exact"
        assert comparison.informative == 1


class TestAttributeLevels:
    """Values are normalised per kind before they are compared."""

    @pytest.mark.parametrize(
        ("text", "normal"),
        [
            ("1980-03-07", "1980-03-07"),
            ("07/03/1980", "1980-03-07"),
            ("7 March 1980", "1980-03-07"),
            ("March 7, 1980", "1980-03-07"),
            ("19800307", "1980-03-07"),
            ("1980", "1980"),
        ],
    )
    def test_dates_in_common_formats_normalise_alike(self, text: str, normal: str) -> None:
        """Day-first numeric dates, ISO, compact and written months all meet."""
        assert normalise_value(FieldKind.DATE, text) == normal

    @pytest.mark.parametrize(
        ("kind", "left", "right", "expected"),
        [
            (FieldKind.DATE, "1980-03-07", "1980-07-03", "close"),  # day and month swapped
            (FieldKind.DATE, "1980-03-07", "1980-03-08", "close"),  # one digit
            (FieldKind.DATE, "1980-03-07", "1975-11-21", "different"),
            (FieldKind.IDENTIFIER, "AB123456C", "AB123465C", "close"),
            (FieldKind.IDENTIFIER, "AB123456C", "ZX999999A", "different"),
            (FieldKind.ADDRESS, "apt 3 12 high st", "12 high st", "close"),
            (FieldKind.ADDRESS, "12 high st", "14 high st", "different"),
            (FieldKind.POSTCODE, "SW1A1AA", "SW1A1AB", "close"),
        ],
    )
    def test_value_pairs_land_on_their_level(
        self, kind: FieldKind, left: str, right: str, expected: str
    ) -> None:
        """Near misses are "close"; a neighbour's house number is not."""
        assert compare_values(kind, left, right) == expected

    def test_street_words_are_abbreviated_alike(self) -> None:
        """'12 High Street' and '12 HIGH ST.' are one address."""
        assert normalise_value(FieldKind.ADDRESS, "12 High Street") == normalise_value(
            FieldKind.ADDRESS, "12 HIGH ST."
        )

    @pytest.mark.parametrize("value", [None, [], {}, "   ", "!!"])
    def test_values_that_carry_nothing_are_missing(self, value: object) -> None:
        """None, containers and blanks are left out rather than compared."""
        assert normalise_value(FieldKind.TEXT, value) is None  # type: ignore[arg-type]


class TestWeights:
    """The match weight is the sum of its fields' weights, and the decisive fields decide."""

    def test_the_explanation_sums_to_the_weight(self) -> None:
        """The waterfall is the whole computation: its fields add up to the total."""
        score = score_pair(
            profile("Person", "Amara Okafor", {"dob": "1980-03-07", "city": "Lagos"}),
            profile("Person", "A. Okafor", {"date_of_birth": "07/03/1980", "town": "Lagos"}),
        )
        explanation = score.explanation()
        fields = explanation["fields"]
        assert isinstance(fields, list)
        total = sum(item["weight"] for item in fields if isinstance(item, dict))  # type: ignore[misc]
        assert total == pytest.approx(explanation["weight"], abs=0.01)
        assert [item["field"] for item in fields if isinstance(item, dict)] == [
            "name",
            "locality",
            "date_of_birth",
        ]

    def test_a_disagreeing_date_of_birth_outweighs_a_similar_name(self) -> None:
        """Close names with different birth dates end below zero, and never merge."""
        similar = score_pair(
            profile("Person", "Jon Smyth", {}), profile("Person", "John Smith", {})
        )
        assert similar.weight > 0
        both = score_pair(
            profile("Person", "Jon Smyth", {"dob": "1950-01-01"}),
            profile("Person", "John Smith", {"dob": "1987-06-30"}),
        )
        assert both.weight < 0
        assert both.conflicting
        assert decide(both) == "new"

    def test_a_disagreeing_identifier_stops_an_exact_name(self) -> None:
        """Two 'Amara Okafor's with different passport numbers are two people."""
        score = score_pair(
            profile("Person", "Amara Okafor", {"passport": "A1234567"}),
            profile("Person", "Amara Okafor", {"passport": "Z7654321"}),
        )
        assert decide(score) == "new"

    def test_identical_names_with_nothing_else_merge(self) -> None:
        """With no other evidence an identical two-word name is enough (12.8 bits)."""
        score = score_pair(
            profile("Person", "Amara Okafor", {}), profile("Person", "amara okafor", {})
        )
        assert score.weight == pytest.approx(LADDERS[FieldKind.NAME]["exact"].weight)
        assert decide(score) == "merge"

    def test_agreement_between_the_thresholds_is_a_possible_match(self) -> None:
        """An initial and a surname alone are worth review, not a merge."""
        score = score_pair(
            profile("Person", "A. Okafor", {}), profile("Person", "Amara Okafor", {})
        )
        assert decide(score, ResolutionSettings(merge_threshold=12.5, possible_threshold=5)) == (
            "possible"
        )

    def test_a_common_token_weighs_less_than_a_rare_one(self) -> None:
        """Term frequency: agreeing on 'Smith' says less than agreeing on 'Okafor'."""
        crowd = [profile("Person", f"{given} Smith", {}) for given in ("Ann", "Bo", "Cy", "Di")]
        crowd += [profile("Person", "Amara Okafor", {}), profile("Person", "Bruno Diaz", {})]
        data = frequencies_of(crowd)
        common = score_pair(
            profile("Person", "Jo Smith", {}), profile("Person", "Jo Smith", {}), data
        )
        rare = score_pair(
            profile("Person", "Jo Okafor", {}), profile("Person", "Jo Okafor", {}), data
        )
        assert common.weight < rare.weight

    def test_place_fields_count_once(self) -> None:
        """An agreeing address implies its postcode and locality; they add nothing more."""
        place = {"address": "12 High Street", "postcode": "AB1 2CD", "city": "Leeds"}
        score = score_pair(profile("Person", "Ann Lee", place), profile("Person", "Ann Lee", place))
        levels = {item.field: item.level for item in score.evidence}
        assert levels == {
            "name": "exact",
            "address": "exact",
            "postcode": "implied",
            "locality": "implied",
        }

    def test_different_legal_forms_count_against(self) -> None:
        """'Atlas Foods Inc' and 'Atlas Foods PLC' are two companies until shown otherwise."""
        same = score_pair(
            profile("Org", "Atlas Foods Ltd", {}), profile("Org", "Atlas Foods Limited", {})
        )
        other = score_pair(
            profile("Org", "Atlas Foods Inc", {}), profile("Org", "Atlas Foods PLC", {})
        )
        assert same.weight > other.weight
        assert decide(other) != "merge"


class TestSettings:
    """Thresholds are checked when the settings are made."""

    def test_possible_above_merge_is_refused(self) -> None:
        """The message names both values."""
        with pytest.raises(
            InvalidArgumentError, match=r"possible_threshold 20.*merge_threshold 10"
        ):
            ResolutionSettings(merge_threshold=10, possible_threshold=20)

    def test_thresholds_must_be_finite(self) -> None:
        """NaN or infinity would make every comparison false."""
        with pytest.raises(InvalidArgumentError, match="finite"):
            ResolutionSettings(merge_threshold=math.nan)


NAMES = st.sampled_from(
    [
        "Amara Okafor", "A. Okafor", "Okafor, Amara N.", "Bob Smith", "Robert Smith", "R. Smith",
        "Jon Smyth", "Dr. José Müller", "IBM", "International Business Machines Corp",
        "Acme Ltd", "ACME Limited", "Northwind", "Chidi Okafor", "Ynki Hall", "Yuki Priya Hall",
    ]
)  # fmt: skip
ATTRIBUTES = st.dictionaries(
    st.sampled_from(["dob", "city", "address", "postcode", "passport", "email", "colour"]),
    st.sampled_from(
        ["1980-03-07", "07/03/1980", "Lagos", "12 High St", "AB1 2CD", "X1234567", "red", None]
    ),
    max_size=4,
)
TYPES = st.sampled_from(["Person", "Organization"])


class TestProperties:
    """Symmetry, determinism and type incompatibility hold for any pair."""

    @given(TYPES, NAMES, ATTRIBUTES, NAMES, ATTRIBUTES)
    def test_scoring_is_symmetric(
        self,
        kind: str,
        left: str,
        left_attrs: dict[str, str],
        right: str,
        right_attrs: dict[str, str],
    ) -> None:
        """score(a, b) and score(b, a) have the same weight and the same field levels."""
        a, b = profile(kind, left, left_attrs), profile(kind, right, right_attrs)
        forward, backward = score_pair(a, b), score_pair(b, a)
        assert forward.weight == pytest.approx(backward.weight)
        assert [(e.field, e.level) for e in forward.evidence] == [
            (e.field, e.level) for e in backward.evidence
        ]

    @given(TYPES, NAMES, ATTRIBUTES, NAMES, ATTRIBUTES)
    def test_scoring_is_deterministic(
        self,
        kind: str,
        left: str,
        left_attrs: dict[str, str],
        right: str,
        right_attrs: dict[str, str],
    ) -> None:
        """Scoring the same pair again, from freshly prepared records, gives the same result."""
        first = score_pair(profile(kind, left, left_attrs), profile(kind, right, right_attrs))
        again = score_pair(
            profile(kind, left, dict(left_attrs)), profile(kind, right, dict(right_attrs))
        )
        assert first == again
        assert first.explanation() == again.explanation()

    @given(NAMES, ATTRIBUTES, NAMES, ATTRIBUTES)
    def test_different_types_never_merge(
        self, left: str, left_attrs: dict[str, str], right: str, right_attrs: dict[str, str]
    ) -> None:
        """A person and an organisation never merge, whatever the names and attributes say."""
        score = score_pair(
            profile("Person", left, left_attrs), profile("Organization", right, right_attrs)
        )
        assert not score.compatible
        assert score.weight == -math.inf
        assert decide(score, ResolutionSettings(merge_threshold=-1e9, possible_threshold=-1e9)) == (
            "new"
        )
        assert score.explanation() == {
            "level": "incompatible-types",
            "types": ["Person", "Organization"],
        }

    @given(TYPES, NAMES, ATTRIBUTES)
    def test_a_record_matches_itself_at_least_as_well_as_its_name_alone(
        self, kind: str, name: str, attrs: dict[str, str]
    ) -> None:
        """Agreement never counts against: a record against itself has no negative field."""
        record = profile(kind, name, attrs)
        score = score_pair(record, record)
        assert all(item.weight >= 0 or item.field == "name" for item in score.evidence)
        assert not score.conflicting


def test_frequencies_default_to_neutral() -> None:
    """With no data every ratio is 1: weights stay at their ladder defaults."""
    assert Frequencies().ratio("name:Person", "smith") == 1.0


@pytest.mark.parametrize(
    ("key", "field"),
    [
        ("Date of Birth", "date_of_birth"),
        ("dateOfBirth", "date_of_birth"),
        ("date-of-birth", "date_of_birth"),
        ("DOB", "date_of_birth"),
        ("postalCode", "postcode"),
        ("ZIP", "postcode"),
        ("E-mail", "email"),
        ("phoneNumber", "phone"),
        ("Address Line 1", "address"),
        ("City", "locality"),
        ("Employer", "employer"),
    ],
)
def test_export_spellings_of_a_key_name_one_field(key: str, field: str) -> None:
    """Spaces, hyphens, camelCase and capitals, as real exports write keys, name the field."""
    assert field_of(key, DEFAULT_FIELD_KINDS)[0] == field


def test_a_date_of_birth_under_an_exported_key_still_decides() -> None:
    """'Date of Birth' that disagrees keeps namesakes apart, as 'date_of_birth' does."""
    one = profile("Person", "John Smith", {"Date of Birth": "1950-01-01"})
    other = profile("Person", "John Smith", {"dateOfBirth": "1987-06-30"})
    same = profile("Person", "John Smith", {"DOB": "01/01/1950"})
    frequencies = frequencies_of([one, other, same])
    assert score_pair(one, other, frequencies).conflicting
    assert not score_pair(one, same, frequencies).conflicting
    assert score_pair(one, same, frequencies).weight > score_pair(one, other, frequencies).weight


def test_nested_objects_and_lists_are_read_as_exports_nest_them() -> None:
    """An address object, a list of e-mails and an identifiers object are the same evidence
    as their flat spellings; a top-level value wins over a nested one; deeper nesting and
    lists of objects carry nothing."""
    nested = profile(
        "Person",
        "Ada Okafor",
        {
            "address": {"line1": "5 Mill Street", "city": "London", "zip": "E1 6AN"},
            "emails": ["ada@example.org", "other@example.org"],
            "ids": {"passport": "X1234567"},
            "city": "Leeds",
            "deep": {"a": {"b": "c"}},
            "people": [{"name": "x"}],
        },
    )
    flat = profile(
        "Person",
        "Ada Okafor",
        {
            "address_line1": "5 Mill Street",
            "city": "Leeds",
            "zip": "E1 6AN",
            "email": "ada@example.org",
            "passport": "X1234567",
        },
    )
    assert nested.fields == flat.fields
    assert attribute_keys("Person", {"ids": {"passport": "X1234567"}}) == (
        "Person|x:identifier=X1234567",
    )
    assert attribute_keys("Person", {"born": ["1984-02-11"]}) == ("Person|d:1984-02-11",)
