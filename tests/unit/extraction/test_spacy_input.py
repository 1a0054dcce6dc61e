"""What the offline extractor reads of a passage, and what it refuses as a name."""

from __future__ import annotations

import pytest

from redstring.domain.extraction import Extraction
from redstring.domain.schema import DEFAULT_SCHEMA
from redstring.extraction.adapters.spacy import SpacyExtractor, blocks
from redstring.extraction.adapters.spacy.cleaning import prose_blocks


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor()


def names(extraction: Extraction) -> set[str]:
    return {entity.name for entity in extraction.entities}


def test_code_link_targets_and_capitals_lines_never_reach_the_recogniser() -> None:
    """Fenced code (also when the passage starts inside a block), inline code, URLs and a
    line in capitals go; link text stays."""
    passage = (
        "setup(name='Okafor Labs')\n```\n\n## SEE ALSO\n\n"
        "Read [the guide](https://example.org/Okafor_Labs) by `Okafor Labs` today."
    )
    assert blocks(passage) == ["Read the guide by today."]


async def test_a_passage_of_code_alone_extracts_nothing(extractor: SpacyExtractor) -> None:
    """No prose, no parse: an empty extraction, not an error."""
    found = await extractor.extract("```python\nimport Okafor_Labs\n```", DEFAULT_SCHEMA)
    assert found == Extraction()


async def test_junk_candidates_are_dropped_and_counted_by_reason(
    extractor: SpacyExtractor,
) -> None:
    """A recogniser's "names" that are versions, identifiers or headings in capitals are
    refused, and the report says why."""
    found = await extractor.extract(
        "Guido van Rossum released Python 3.11.2 at CWI. He added F_OFD_GETLK support to "
        "PREAMBLE and later joined Google in Zurich.",
        DEFAULT_SCHEMA,
    )
    assert "Guido van Rossum" in names(found)
    assert not {"3.11.2", "F_OFD_GETLK", "PREAMBLE"} & names(found)
    assert set(found.dropped) <= {
        "junk_code", "junk_number", "junk_heading", "junk_phrase", "junk_markup", "junk_path",
        "relationship_pattern",
    }  # fmt: skip


async def test_a_heading_names_only_what_the_prose_names(extractor: SpacyExtractor) -> None:
    """A title's capitalised words are not names unless the passage's prose names them too."""
    found = await extractor.extract("# Quick Start\n\nMarie Curie lived in Paris.", DEFAULT_SCHEMA)
    assert names(found) == {"Marie Curie", "Paris"}
    assert found.dropped == {"junk_heading": 1}
    section = await extractor.extract(
        "# Getting Started\n\nMarie Curie lived in Paris.", DEFAULT_SCHEMA
    )
    assert names(section) == {"Marie Curie", "Paris"}
    assert section.dropped == {"junk_phrase": 1}  # a gerund's section title, wherever it is
    kept = await extractor.extract(
        "# Ada Lovelace\n\nAda Lovelace lived in London.", DEFAULT_SCHEMA
    )
    assert names(kept) == {"Ada Lovelace", "London"}


async def test_names_the_passage_itself_shows_are_not_names(extractor: SpacyExtractor) -> None:
    """A dictionary word capitalised only because it opens a sentence, and a user name beside
    the name it stands for, are dropped and counted; pronouns after a name make it a person's."""
    found = await extractor.extract(
        "Content is king.\n\n- BethGriggs - Beth Griggs (she/her)\n- aduh95 - Antoine du Hamel "
        "(he/him)",
        DEFAULT_SCHEMA,
    )
    kinds = {(e.name, e.type) for e in found.entities}
    assert ("Antoine du Hamel", "Person") in kinds
    assert ("Beth Griggs", "Person") in kinds
    assert not {"Content", "BethGriggs"} & names(found)


async def test_a_quoted_nickname_stays_inside_the_name(extractor: SpacyExtractor) -> None:
    """ "Richard Elmer "Dick" Humbert" is one person, not "Richard Elmer" and "Humbert"."""
    found = await extractor.extract(
        'Richard Elmer "Dick" Humbert was an American football end. He lived in Philadelphia.',
        DEFAULT_SCHEMA,
    )
    assert "Richard Elmer Humbert" in names(found)
    assert "Humbert" not in names(found)


def test_a_short_line_over_a_paragraph_is_a_title() -> None:
    """A plain-text title (no "#") stands over its paragraph: a block marked as a heading; a
    short line that closes a sentence, or one with no paragraph under it, is not one."""
    found = prose_blocks("Two Dollar Radio\nTwo Dollar Radio is a publisher in Columbus.")
    assert [b.heading for b in found] == [True, False]
    assert not any(b.heading for b in prose_blocks("It rained.\nThe match went on."))
    assert not any(b.heading for b in prose_blocks("See the manual.\nRegards\nAda Obi"))
    assert not any(b.heading for b in prose_blocks("Present: Ada Obi, Tom Wilk\nWe met."))


async def test_the_paragraph_under_a_title_opens_with_its_name(
    extractor: SpacyExtractor,
) -> None:
    """The title's words that open the paragraph are one name, of the kind the predicate
    says, even where the recogniser cut them ("Heinkel") or read a title alone as a person;
    the title line casts no vote of its own."""
    found = await extractor.extract(
        "Heinkel HD 23\nThe Heinkel HD 23 was a carrier-borne fighter biplane built in Germany.",
        DEFAULT_SCHEMA,
    )
    assert ("Heinkel HD 23", "Product") in {(e.name, e.type) for e in found.entities}
    assert "Heinkel" not in names(found)
    song = await extractor.extract(
        'The Hukilau Song\n"The Hukilau Song" is a song written by Jack Owens in 1948.',
        DEFAULT_SCHEMA,
    )
    assert ("Hukilau Song", "Work") in {(e.name, e.type) for e in song.entities}

    quoted = await extractor.extract(
        'The Hukilau Song\nJack Owens wrote "The Hukilau Song" in 1948 after a luau.',
        DEFAULT_SCHEMA,
    )
    assert ("Hukilau Song", "Work") in {(e.name, e.type) for e in quoted.entities}


async def test_an_instruction_is_not_a_name(extractor: SpacyExtractor) -> None:
    """A candidate opening with a word that is only ever a verb is an instruction or a
    button's label ("Install Python", "Enable Profile Guided Optimization"); a name after it
    stays."""
    found = await extractor.extract(
        "Click Install Now and choose Enable Profile Guided Optimization. Mark Hammond wrote "
        "PythonWin. Install Python from the Microsoft Store.",
        DEFAULT_SCHEMA,
    )
    assert not {"Install Now", "Enable Profile Guided Optimization", "Install Python"} & names(
        found
    )
    assert "Mark Hammond" in names(found)
    assert found.dropped.get("junk_phrase", 0) >= 1
