"""Evidence sets: the summary kept up to date mention by mention is the state folded from scratch.

The oracle is the state written out from its definition (the longest surface name, the
earliest among equals; the first evidence's type and source; first values; the first 32
distinct passages; the first model), over the evidence held as a plain list where a recorded
key is replaced in place and removal filters by source or passage.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from redstring.domain.blocking import attribute_keys, blocking_keys, place_keys
from redstring.domain.evidence_sets import EvidenceSet, SupportSet
from redstring.domain.graph_events import Evidence, Support
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, SourceId
from redstring.domain.models import Entity, Provenance, Relationship

ENTITY = EntityId("00000000-0000-4000-8000-000000000001")
EDGE = RelationshipId("00000000-0000-4000-8000-000000000002")

SOURCES = [SourceId(f"s{n}.md") for n in range(3)]
CHUNKS = [ChunkId(f"c{n:02d}") for n in range(40)]
NAMES = ["Ada Lovelace", "Ada", "A. Lovelace", "Countess of Lovelace", "Ada King", "Lady Ada"]

evidence = st.builds(
    Evidence,
    source_id=st.sampled_from(SOURCES),
    chunk_id=st.one_of(st.none(), st.sampled_from(CHUNKS)),
    ref=st.one_of(st.none(), st.sampled_from(["r1", "r2"])),
    name=st.sampled_from(NAMES),
    type=st.sampled_from(["Person", "Organization"]),
    description=st.one_of(st.none(), st.just(""), st.sampled_from(["a mathematician", "a poet"])),
    attributes=st.one_of(
        st.just({}),
        st.fixed_dictionaries({"born": st.sampled_from(["1815-12-10", "1816-01-01"])}),
        st.fixed_dictionaries({"email": st.sampled_from(["ada@example.org", "a@x.org"])}),
    ),
    model=st.one_of(st.none(), st.sampled_from(["m/one", "m/two"])),
)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.lists(evidence, min_size=1, max_size=4)),
        st.tuples(st.just("drop_source"), st.sampled_from(SOURCES)),
        st.tuples(st.just("drop_chunk"), st.sampled_from(CHUNKS)),
    ),
    min_size=1,
    max_size=40,
)


def oracle_entity(items: list[Evidence]) -> tuple[Entity, list[str]]:
    first = items[0]
    names = list(dict.fromkeys(item.name for item in items))
    name = max(names, key=lambda candidate: (len(candidate), -names.index(candidate)))
    attributes: dict[str, JsonValue] = {}
    for item in items:
        for key, value in item.attributes.items():
            attributes.setdefault(key, value)
    description = next((item.description for item in items if item.description), None)
    if description:
        attributes.setdefault("description", description)
    keys: set[str] = set()
    for surface in names:
        keys.update(blocking_keys(first.type, surface))
    for item in items:
        keys.update(attribute_keys(first.type, item.attributes))
        keys.update(place_keys(first.type, item.name, item.attributes))
    chunks = list(dict.fromkeys(item.chunk_id for item in items if item.chunk_id is not None))
    entity = Entity(
        id=ENTITY,
        type=first.type,
        name=name,
        attributes=attributes,
        blocking_keys=tuple(sorted(keys)),
        provenance=Provenance(
            source_id=first.source_id,
            chunk_ids=tuple(chunks[:32]),
            model=next((item.model for item in items if item.model), None),
        ),
    )
    return entity, names


def apply_to_list(items: list[Evidence], operation: tuple[str, object]) -> list[Evidence]:
    kind, value = operation
    if kind == "add":
        merged = {item.key: item for item in items}
        for item in value:  # type: ignore[attr-defined]
            merged[item.key] = item
        return list(merged.values())
    if kind == "drop_source":
        return [item for item in items if item.source_id != value]
    return [item for item in items if item.chunk_id != value]


def apply_to_set(items: EvidenceSet, operation: tuple[str, object]) -> None:
    kind, value = operation
    if kind == "add":
        items.add(value)  # type: ignore[arg-type]
    elif kind == "drop_source":
        items.remove(sources=[str(value)])
    else:
        items.remove(chunks=[str(value)])


@settings(max_examples=200, deadline=None)
@given(operations)
def test_the_kept_summary_is_the_state_folded_from_scratch(
    ops: list[tuple[str, object]],
) -> None:
    """After any adds, replacements and removals, the summary's state is the oracle's."""
    plain: list[Evidence] = []
    kept = EvidenceSet()
    for operation in ops:
        plain = apply_to_list(plain, operation)
        apply_to_set(kept, operation)
        assert list(kept) == plain
        if plain:
            assert kept.summary.state(ENTITY) == oracle_entity(plain)


@settings(max_examples=100, deadline=None)
@given(st.lists(evidence, min_size=1, max_size=30), st.lists(evidence, min_size=1, max_size=5))
def test_a_copied_summary_folds_added_evidence_like_the_whole_list(
    held: list[Evidence], added: list[Evidence]
) -> None:
    """Planning folds new mentions into a copy: the original is untouched, the copy exact."""
    kept = EvidenceSet(held)
    before = kept.summary.state(ENTITY)
    fresh = [item for item in added if not kept.has_key(item.key)]
    fresh = list({item.key: item for item in fresh}.values())
    summary = kept.summary.copy()
    for item in fresh:
        summary.add(item)
    assert kept.summary.state(ENTITY) == before
    assert summary.state(ENTITY) == oracle_entity([*kept, *fresh])


supports = st.builds(
    Support,
    source_id=st.sampled_from(SOURCES),
    chunk_id=st.one_of(st.none(), st.sampled_from(CHUNKS)),
    ref=st.one_of(st.none(), st.just("r1")),
    description=st.one_of(st.none(), st.sampled_from(["said so"])),
    attributes=st.one_of(st.just({}), st.just({"since": 1990})),
    model=st.one_of(st.none(), st.just("m/one")),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(supports, min_size=1, max_size=50))
def test_a_relationship_summary_is_its_state_from_scratch(items: list[Support]) -> None:
    """First source, first values, the first 32 distinct passages, the first model."""
    held = list({item.key: item for item in items}.values())
    kept = SupportSet()
    for item in items:
        kept.add([item])
    attributes: dict[str, JsonValue] = {}
    for item in held:
        for key, value in item.attributes.items():
            attributes.setdefault(key, value)
    description = next((item.description for item in held if item.description), None)
    if description:
        attributes.setdefault("description", description)
    chunks = list(dict.fromkeys(item.chunk_id for item in held if item.chunk_id is not None))
    subject, obj = ENTITY, EntityId("00000000-0000-4000-8000-000000000003")
    assert kept.summary.state(EDGE, "KNOWS", subject, obj) == Relationship(
        id=EDGE,
        type="KNOWS",
        subject_id=subject,
        object_id=obj,
        attributes=attributes,
        provenance=Provenance(
            source_id=held[0].source_id,
            chunk_ids=tuple(chunks[:32]),
            model=next((item.model for item in held if item.model), None),
        ),
    )


def test_provenance_names_the_first_32_distinct_passages() -> None:
    """Past 32 passages the state stops moving: the 33rd mention changes nothing."""
    items = [
        Evidence(source_id=SOURCES[0], chunk_id=ChunkId(f"c{n:02d}"), name="Ada", type="Person")
        for n in range(40)
    ]
    kept = EvidenceSet(items[:32])
    full = kept.summary.state(ENTITY)
    kept.add(items[32:])
    assert kept.summary.state(ENTITY) == full
    assert full[0].provenance.chunk_ids == tuple(item.chunk_id for item in items[:32])
