"""What a passage is about: the first name of its first line, compared by full-name keys."""

from __future__ import annotations

import uuid

from redstring.domain.blocking import blocking_keys
from redstring.domain.ids import EntityId
from redstring.domain.models import Entity
from redstring.retrieval.aboutness import names_in_opening, opens_about


def test_a_passage_is_about_the_first_name_of_its_first_line() -> None:
    """A title, a Markdown heading or a first sentence is about the name it opens with (within
    its first words), not about a name it gives later."""
    title = names_in_opening("## About Okafor Laboratories\n\nThe firm makes batteries.")
    assert "Okafor Laboratories" in {span.text for span in title}
    headline = names_in_opening("# Halvard research chief moves to rival Okafor Labs\n\nText.")
    assert "Halvard" in {span.text for span in headline}
    assert "Okafor Labs" not in {span.text for span in headline}
    prose = names_in_opening(
        "Priya Raman joined the company in 2024 after six years at Halvard Maritime Group, "
        "where she led the research department and the SeaGuard sensor team."
    )
    assert "Priya Raman" in {span.text for span in prose}
    assert "Halvard Maritime Group" not in {span.text for span in prose}
    late = names_in_opening(
        "The remaining capacity of the port comes from a utility called Northwind Energy, "
        "which runs two older plants on the northern shore of the bay."
    )
    assert late == []


def test_an_opening_is_about_an_entity_by_its_full_name_keys_only() -> None:
    """The name is compared through the exact and sorted-token keys: a legal suffix or case
    does not matter, one shared word does not count."""
    company = Entity(
        id=EntityId(uuid.uuid4()),
        type="Organization",
        name="Okafor Laboratories Ltd",
        blocking_keys=blocking_keys("Organization", "Okafor Laboratories Ltd"),
    )
    assert opens_about(names_in_opening("# About OKAFOR LABORATORIES"), company)
    assert not opens_about(names_in_opening("# Okafor family history"), company)
