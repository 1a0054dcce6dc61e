"""SpacyExtractor over the real small English pipeline (the ``nlp`` extra).

The sentences are made up for these tests and are not from the shipped corpus; each pins one
rule of the adapter's docstring: label mapping, schema restriction, name cleaning, trigger
direction (active, passive, inverse, relative clause, agent noun), drop accounting, and the
lazy, thread-offloaded parse.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.extraction import Extraction
from redstring.domain.schema import (
    DEFAULT_SCHEMA,
    EntityTypeSpec,
    RelationshipTypeSpec,
    Schema,
)
from redstring.extraction.adapters.spacy import RULES_VERSION, SpacyExtractor, blocks
from redstring.extraction.adapters.spacy.candidates import cued as cued_names
from redstring.ports.extractor import Extractor


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor()


def entities(extraction: Extraction) -> set[tuple[str, str]]:
    return {(e.name, e.type) for e in extraction.entities}


def triples(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(r.subject, r.type, r.object) for r in extraction.relationships}


def test_model_names_pipeline_version_and_rules(extractor: SpacyExtractor) -> None:
    """The identity covers the pipeline package, its version and the rules version."""
    assert extractor.model.startswith("spacy/en_core_web_sm")
    assert extractor.model.endswith(f"-3.8.0+rules-{RULES_VERSION}")
    assert isinstance(extractor, Extractor)


def test_an_uninstalled_pipeline_is_refused_by_name() -> None:
    """Naming a pipeline that is not installed fails at construction, naming the fix."""
    with pytest.raises(InvalidArgumentError, match=r"'xx_no_such_pipeline'.*nlp extra"):
        SpacyExtractor("xx_no_such_pipeline")
    with pytest.raises(InvalidArgumentError, match="cooccurrence"):
        SpacyExtractor(cooccurrence=" ")


def test_constructing_does_not_load_spacy() -> None:
    """The pipeline (and spaCy itself) loads on first use, not at construction."""
    probe = (
        "import sys; from redstring.extraction.adapters.spacy import SpacyExtractor; "
        "x = SpacyExtractor(); print('spacy' in sys.modules, x.model)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert out[0] == "False"
    assert out[1].startswith("spacy/en_core_web_sm")


def test_a_loaded_pipeline_can_be_passed_in() -> None:
    """A ``Language`` object is used as given; its meta names the model."""
    import spacy

    nlp = spacy.load(SpacyExtractor().model.split("/")[1].split("-")[0])
    given = SpacyExtractor(nlp)
    assert given.model == f"spacy/en_{nlp.meta['name']}-{nlp.meta['version']}+rules-{RULES_VERSION}"


async def test_blank_text_is_refused(extractor: SpacyExtractor) -> None:
    """A blank passage raises before any parse."""
    with pytest.raises(EmptyTextError):
        await extractor.extract(" \n\t", DEFAULT_SCHEMA)


async def test_recogniser_labels_map_to_the_schema_types(extractor: SpacyExtractor) -> None:
    """PERSON, ORG and GPE land on Person, Organization and Location."""
    extraction = await extractor.extract(
        "Grace Hopper worked for the United States Navy in Arlington.", DEFAULT_SCHEMA
    )
    assert entities(extraction) == {
        ("Grace Hopper", "Person"),
        ("United States Navy", "Organization"),
        ("Arlington", "Location"),
    }


async def test_types_the_schema_does_not_declare_are_never_returned(
    extractor: SpacyExtractor,
) -> None:
    """A schema of people only gets people, and no relationship to anything else."""
    people = Schema(entity_types=(EntityTypeSpec(name="Person"),))
    extraction = await extractor.extract(
        "Grace Hopper worked for the United States Navy in Arlington.", people
    )
    assert entities(extraction) == {("Grace Hopper", "Person")}
    assert extraction.relationships == []


async def test_a_schema_states_its_own_labels(extractor: SpacyExtractor) -> None:
    """``ner_labels`` maps recogniser labels to a type of any name."""
    schema = Schema(
        entity_types=(
            EntityTypeSpec(name="Company", ner_labels=("ORG",)),
            EntityTypeSpec(name="Human", ner_labels=("PERSON",)),
        )
    )
    extraction = await extractor.extract("Ada Lovelace works for Acme Corp.", schema)
    assert entities(extraction) == {("Ada Lovelace", "Human"), ("Acme Corp.", "Company")}


async def test_noun_chunks_fill_a_type_that_asks_for_them(extractor: SpacyExtractor) -> None:
    """Noun phrases no recogniser label covers become candidates of a noun_chunks type."""
    schema = Schema(
        entity_types=(
            EntityTypeSpec(name="Person"),
            EntityTypeSpec(name="Concept", noun_chunks=True),
        )
    )
    extraction = await extractor.extract("Ada Lovelace described the analytical engine.", schema)
    assert entities(extraction) == {("Ada Lovelace", "Person"), ("analytical engine", "Concept")}


async def test_names_lose_articles_and_possessives(extractor: SpacyExtractor) -> None:
    """ "the BBC's reporters" names the BBC."""
    extraction = await extractor.extract(
        "The BBC's reporters met Jane Smith in Paris.", DEFAULT_SCHEMA
    )
    assert ("BBC", "Organization") in entities(extraction)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Ada Lovelace works for Acme Corp.", ("Ada Lovelace", "WORKS_FOR", "Acme Corp.")),
        (
            "Acme Corp was founded by Jane Smith in 1990.",
            ("Jane Smith", "FOUNDED", "Acme Corp"),
        ),
        ("Acme Corp hired John Doe in 2001.", ("John Doe", "WORKS_FOR", "Acme Corp")),
        (
            "Acme Corp, which is based in Boston, makes rockets.",
            ("Acme Corp", "LOCATED_IN", "Boston"),
        ),
        (
            "Jane Smith, the founder of Acme Corp, spoke on Tuesday.",
            ("Jane Smith", "FOUNDED", "Acme Corp"),
        ),
        (
            "Tom Baker, chief engineer at Acme Corp, retired.",
            ("Tom Baker", "WORKS_FOR", "Acme Corp"),
        ),
    ],
    ids=["active", "passive", "inverse", "relative-clause", "agent-noun", "role-apposition"],
)
async def test_triggers_are_read_in_the_right_direction(
    extractor: SpacyExtractor, sentence: str, expected: tuple[str, str, str]
) -> None:
    """Who does what comes from the parse, not from word order."""
    assert triples(await extractor.extract(sentence, DEFAULT_SCHEMA)) == {expected}


async def test_a_trigger_between_disallowed_types_is_dropped_and_counted(
    extractor: SpacyExtractor,
) -> None:
    """ "hire" between two people matches WORKS_FOR, which the schema does not allow."""
    extraction = await extractor.extract("Jane Smith hired John Doe.", DEFAULT_SCHEMA)
    assert extraction.relationships == []
    assert extraction.dropped == {"relationship_pattern": 1}


async def test_relationships_never_cross_sentences(extractor: SpacyExtractor) -> None:
    """A trigger in one sentence does not join mentions of two sentences."""
    extraction = await extractor.extract(
        "Jane Smith spoke in Boston. Acme Corp hired new staff.", DEFAULT_SCHEMA
    )
    assert all(r.type != "WORKS_FOR" for r in extraction.relationships)


async def test_cooccurrence_is_off_unless_named(extractor: SpacyExtractor) -> None:
    """Pairs with no trigger get the co-occurrence type only when asked, and only when the
    schema allows it between their types."""
    schema = Schema(
        entity_types=DEFAULT_SCHEMA.entity_types,
        relationship_types=(
            *DEFAULT_SCHEMA.relationship_types,
            RelationshipTypeSpec(
                name="MENTIONED_WITH",
                subject_types=("Person",),
                object_types=("Person",),
            ),
        ),
    )
    sentence = "John Doe met Jane Smith at the harbour."
    assert (await extractor.extract(sentence, schema)).relationships == []
    with_cooccurrence = SpacyExtractor(cooccurrence="MENTIONED_WITH")
    assert triples(await with_cooccurrence.extract(sentence, schema)) == {
        ("John Doe", "MENTIONED_WITH", "Jane Smith")
    }


async def test_concurrent_extractions_equal_sequential_ones(extractor: SpacyExtractor) -> None:
    """Parses run one at a time in a worker thread; overlapping calls change nothing."""
    texts = [
        "Ada Lovelace works for Acme Corp.",
        "Acme Corp was founded by Jane Smith in 1990.",
        "Grace Hopper worked for the United States Navy in Arlington.",
    ] * 3
    sequential = [await extractor.extract(text, DEFAULT_SCHEMA) for text in texts]
    overlapping = await asyncio.gather(*(extractor.extract(t, DEFAULT_SCHEMA) for t in texts))
    assert list(overlapping) == sequential


def test_blocks_end_at_markdown_and_header_lines_but_keep_wrapped_prose() -> None:
    """Headings, list items and "Field: value" lines end a block; wrapped prose does not."""
    text = (
        "# Quarterly notes\n"
        "From: Jane Smith\n"
        "Date: 2 May\n\n"
        "Jane Smith said the results of the third quarter were better than the board had\n"
        "expected, and that Acme Corp would hire.\n"
        "- first item\n"
        "- second item\n"
    )
    assert blocks(text) == [
        "Quarterly notes",
        "From: Jane Smith",
        "Date: 2 May",
        "Jane Smith said the results of the third quarter were better than the board had "
        "expected, and that Acme Corp would hire.",
        "first item",
        "second item",
    ]


async def test_a_heading_does_not_run_into_the_next_line(extractor: SpacyExtractor) -> None:
    """ "Career" above "Okonkwo worked ..." is not part of the name."""
    extraction = await extractor.extract(
        "## Career\nAmara Okonkwo worked for Acme Corp in Boston.", DEFAULT_SCHEMA
    )
    assert not any(e.name.startswith("Career") for e in extraction.entities)


async def test_a_name_its_words_call_an_organisation_is_found_when_the_recogniser_misses_it(
    extractor: SpacyExtractor,
) -> None:
    """The small pipeline reads "Okafor Labs" in a short sentence as nothing; its last word
    says it is an organisation. A pronoun opening a capitalised run ("Our Board") opens no
    name of the rule's own (the recogniser may still tag it)."""
    found = await extractor.extract(
        "Dr. Amara Okafor founded Okafor Labs in Leeds in 2010.", DEFAULT_SCHEMA
    )
    assert ("Okafor Labs", "Organization") in entities(found)
    assert ("Amara Okafor", "FOUNDED", "Okafor Labs") in triples(found)
    assert cued_names(extractor._parse("Our Board met on Monday."), []) == []


async def test_a_place_before_a_role_noun_says_where_not_of_what(
    extractor: SpacyExtractor,
) -> None:
    """ "the Port Harlow maker of TideCell batteries": the place is where the maker is, and a
    noun that states its own "of" takes its object from there, so the place reading stands."""
    found = await extractor.extract(
        "Greyfen Capital invested in Okafor Laboratories Ltd, the Port Harlow maker of TideCell "
        "harbour batteries.",
        DEFAULT_SCHEMA,
    )
    assert ("Okafor Laboratories Ltd", "LOCATED_IN", "Port Harlow") in triples(found)
