"""The name-shape cues the offline extractor corrects recogniser labels with."""

from __future__ import annotations

import pytest

from redstring.extraction.name_cues import is_coined, label_from_words


@pytest.mark.parametrize(
    ("name", "before", "label"),
    [
        ("Acme Labs", None, "ORG"),
        ("Northgate Holdings Ltd", None, "ORG"),
        ("University of Tarrow", None, "ORG"),
        ("Chamber of Commerce", None, "ORG"),
        ("Ferris Summit", None, "EVENT"),
        ("Design Week", None, "EVENT"),
        ("Gull Point", None, "LOC"),
        ("Port Meridian", None, "LOC"),
        ("Tarrow Exhibition Centre", None, "FAC"),
        ("Okonkwo", "Dr.", "PERSON"),
        ("Saarinen", "Mayor", "PERSON"),
        ("J. Ferris", None, "PERSON"),
        ("Port Meridian City Council", None, "ORG"),
        ("Jane Smith", None, None),
        ("Summit", None, None),
        ("Battle of Tarrow Bridge", None, "EVENT"),
        ("Siege of Port Meridian", None, "EVENT"),
        ("Okafor Government", None, "ORG"),
        ("Tarrow Parliament", None, "ORG"),
        ("Battle", None, None),
    ],
)
def test_label_from_words(name: str, before: str | None, label: str | None) -> None:
    """Organisation words win over place words; a lone event or place word says nothing."""
    assert label_from_words(name.split(), before) == label


@pytest.mark.parametrize(
    ("word", "coined"),
    [
        ("TideWave", True),
        ("GridLock", True),
        ("McKay", False),
        ("MacArthur", False),
        ("DeVito", False),
        ("Smith", False),
        ("iPhone", False),
    ],
)
def test_is_coined(word: str, coined: bool) -> None:
    """A capital inside a capitalised word marks a coinage, unless it is a surname prefix."""
    assert is_coined(word) is coined
