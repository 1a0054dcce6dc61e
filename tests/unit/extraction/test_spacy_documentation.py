"""What the offline extractor makes of software documentation (rules 4), and the names of
encyclopaedic text those rules must not break."""

from __future__ import annotations

import pytest

from redstring.domain.extraction import Extraction
from redstring.domain.schema import DEFAULT_SCHEMA
from redstring.extraction.adapters.spacy import SpacyExtractor


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor()


def typed(extraction: Extraction) -> set[tuple[str, str]]:
    return {(entity.name, entity.type) for entity in extraction.entities}


def test_the_default_schema_has_a_type_for_software() -> None:
    """Manuals name programs, languages and formats far more than companies (ADR 0030)."""
    assert "Technology" in {spec.name for spec in DEFAULT_SCHEMA.entity_types}
    assert {"DEVELOPED", "USES", "PART_OF"} <= {r.name for r in DEFAULT_SCHEMA.relationship_types}


def triples(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(r.subject, r.type, r.object) for r in extraction.relationships}


async def test_whoever_made_or_maintains_a_product_developed_it(
    extractor: SpacyExtractor,
) -> None:
    """ "a version control system maintained by Junio Hamano": a system is typed a product, and
    the default schema's DEVELOPED takes products as well as technologies, so the one fact a
    manual states about its own tool is not lost to which of the two it was typed."""
    found = await extractor.extract(
        "We switched to Frobz last year. Frobz is a distributed version control system "
        "maintained by Junio Hamano.",
        DEFAULT_SCHEMA,
    )
    assert ("Frobz", "Product") in typed(found)
    assert triples(found) == {("Junio Hamano", "DEVELOPED", "Frobz")}


async def test_a_name_modifying_a_role_noun_is_what_the_role_is_of(
    extractor: SpacyExtractor,
) -> None:
    """ "Ingo Molnar, a Linux kernel developer": the developer of Linux (its kernel)."""
    found = await extractor.extract("Ingo Molnar, a Linux kernel developer, spoke.", DEFAULT_SCHEMA)
    assert ("Ingo Molnar", "DEVELOPED", "Linux") in triples(found)


async def test_a_name_only_guessed_in_a_passage_with_code_is_a_technology(
    extractor: SpacyExtractor,
) -> None:
    """ "Emacs" guessed a person beside code is a tool's name."""
    found = await extractor.extract(
        "Run `perl -e 1` first.\n\nPerl and Emacs are used by many people here.",
        DEFAULT_SCHEMA,
    )
    assert ("Emacs", "Technology") in typed(found)


async def test_a_name_written_before_an_address_is_a_persons_and_its_handle_no_name(
    extractor: SpacyExtractor,
) -> None:
    """A collaborators list: "- aduh95 - Antoine du Hamel <...>" names a person; the user
    name before it is no entity."""
    found = await extractor.extract(
        "Collaborators:\n\n- JakobJingleheimer - Rich Trott <rtrott@example.com>\n"
        "- aduh95 - Antoine du Hamel <duhamel@example.com>",
        DEFAULT_SCHEMA,
    )
    assert {("Rich Trott", "Person"), ("Antoine du Hamel", "Person")} <= typed(found)
    assert not {"JakobJingleheimer", "aduh95"} & {name for name, _ in typed(found)}


async def test_generic_acronyms_are_dropped_with_their_reason(extractor: SpacyExtractor) -> None:
    found = await extractor.extract(
        "Open a PR against the API and ask the CI to run. The FAQ explains it.", DEFAULT_SCHEMA
    )
    assert not found.entities
    assert found.dropped.get("junk_common_noun", 0) >= 2


async def test_an_acronym_its_common_words_spell_is_a_term_not_a_name(
    extractor: SpacyExtractor,
) -> None:
    """ "BRK (Break)", "AO (Abort output)": the bracket spells out a term; "WBA (Super)" spells
    nothing and "NIST (National Institute of ...)" names an institute, so both stay."""
    found = await extractor.extract(
        "The commands are BRK (Break), IP (Interrupt process), EC (Erase Character) and AO "
        "(Abort output). He held the unified WBA (Super) and WBC titles.",
        DEFAULT_SCHEMA,
    )
    names = {entity.name for entity in found.entities}
    assert not names & {"BRK", "IP", "EC", "AO"}
    assert "WBA" in names
    assert found.dropped.get("junk_common_noun", 0) >= 3


async def test_an_exclamation_and_a_capitalised_participle_are_no_names(
    extractor: SpacyExtractor,
) -> None:
    """ "Woohoo!" is a sentence of its own; "the Formatted string literals" capitalises a
    participle because it is a section's title."""
    found = await extractor.extract(
        "Reviews came back from Kestrel. Woohoo! For fancy formatting, see the Formatted string "
        "literals section.",
        DEFAULT_SCHEMA,
    )
    names = {entity.name for entity in found.entities}
    assert not names & {"Woohoo", "Formatted"}


@pytest.mark.parametrize(
    ("passage", "name"),
    [
        ("In 1967 Engelbert Humperdinck released the single Release Me in London.", "Release Me"),
        ("The outbreak was the deadliest in early March for the U.S. since 1950.", "U.S."),
        (
            "The Adelaide Lightning play in the Women's National Basketball League.",
            "Women's National Basketball League",
        ),
    ],
)
async def test_titles_abbreviations_and_possessives_inside_names_are_kept(
    extractor: SpacyExtractor, passage: str, name: str
) -> None:
    """A title may end in a pronoun, an abbreviation in capitals is no heading, and a
    possessive followed by title-case words is part of the name (HotpotQA misses once)."""
    found = await extractor.extract(passage, DEFAULT_SCHEMA)
    assert name in {entity.name for entity in found.entities}
