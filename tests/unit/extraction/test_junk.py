"""What is not a name: every junk rule refuses its shape and spares the names that resemble it."""

from __future__ import annotations

import pytest

from redstring.domain.extraction import DROP_REASONS
from redstring.extraction.junk import JUNK_REASONS, junk_reason


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("kvakil](https://github.com", "junk_markup"),
        ("<pathspec>", "junk_markup"),
        ("x = 1", "junk_markup"),
        ("/mnt", "junk_path"),
        ("src/main", "junk_path"),
        ("F_OFD_GETLK", "junk_code"),
        ("std::nothrow_t", "junk_code"),
        ("os.path", "junk_code"),
        ("--force", "junk_code"),
        ("getValue", "junk_code"),
        ("setup.py", "junk_code"),
        ("print()", "junk_code"),
        ("3.11.2", "junk_number"),
        ("0x1f", "junk_number"),
        ("4f1a2b3c", "junk_number"),
        ("1,742", "junk_number"),
        ("CALLGRIND OPTIONS", "junk_heading"),
        ("DESCRIPTION", "junk_heading"),
        ("the working tree", "junk_phrase"),
        ("amd64", "junk_phrase"),
        ("A Very Long Line That Is Clearly Not A Name", "junk_phrase"),
        ("API", "junk_common_noun"),
        ("I/O", "junk_common_noun"),
        ("PRs", "junk_common_noun"),
        ("Git-based", "junk_phrase"),
        ("UTF-8-encoded", "junk_phrase"),
        ("BBBBBB", "junk_phrase"),
        ("Content-", "junk_phrase"),
        ("Cc:", "junk_phrase"),
        ("SQUASH???", "junk_phrase"),
        ("etc", "junk_phrase"),
        ("21st", "junk_number"),
        ("U+00E9", "junk_number"),
        ("A.B", "junk_code"),
        ("A.B.C", "junk_code"),
        ("N/2", "junk_number"),
        ("April 24", "junk_number"),
        ("24 April 2024", "junk_number"),
        ("Sept. 3", "junk_number"),
        ("0 to 3", "junk_number"),
        ("1 or 2", "junk_number"),
        ("Italo A.", "junk_phrase"),
        ("Y.", "junk_phrase"),
        ("W and Z", "junk_phrase"),
    ],
)
def test_a_shape_no_name_has_is_refused_with_its_reason(name: str, reason: str) -> None:
    """Each rule names the shape it refuses."""
    assert junk_reason(name) == reason


@pytest.mark.parametrize(
    "name",
    [
        "C#", "C++", "TCP/IP", "OS/2", "iPhone", "macOS", "eBay", "Node.js", "AT&T",
        "NASA", "UNESCO", "de Gaulle", "Guido van Rossum", "Python 3", "Windows 10",
        "Okafor Labs", "Kiln & Carrow Ltd", "Dr. Lenz", "3M", "7-Eleven", "Pick Me Up!",
        "Who Framed Roger Rabbit?", "U.S.", "J.R.R. Tolkien", "A. Parent", "Harry S. Truman",
        "April Wine", "May Day", "Apollo 11", "Vitamin C", "B. B. King", "AC/DC", "Area 51",
        "Top 10",
    ],
)  # fmt: skip
def test_names_that_resemble_junk_are_kept(name: str) -> None:
    """Languages, protocols, brands, acronyms and particles are names."""
    assert junk_reason(name) is None


def test_every_junk_reason_is_a_declared_drop_reason() -> None:
    """An ingest report may carry them: they are declared with the other drop reasons."""
    assert JUNK_REASONS
    assert set(JUNK_REASONS) <= set(DROP_REASONS)
