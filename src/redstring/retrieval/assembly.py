"""Assembling a result: the entities the passages name, in the order the question reads them,
the relationships with their cited evidence, the passages with their markers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from redstring.domain.chunks import StoredChunk
from redstring.domain.errors import EmptyTextError
from redstring.domain.ids import ChunkId, EntityId, RelationshipId, TenantId, id_text
from redstring.domain.models import Entity, Relationship
from redstring.domain.name_forms import normalise_name
from redstring.ports.graph_store import GraphStore
from redstring.retrieval.fusion import Fused
from redstring.retrieval.results import (
    MENTIONS,
    RetrievedEntity,
    RetrievedPassage,
    RetrievedRelationship,
)
from redstring.retrieval.sentences import score_sentences

__all__ = [
    "by_sentence",
    "chosen_entities",
    "markers_naming",
    "passage_result",
    "relationship_results",
    "resolved_mentions",
]


async def resolved_mentions(
    graph: GraphStore,
    tenant: TenantId,
    ranked: Sequence[Fused[ChunkId]],
    held: Mapping[ChunkId, StoredChunk],
) -> tuple[list[EntityId], dict[EntityId, EntityId]]:
    """Entities named by the ranked passages, resolved to the live entity (a merged-away id
    counts as its survivor; an unknown id is dropped), and the resolution of every id.

    Ordered by first mention in passage order. (Weighting an entity by the summed scores of
    the passages naming it measured worse: question entities, named everywhere, then crowd
    out the answers.)
    """
    named = list(
        dict.fromkeys(
            entity
            for item in ranked
            if item.key in held
            for entity in dict.fromkeys(held[item.key].entity_ids)
        )
    )
    if not named:
        return [], {}
    live = await graph.resolve_entity_ids(tenant, named)
    return list(dict.fromkeys(live[entity] for entity in named if entity in live)), live


def by_sentence(
    question: str,
    passages: Sequence[ChunkId],
    held: Mapping[ChunkId, StoredChunk],
    live: Mapping[EntityId, EntityId],
    mentioned: Sequence[EntityId],
    stored: Mapping[EntityId, Entity],
) -> list[EntityId]:
    """The ``mentions`` ranking: entities in the order of the first returned passage naming
    them; within one passage, those named in its sentences that best match the question
    first (:func:`~redstring.retrieval.sentences.score_sentences`), then first mention.

    A passage of a thousand characters names a dozen entities; the sentence that matches the
    question says which of them it is about. An entity is found in a sentence by any name it
    was seen under (its ``n:`` blocking keys hold them, normalised) or its own name.
    """
    first: dict[EntityId, int] = {}
    for rank, chunk in enumerate(passages):
        for named in held[chunk].entity_ids:
            if named in live:
                first.setdefault(live[named], rank)
    scored = [
        (sentence.rank, f" {_folded(sentence.text)} ", sentence.score)
        for sentence in score_sentences(question, [held[chunk].text for chunk in passages])
        if sentence.score > 0
    ]

    def best(entity_id: EntityId) -> float:
        entity, rank = stored.get(entity_id), first.get(entity_id)
        if entity is None or rank is None:
            return 0.0
        names = surface_names(entity)
        return max(
            (
                score
                for at, text, score in scored
                if at == rank and any(f" {name} " in text for name in names)
            ),
            default=0.0,
        )

    position = {entity: index for index, entity in enumerate(mentioned)}
    unnamed = len(passages)
    return sorted(
        mentioned, key=lambda entity: (first.get(entity, unnamed), -best(entity), position[entity])
    )


def chosen_entities(
    fused: list[Fused[EntityId]],
    stored: Mapping[EntityId, Entity],
    wanted: frozenset[str] | None,
    k: int,
) -> list[RetrievedEntity]:
    """The ``k`` best entities of the wanted types, the passages' own first.

    An entity the returned passages name ranks by its ``mentions`` rank (passage order, and
    within a passage the sentences that best match the question first), ahead of any they do
    not name; ties and the unnamed rank by fused score. On the gold question set every other
    order measured worse for answer entities: entity vectors and the graph mostly find the
    entities a question names, and a vote from each outweighed the passages' evidence of the
    answer (docs/benchmarks.md).
    """
    unnamed = len(fused) + 1
    fused = sorted(fused, key=lambda item: (item.ranks.get(MENTIONS, unnamed), -item.score))
    chosen = []
    for item in fused:
        entity = stored.get(item.key)
        if entity is None or (wanted is not None and entity.type not in wanted):
            continue
        chosen.append(RetrievedEntity(entity=entity, score=item.score, ranks=item.ranks))
        if len(chosen) == k:
            break
    return chosen


def relationship_results(
    fused: Sequence[Fused[RelationshipId]],
    by_id: Mapping[RelationshipId, Relationship],
    cited: Mapping[RelationshipId, tuple[str, ...]],
    names: Mapping[EntityId, str],
    k: int,
) -> tuple[RetrievedRelationship, ...]:
    """The first ``k`` fused relationships with their ends' names and cited passages."""
    chosen = []
    for item in fused[:k]:
        edge = by_id[item.key]
        chosen.append(
            RetrievedRelationship(
                relationship=edge,
                subject_name=names.get(edge.subject_id, id_text(edge.subject_id)),
                object_name=names.get(edge.object_id, id_text(edge.object_id)),
                score=item.score,
                ranks=item.ranks,
                passages=cited.get(edge.id, ()),
            )
        )
    return tuple(chosen)


def _folded(text: str) -> str:
    """``text`` as :func:`normalise_name` folds it, or ``""`` when it holds no letter or
    digit."""
    try:
        return normalise_name(text)
    except EmptyTextError:
        return ""


def surface_names(entity: Entity) -> set[str]:
    """Every name ``entity`` was seen under, normalised: its ``n:`` keys and its name."""
    names = {_folded(entity.name)}
    for key in entity.blocking_keys:
        family = key.split("|", 1)[-1]
        if family.startswith("n:"):
            names.add(family[2:])
    names.discard("")
    return names


def passage_result(chunk: StoredChunk, marker: str, item: Fused[ChunkId]) -> RetrievedPassage:
    return RetrievedPassage(
        marker=marker,
        chunk_id=chunk.id,
        source_id=chunk.source_id,
        chunk_index=chunk.chunk_index,
        text=chunk.text,
        headings=heading_path(chunk),
        entity_ids=chunk.entity_ids,
        score=item.score,
        ranks=item.ranks,
    )


def heading_path(chunk: StoredChunk) -> tuple[str, ...]:
    """The headings ingest stored above ``chunk`` (``metadata["headings"]``), outermost first;
    nothing for a chunk stored without them or with a value of another shape."""
    found = chunk.metadata.get("headings")
    if not isinstance(found, list):
        return ()
    return tuple(heading for heading in found if isinstance(heading, str))


def markers_naming(
    entity: EntityId, passages: Iterable[RetrievedPassage], live: Mapping[EntityId, EntityId]
) -> tuple[str, ...]:
    """The markers of the passages naming ``entity`` directly or through a merged id."""
    return tuple(
        passage.marker
        for passage in passages
        if any(live.get(named) == entity for named in passage.entity_ids)
    )
