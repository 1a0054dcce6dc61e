"""Relationships from a schema that has names and descriptions only, as a caller writing for an
LLM states it: the offline extractor derives its cues from those words."""

from __future__ import annotations

import pytest

from redstring.domain.extraction import Extraction
from redstring.domain.schema import EntityTypeSpec, RelationshipTypeSpec, Schema
from redstring.extraction.adapters.spacy import SpacyExtractor

SCHEMA = Schema(
    entity_types=(
        EntityTypeSpec(name="Person", description="A named human being."),
        EntityTypeSpec(name="Organization", description="A company, band or team."),
        EntityTypeSpec(name="Place", description="A country, city or town."),
        EntityTypeSpec(name="CreativeWork", description="A film, book, song or album."),
    ),
    relationship_types=(
        RelationshipTypeSpec(
            name="LOCATED_IN",
            description="The place or organisation is located in the larger place.",
            subject_types=("Place", "Organization"),
            object_types=("Place",),
        ),
        RelationshipTypeSpec(
            name="DIRECTED_BY",
            description="The film was directed by the person.",
            subject_types=("CreativeWork",),
            object_types=("Person",),
        ),
        RelationshipTypeSpec(
            name="WORKS_FOR",
            description="The person works for or is employed by the organisation.",
            subject_types=("Person",),
            object_types=("Organization",),
        ),
        RelationshipTypeSpec(
            name="FOUNDED_BY",
            description="The organisation was founded or formed by the person.",
            subject_types=("Organization",),
            object_types=("Person",),
        ),
        RelationshipTypeSpec(
            name="MEMBER_OF",
            description="The person is a member of the band or team.",
            subject_types=("Person",),
            object_types=("Organization",),
        ),
        RelationshipTypeSpec(
            name="STARRED_IN",
            description="The person acted or appeared in the film.",
            subject_types=("Person",),
            object_types=("CreativeWork",),
        ),
        RelationshipTypeSpec(
            name="CHILD_OF",
            description="The person is a son or daughter of the other person.",
            subject_types=("Person",),
            object_types=("Person",),
        ),
    ),
)


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor()


def triples(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(r.subject, r.type, r.object) for r in extraction.relationships}


async def test_a_schema_without_triggers_still_yields_stated_relationships(
    extractor: SpacyExtractor,
) -> None:
    """Copular, participle and place-list constructions read through cues derived from the
    types' names and descriptions; a caller's own type "CreativeWork" gets the work label."""
    found = await extractor.extract(
        "Leland is a town in Brunswick County, North Carolina. Maximum Overdrive is a 1986 "
        "American film written and directed by Stephen King.",
        SCHEMA,
    )
    assert ("Maximum Overdrive", "CreativeWork") in {(e.name, e.type) for e in found.entities}
    assert {
        ("Leland", "LOCATED_IN", "Brunswick County"),
        ("Brunswick County", "LOCATED_IN", "North Carolina"),
        ("Maximum Overdrive", "DIRECTED_BY", "Stephen King"),
    } <= triples(found)
    assert ("North Carolina", "LOCATED_IN", "Brunswick County") not in triples(found)


async def test_a_passive_description_reads_the_object_first(extractor: SpacyExtractor) -> None:
    """ "is employed by" in a description: the employer is the subject of "employ"."""
    found = await extractor.extract("The Radium Institute employed Marie Curie for years.", SCHEMA)
    assert ("Marie Curie", "WORKS_FOR", "Radium Institute") in triples(found)


async def test_a_participle_clause_is_said_of_the_sentence_subject(
    extractor: SpacyExtractor,
) -> None:
    """ "A is a band, formed by B and C": the participle has no subject of its own, so its
    governor's subject is what was formed, by every name of its agent's list."""
    found = await extractor.extract(
        "Okapi Fields is a Canadian folk band, formed in 1998 by Sarah Collins (vocals) and "
        "Tobias Reyes (drums).",
        SCHEMA,
    )
    assert {
        ("Okapi Fields", "FOUNDED_BY", "Sarah Collins"),
        ("Okapi Fields", "FOUNDED_BY", "Tobias Reyes"),
    } <= triples(found)


