"""The adapter guide's table and ``redstring.testing`` name the same suites, both ways."""

from __future__ import annotations

import re
from pathlib import Path

import redstring.testing

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "implement-a-store-adapter.md"


def suites_in_guide() -> set[str]:
    """Suite names in the second column of the guide's port table."""
    names = set()
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2:
            names.update(re.findall(r"`(\w+Compliance)`", cells[1]))
    return names


def exported_suites() -> set[str]:
    """Every ``*Compliance`` name ``redstring.testing`` exports."""
    return {name for name in redstring.testing.__all__ if name.endswith("Compliance")}


def test_every_shipped_suite_has_a_row() -> None:
    """A suite added without a row in the guide fails."""
    assert exported_suites() - suites_in_guide() == set()


def test_every_row_names_a_shipped_suite() -> None:
    """A row naming a suite that no longer ships fails."""
    assert suites_in_guide() - exported_suites() == set()


def test_the_guide_table_is_found() -> None:
    """The parser finds the table at all; an empty set would pass both checks above."""
    assert "GraphStoreCompliance" in suites_in_guide()
    assert len(suites_in_guide()) >= 6
