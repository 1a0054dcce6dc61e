"""Schemas: declared types, consistent patterns, a stable fingerprint, files in JSON or YAML."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from redstring import DEFAULT_SCHEMA, EntityTypeSpec, RelationshipTypeSpec, Schema, load_schema
from redstring.composition.schema_files import InvalidSchemaError


def test_a_relationship_naming_an_undeclared_entity_type_is_refused() -> None:
    """The message names the unknown type and the declared ones."""
    with pytest.raises(ValidationError, match=r"undeclared entity type\(s\) \['Robot'\]"):
        Schema(
            entity_types=(EntityTypeSpec(name="Person"),),
            relationship_types=(RelationshipTypeSpec(name="BUILT", subject_types=("Robot",)),),
        )


def test_duplicate_type_names_are_refused() -> None:
    """Two entity types of one name would make extraction ambiguous."""
    with pytest.raises(ValidationError, match="declared twice"):
        Schema(entity_types=(EntityTypeSpec(name="Person"), EntityTypeSpec(name="Person")))


def test_allows_checks_both_endpoint_types() -> None:
    """Empty endpoint lists allow any declared type; named ones restrict."""
    assert DEFAULT_SCHEMA.allows("WORKS_FOR", "Person", "Organization")
    assert not DEFAULT_SCHEMA.allows("WORKS_FOR", "Organization", "Person")
    assert not DEFAULT_SCHEMA.allows("NOT_A_TYPE", "Person", "Organization")


def test_the_fingerprint_changes_with_the_schema_and_only_then() -> None:
    """Equal schemas share a fingerprint; a changed description changes it."""
    same = Schema.model_validate(DEFAULT_SCHEMA.model_dump())
    assert same.fingerprint == DEFAULT_SCHEMA.fingerprint
    changed = Schema(
        entity_types=(EntityTypeSpec(name="Person", description="someone"),),
    )
    other = Schema(entity_types=(EntityTypeSpec(name="Person", description="a human"),))
    assert changed.fingerprint != other.fingerprint


def test_schema_files_load_from_json_and_yaml(tmp_path: Path) -> None:
    """Both formats describe the same schema."""
    (tmp_path / "s.json").write_text(
        '{"entity_types": [{"name": "Person"}, {"name": "Team"}],'
        ' "relationship_types": [{"name": "MEMBER_OF", "subject_types": ["Person"]}]}',
        encoding="utf-8",
    )
    (tmp_path / "s.yaml").write_text(
        "entity_types:\n  - name: Person\n  - name: Team\nrelationship_types:\n"
        "  - name: MEMBER_OF\n    subject_types: [Person]\n",
        encoding="utf-8",
    )
    assert load_schema(tmp_path / "s.json") == load_schema(tmp_path / "s.yaml")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.json", "{not json", "not valid JSON"),
        ("bad.yaml", "entity_types: [", "not valid YAML"),
        ("empty.json", '{"entity_types": []}', "entity_types"),
        ("type.json", '{"entity_types": [{"name": "has space"}]}', "invalid type name"),
    ],
)
def test_a_bad_schema_file_names_the_problem(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    """Each failure is one typed error whose message says what is wrong and where."""
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidSchemaError, match=message):
        load_schema(path)


def test_a_missing_schema_file_is_a_typed_error(tmp_path: Path) -> None:
    """Not an OSError leaking from the library."""
    with pytest.raises(InvalidSchemaError, match="cannot read"):
        load_schema(tmp_path / "absent.json")


def test_types_are_looked_up_loosely_and_stored_as_declared() -> None:
    """Case, underscores and "-isation" do not matter; an exact name still wins; the spec
    returned carries the declared spelling."""
    schema = Schema(
        entity_types=(EntityTypeSpec(name="Person"), EntityTypeSpec(name="Organization")),
        relationship_types=(RelationshipTypeSpec(name="WORKS_FOR"),),
    )
    for given in ("Person", "person", "PERSON"):
        spec = schema.entity_type(given)
        assert spec is not None
        assert spec.name == "Person"
    for given in ("organisation", "Organisation", "ORGANIZATION"):
        spec = schema.entity_type(given)
        assert spec is not None
        assert spec.name == "Organization"
    for given in ("works_for", "WorksFor", "Works-For"):
        relationship = schema.relationship_type(given)
        assert relationship is not None
        assert relationship.name == "WORKS_FOR"
    assert schema.entity_type("Persona") is None
    assert schema.relationship_type("WORKS_AT") is None
    assert schema.allows("works_for", "Person", "Organization")


def test_types_differing_only_in_spelling_are_refused() -> None:
    """Loose lookup needs loose uniqueness: "Person" and "PERSON" cannot both be declared."""
    with pytest.raises(ValueError, match="differ only in case"):
        Schema(entity_types=(EntityTypeSpec(name="Person"), EntityTypeSpec(name="PERSON")))
    with pytest.raises(ValueError, match="declared twice"):
        Schema(entity_types=(EntityTypeSpec(name="Person"), EntityTypeSpec(name="Person")))
