"""The README's `--schema` example: the file it names loads, and its excerpt matches it."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from redstring.composition.schema_files import load_schema

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "schema.yaml"


def test_the_example_schema_file_loads() -> None:
    """docs/examples/schema.yaml is a valid schema with the types the README shows."""
    schema = load_schema(EXAMPLE)
    assert [spec.name for spec in schema.entity_types] == [
        "Software", "Command", "Person", "Organization",
    ]  # fmt: skip
    assert schema.relationship_type("PART_OF") is not None


def test_the_readme_excerpt_agrees_with_the_example_file() -> None:
    """Every type and relationship of the README's excerpt is in the file, alike."""
    readme = (ROOT / "README.md").read_text("utf-8")
    block = re.search(r"### Your own types.*?```yaml\n(.*?)```", readme, re.S)
    assert block is not None
    excerpt = yaml.safe_load(block[1])
    full = yaml.safe_load(EXAMPLE.read_text("utf-8"))
    names = {item["name"] for item in full["entity_types"]}
    assert {item["name"] for item in excerpt["entity_types"]} <= names
    for relationship in excerpt["relationship_types"]:
        (match,) = [r for r in full["relationship_types"] if r["name"] == relationship["name"]]
        assert match["subject_types"] == relationship["subject_types"]
        assert match["object_types"] == relationship["object_types"]
    assert "--schema docs/examples/schema.yaml" in readme
