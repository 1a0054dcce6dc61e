"""Question-entity linking: which words may be names, which keys, which entities win."""

from __future__ import annotations

import uuid

from redstring.domain.blocking import blocking_keys
from redstring.domain.ids import EntityId
from redstring.domain.models import Entity
from redstring.retrieval.linking import (
    AMBIGUOUS_BUCKET,
    MAX_SPANS,
    NameSpan,
    link_ranking,
    name_spans,
    span_keys,
)


def _texts(question: str) -> list[str]:
    return [span.text for span in name_spans(question)]


def _entity(name: str, kind: str = "Person") -> Entity:
    return Entity(
        id=EntityId(uuid.uuid5(uuid.NAMESPACE_URL, f"linking/{kind}/{name}")),
        type=kind,
        name=name,
        blocking_keys=blocking_keys(kind, name),
    )


def _link(question: str, entities: list[Entity], types: tuple[str, ...] = ("Person",)) -> list[str]:
    """Link ``question`` against ``entities`` the way the retriever does, without a store."""
    spans = name_spans(question)
    keys = {span: span_keys(span, types) for span in spans}
    limit = AMBIGUOUS_BUCKET + 1
    found: dict[str, list[Entity]] = {}
    for per_span in keys.values():
        for key in per_span:
            bucket = sorted(
                (e for e in entities if key in e.blocking_keys), key=lambda e: str(e.id)
            )
            if bucket:
                found[key] = bucket[:limit]
    by_id = {e.id: e.name for e in entities}
    return [
        by_id[entity_id]
        for entity_id in link_ranking(spans, keys, found, limit_per_key=limit).entities
    ]


def test_capitalised_runs_and_their_parts_are_candidate_names_question_words_are_not() -> None:
    assert _texts("Where was the chief engineer of Okafor Labs born?") == [
        "Okafor Labs",
        "Okafor",
        "Labs",
    ]
    assert _texts("Who is Beatriz?") == ["Beatriz"]
    # A lowercase particle joins two capitalised words; an initial keeps its word.
    assert _texts("What does P. de Wit say?")[0] == "P de Wit"
    # A possessive is not part of the name.
    assert _texts("What is IBM's revenue?") == ["IBM"]


def test_a_question_without_capitals_tries_runs_of_content_words() -> None:
    spans = _texts("what did whitlock promise the harbourmind team")
    assert "whitlock" in spans
    assert "harbourmind team" in spans
    assert "what" not in spans
    assert "the" not in spans
    assert all(len(text.split()) <= 3 for text in spans)


def test_only_the_precise_key_families_are_looked_up() -> None:
    full = span_keys(NameSpan(0, 2, "Amara Okafor"), ["Person"])
    families = {key.split("|", 1)[1].split(":", 1)[0] for key in full}
    assert families <= {"n", "s", "i"}  # never p: or k: (phonetic), never f: for two words
    one = span_keys(NameSpan(0, 1, "Okafor"), ["Person", "Organization"])
    assert "Person|f:okafor" in one
    assert "Organization|f:okafor" in one
    assert not any(":O216" in key for key in one)  # no Soundex key
    assert span_keys(NameSpan(0, 1, "!!!"), ["Person"]) == {}


def test_a_full_name_beats_a_shared_word_and_covers_its_own_words() -> None:
    """ "Amara Okafor" links by its full name; its words do not also link "Okafor Labs" or
    "Amara Mensah" through the one-word families."""
    entities = [
        _entity("Amara Okafor"),
        _entity("Okafor Labs", "Organization"),
        _entity("Amara Mensah"),
    ]
    assert _link("What did Amara Okafor found?", entities, ("Person", "Organization")) == [
        "Amara Okafor"
    ]


def test_one_word_links_every_name_it_begins_or_ends_unless_too_many_share_it() -> None:
    entities = [_entity("Jonah Whitlock"), _entity("Okafor Labs", "Organization")]
    assert _link("What did Whitlock promise?", entities) == ["Jonah Whitlock"]
    assert _link("Who works at Okafor?", entities, ("Person", "Organization")) == ["Okafor Labs"]
    crowd = [_entity(f"Alex Smith{suffix}") for suffix in ("", *"bcdefghijkl")]
    crowd += [_entity(f"Alex Nr{n}") for n in range(AMBIGUOUS_BUCKET)]
    assert _link("Where does Alex live?", crowd) == []


def test_stronger_links_rank_first_then_longer_spans_then_smaller_buckets() -> None:
    entities = [_entity("Pieter de Wit"), _entity("Marguerite Lindqvist"), _entity("Anna Wit")]
    ranked = _link("Did P. de Wit meet Lindqvist?", entities)
    assert ranked[0] == "Pieter de Wit"  # initial (i:) over one shared word (f:)
    assert ranked[1:] == ["Marguerite Lindqvist"]  # "Wit" is covered by "P de Wit"


def test_a_long_title_case_text_is_looked_up_by_a_bounded_number_of_names() -> None:
    question = " ".join(f"Word{chr(65 + n % 26)}{n}" for n in range(300))
    spans = name_spans(question)
    assert len(spans) == MAX_SPANS
    assert all(span.words <= 6 for span in spans)
