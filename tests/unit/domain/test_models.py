"""The graph's models: validated type names and text, sorted blocking keys, strict fields."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import ValidationError

from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId
from redstring.domain.models import Alias, Entity, Neighbour, Provenance, Relationship

ADA = EntityId(uuid.UUID(int=1))
BABBAGE = EntityId(uuid.UUID(int=2))


def _entity(**overrides: Any) -> Entity:
    values: dict[str, Any] = {"id": ADA, "type": "Person", "name": "Ada Lovelace", **overrides}
    return Entity.model_validate(values)


class TestEntity:
    """A typed, named node."""

    def test_defaults_are_empty(self) -> None:
        """Attributes, keys and provenance default to empty, never shared between entities."""
        first, second = _entity(), _entity(id=BABBAGE)
        first.attributes["born"] = 1815
        assert second.attributes == {}
        assert first.blocking_keys == ()
        assert first.provenance == Provenance()

    @pytest.mark.parametrize("type_name", ["Person", "WORKS_FOR", "p", "A" + "b" * 63])
    def test_identifier_type_names_are_accepted(self, type_name: str) -> None:
        """A letter, then letters, digits or underscores, 64 at most."""
        assert _entity(type=type_name).type == type_name

    @pytest.mark.parametrize(
        "type_name", ["", "1Person", "_x", "Works For", "Person-1", "A" + "b" * 64, "Persön"]
    )
    def test_other_type_names_are_rejected(self, type_name: str) -> None:
        """No backend should ever have to quote a label; the message shows the value."""
        with pytest.raises(ValidationError, match="invalid type name"):
            _entity(type=type_name)

    @pytest.mark.parametrize(("name", "message"), [("   ", "non-whitespace"), ("a\x00", "NUL")])
    def test_blank_or_nul_names_are_rejected(self, name: str, message: str) -> None:
        """A name must say something, and PostgreSQL cannot store NUL."""
        with pytest.raises(ValidationError, match=message):
            _entity(name=name)

    def test_blocking_keys_are_stored_sorted_and_distinct(self) -> None:
        """Equal key sets compare equal however they were listed."""
        entity = _entity(blocking_keys=("Person|s:b", "Person|n:a", "Person|s:b"))
        assert entity.blocking_keys == ("Person|n:a", "Person|s:b")
        assert entity == _entity(blocking_keys=["Person|s:b", "Person|n:a"])

    def test_provenance_names_each_chunk_once_where_it_first_appears(self) -> None:
        """An entity's or edge's evidence drops a repeated chunk id, on construction and on
        assignment, keeping the order of first appearance (ADR 0028)."""
        first, second = ChunkId("c-2"), ChunkId("c-1")
        provenance = Provenance(chunk_ids=(first, second, first, second))
        assert provenance.chunk_ids == (first, second)
        provenance.chunk_ids = (second, second, first)
        assert provenance.chunk_ids == (second, first)

    def test_a_blank_blocking_key_is_rejected(self) -> None:
        """Every key must hold text."""
        with pytest.raises(ValidationError, match="non-whitespace"):
            _entity(blocking_keys=("Person|n:a", " "))

    def test_assignment_is_validated(self) -> None:
        """Mutating a model cannot smuggle in what construction refuses."""
        entity = _entity()
        with pytest.raises(ValidationError, match="invalid type name"):
            entity.type = "not valid"
        entity.blocking_keys = ("b", "a", "b")
        assert entity.blocking_keys == ("a", "b")

    def test_unknown_fields_are_rejected(self) -> None:
        """A misspelt field, or a tenant smuggled in as one, is an error."""
        with pytest.raises(ValidationError, match="tenant_id"):
            _entity(tenant_id="acme")

    def test_attributes_hold_json(self) -> None:
        """Nested JSON values round-trip; a non-JSON value does not validate."""
        attributes = {"born": 1815, "tags": ["math", None], "ok": True, "x": {"y": 1.5}}
        entity = _entity(attributes=attributes)
        assert Entity.model_validate_json(entity.model_dump_json()) == entity
        with pytest.raises(ValidationError):
            _entity(attributes={"when": object()})

    def test_a_deep_copy_shares_nothing(self) -> None:
        """What stores rely on to hand out copies: mutating the copy leaves the original."""
        entity = _entity(attributes={"tags": ["math"]})
        copy = entity.model_copy(deep=True)
        copy.attributes["tags"].append("poetry")  # type: ignore[union-attr]
        assert entity.attributes == {"tags": ["math"]}


class TestRelationshipAliasNeighbour:
    """Edges, aliases and traversal hits."""

    def test_a_relationship_is_a_typed_directed_edge(self) -> None:
        """Subject and object are entity ids; the type follows the same identifier rule."""
        edge = Relationship(
            id=RelationshipId(uuid.UUID(int=9)),
            type="WORKED_WITH",
            subject_id=ADA,
            object_id=BABBAGE,
            provenance=Provenance(
                source_id=SourceId("memo.md"),
                chunk_ids=(ChunkId("c1"),),
                model="ollama/qwen3",
            ),
        )
        assert (edge.subject_id, edge.object_id) == (ADA, BABBAGE)
        with pytest.raises(ValidationError, match="invalid type name"):
            edge.type = "worked with"

    def test_an_alias_may_keep_the_name_it_was_known_by(self) -> None:
        """The name is optional but, when present, must be real text."""
        assert Alias(alias_id=BABBAGE, canonical_id=ADA).name is None
        assert Alias(alias_id=BABBAGE, canonical_id=ADA, name="A. Lovelace").name == "A. Lovelace"
        with pytest.raises(ValidationError):
            Alias(alias_id=BABBAGE, canonical_id=ADA, name="")

    def test_a_neighbour_is_at_least_one_hop_away(self) -> None:
        """Depth 0 would be the start itself, which traversal never returns."""
        assert Neighbour(entity=_entity(), depth=1).depth == 1
        with pytest.raises(ValidationError):
            Neighbour(entity=_entity(), depth=0)

    def test_models_are_equal_by_value(self) -> None:
        """Two separately built models with the same fields compare equal."""
        assert _entity(attributes={"a": 1}) == _entity(attributes={"a": 1})
        assert _entity() != _entity(name="Ada King")
