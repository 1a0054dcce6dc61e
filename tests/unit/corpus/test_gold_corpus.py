"""The shipped corpus and its gold agree with each other and with the corpus schema.

A gold file that drifts from its documents scores every extractor wrongly without any error,
so these checks read the text: each annotated entity is named in each document it is listed
for, and no entity is named in a document that leaves it out (names nested in a longer gold
name excepted, as the annotation guideline in ``redstring.corpus`` says).
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from redstring.corpus import Corpus, Document, GoldEntity, load_corpus
from redstring.domain.blocking import normalise_name


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus()


def _spans(text: str, name: str) -> list[tuple[int, int]]:
    pattern = r"(?<!\w)" + re.escape(name) + r"(?!\w)"
    return [match.span() for match in re.finditer(pattern, text, flags=re.IGNORECASE)]


def named_in(document: Document, entities: tuple[GoldEntity, ...]) -> dict[str, set[str]]:
    """Entity id -> the names it is called in ``document``, longest names claimed first."""
    candidates = [
        (span, entity.id, name)
        for entity in entities
        for name in entity.names
        for span in _spans(document.text, name)
    ]
    candidates.sort(key=lambda c: (c[0][0] - c[0][1], c[0][0]))
    claimed: list[tuple[int, int]] = []
    found: dict[str, set[str]] = {}
    for (start, end), entity_id, name in candidates:
        if any(start < other_end and other_start < end for other_start, other_end in claimed):
            continue
        claimed.append((start, end))
        found.setdefault(entity_id, set()).add(name)
    return found


def test_the_corpus_has_the_promised_size_and_genres(corpus: Corpus) -> None:
    """15-25 documents of 150-400 words, at least six genres."""
    assert 15 <= len(corpus.documents) <= 25
    for document in corpus.documents:
        assert 150 <= len(document.text.split()) <= 400, document.id
    assert len({document.genre for document in corpus.documents}) >= 6


def test_annotations_match_the_names_in_each_document(corpus: Corpus) -> None:
    """Every listed mention is in the text, and every name in the text is listed."""
    for document in corpus.documents:
        found = set(named_in(document, corpus.entities))
        annotated = {entity.id for entity in corpus.entities_in(document.id)}
        assert found == annotated, document.id


def test_every_alias_is_used_somewhere(corpus: Corpus) -> None:
    """An alias no document uses is a typo or a leftover."""
    used = {
        (entity_id, name)
        for document in corpus.documents
        for entity_id, names in named_in(document, corpus.entities).items()
        for name in names
    }
    for entity in corpus.entities:
        for alias in entity.aliases:
            assert (entity.id, alias) in used, (entity.id, alias)


def test_entities_are_named_differently_across_documents(corpus: Corpus) -> None:
    """The point of the corpus: many entities go by several names."""
    varied = [entity for entity in corpus.entities if len(entity.names) >= 3]
    assert len(varied) >= 10


def test_no_name_means_two_entities_of_one_type(corpus: Corpus) -> None:
    """Gold lookup by (type, normalised name) is unambiguous."""
    keys = Counter(
        key
        for entity in corpus.entities
        for key in {(entity.type, normalise_name(name)) for name in entity.names}
    )
    assert [key for key, count in keys.items() if count > 1] == []


def test_gold_types_and_relationships_fit_the_schema(corpus: Corpus) -> None:
    """Every type is declared and every relationship is one the schema allows."""
    by_id = {entity.id: entity for entity in corpus.entities}
    assert len(by_id) == len(corpus.entities)
    for entity in corpus.entities:
        assert corpus.schema.entity_type(entity.type) is not None, entity.id
    for relationship in corpus.relationships:
        subject, obj = by_id[relationship.subject], by_id[relationship.object]
        assert corpus.schema.allows(relationship.type, subject.type, obj.type), relationship


def test_relationships_are_stated_where_both_ends_are_named(corpus: Corpus) -> None:
    """A document stating a relationship names both of its entities."""
    ids = {document.id for document in corpus.documents}
    for relationship in corpus.relationships:
        assert relationship.documents, relationship
        for document_id in relationship.documents:
            assert document_id in ids
            named = {entity.id for entity in corpus.entities_in(document_id)}
            assert {relationship.subject, relationship.object} <= named, relationship


def test_lookups_name_what_is_missing(corpus: Corpus) -> None:
    """An unknown id raises KeyError naming it."""
    with pytest.raises(KeyError, match="no-such-document"):
        corpus.document("no-such-document")
    with pytest.raises(KeyError, match="nobody"):
        corpus.entity("nobody")
    assert corpus.entity("okafor_labs").type == "Organization"