async def test_a_place_is_named_by_its_kind_noun_and_an_origin_says_where(
    extractor: SpacyExtractor,
) -> None:
    """ "the city of Leeds" and "the West Yorkshire region" name the place they are, so "the city"
    points back to no earlier city; "a band from Toronto" says where the band is."""
    found = await extractor.extract(
        "Okapi Fields is a band from Toronto. The Halden Lions are a rugby team. The club is "
        "based in the city of Leeds. Bingley is a town in the West Yorkshire region of England.",
        SCHEMA,
    )
    assert {
        ("Okapi Fields", "LOCATED_IN", "Toronto"),
        ("Halden Lions", "LOCATED_IN", "Leeds"),
        ("Bingley", "LOCATED_IN", "West Yorkshire"),
    } <= triples(found)
    assert ("Halden Lions", "LOCATED_IN", "Toronto") not in triples(found)


async def test_a_noun_of_the_descriptions_group_is_a_cue(extractor: SpacyExtractor) -> None:
    """ "member of" in the description: "the drummer of" says the same."""
    found = await extractor.extract(
        "Anna Berg is the drummer of Okapi Fields, a folk band.", SCHEMA
    )
    assert ("Anna Berg", "MEMBER_OF", "Okapi Fields") in triples(found)


async def test_a_name_before_a_role_noun_is_what_the_role_is_of(
    extractor: SpacyExtractor,
) -> None:
    """ "Anna Berg's son Tom Berg", "Okapi Fields bassist Tom Lee", "the Okapi Fields frontman":
    a name modifying the role noun (a possessive or a compound) is read as its "of"."""
    found = await extractor.extract(
        "Anna Berg's son Tom Berg was born in Oslo. Tom Lee, the Okapi Fields frontman, was "
        "born in Oslo too.",
        SCHEMA,
    )
    assert {
        ("Tom Berg", "CHILD_OF", "Anna Berg"),
        ("Tom Lee", "MEMBER_OF", "Okapi Fields"),
    } <= triples(found)


async def test_a_person_noun_coordinated_with_a_kind_noun_says_a_person(
    extractor: SpacyExtractor,
) -> None:
    """ "an Indian film and documentary Director": the parser makes "film" the predicate and
    "Director" its conjunct; the paragraph's subject is a person, not a film."""
    found = await extractor.extract(
        "Tomas Okoro\nTomas Okoro is an Indian film and documentary Director and Producer. He "
        "directed Grey Harbour.",
        SCHEMA,
    )
    assert ("Tomas Okoro", "Person") in {(e.name, e.type) for e in found.entities}
    assert ("Tomas Okoro", "CreativeWork") not in {(e.name, e.type) for e in found.entities}


async def test_a_name_the_parser_hung_on_two_heads_is_still_the_subject(
    extractor: SpacyExtractor,
) -> None:
    """ "Do Lafzon Ki Kahani is a film", under its title: the parser reads "Do" as an
    auxiliary; the name's root is its noun, the sentence's subject, so "it" refers to it."""
    found = await extractor.extract(
        "Do Lafzon Ki Kahani (film)\nDo Lafzon Ki Kahani (English: A Story of Two Words) is a "
        "2016 Indian romantic film. "
        "Produced by Pen India Limited, it features Randeep Hooda in the lead role.",
        SCHEMA,
    )
    assert ("Randeep Hooda", "STARRED_IN", "Do Lafzon Ki Kahani") in triples(found)


async def test_a_noun_of_the_description_is_a_cue(extractor: SpacyExtractor) -> None:
    """ "son ... of" from "a son or daughter of the other person"."""
    found = await extractor.extract(
        "Carl Philipp Emanuel Bach was the son of Johann Sebastian Bach.", SCHEMA
    )
    assert triples(found) == {("Carl Philipp Emanuel Bach", "CHILD_OF", "Johann Sebastian Bach")}


async def test_co_occurrence_alone_states_nothing(extractor: SpacyExtractor) -> None:
    """Two names in one sentence without a cue between them are no relationship."""
    found = await extractor.extract("Stephen King and Ada Obi met in Leland.", SCHEMA)
    assert not any(
        kind in {"DIRECTED_BY", "WORKS_FOR", "CHILD_OF"} for _, kind, _ in triples(found)
    )


async def test_a_guessed_verb_between_a_person_and_an_organisation_is_not_a_derived_edge(
    extractor: SpacyExtractor,
) -> None:
    """ "a Likud politician": membership, employment or ownership; a description cannot choose,
    so no edge. A place beside an organisation is where it is."""
    found = await extractor.extract(
        "Moshe Katsav, a prominent Likud politician, spoke. The Aldmere software firm Brinewater "
        "grew.",
        SCHEMA,
    )
    assert not any(kind == "WORKS_FOR" for _, kind, _ in triples(found))
