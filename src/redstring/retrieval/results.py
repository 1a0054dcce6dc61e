"""What a query returns: fused, explained, cited evidence, and what ``ask`` answers with.

Every item carries ``score`` (its reciprocal-rank-fusion sum) and ``ranks`` (its 1-based rank
in each signal that found it, keyed by signal name), so a caller can see why it is there;
entities and relationships carry the store's ``provenance`` (source, chunks, model), and a
passage is its own provenance (source and chunk). Passages are numbered ``P1``, ``P2``, ...
in result order; those markers are the citations of :meth:`QueryResult.as_context` and of an
:class:`Answer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.domain.models import Entity, Provenance, Relationship

ENTITY_VECTOR = "entity_vector"
"""Dense search over entity embeddings (name, type, aliases, description)."""
PASSAGE_VECTOR = "passage_vector"
"""Dense search over passage embeddings."""
LEXICAL = "lexical"
"""BM25 over the passage store's lexical candidates."""
GRAPH = "graph"
"""Expansion from the top entities: neighbours, the relationships among them, their evidence."""
MENTIONS = "mentions"
"""Entities named by, and relationships evidenced by, the best passages."""
NAMES = "names"
"""Entities the question names, linked through their blocking keys."""
HOP = "hop"
"""Passages about the entities the best passages name: the second hop of a multi-hop question."""

SIGNALS = (ENTITY_VECTOR, PASSAGE_VECTOR, LEXICAL, GRAPH, MENTIONS, NAMES, HOP)


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RetrievedPassage(_Result):
    """A passage with its citation marker, its fused score and its rank in each signal.

    ``headings`` is where the passage stands in its document: the headings above it,
    outermost first (empty when the document has none).
    """

    marker: str
    chunk_id: ChunkId
    source_id: SourceId
    chunk_index: int
    text: str
    headings: tuple[str, ...] = ()
    entity_ids: tuple[EntityId, ...] = ()
    score: float
    ranks: dict[str, int]

    @property
    def provenance(self) -> Provenance:
        """Where the passage comes from: its source and its own chunk."""
        return Provenance(source_id=self.source_id, chunk_ids=(self.chunk_id,))


class RetrievedEntity(_Result):
    """An entity as stored (provenance included), with the passages of the result naming it."""

    entity: Entity
    score: float
    ranks: dict[str, int]
    passages: tuple[str, ...] = ()


class RetrievedRelationship(_Result):
    """A relationship as stored, its endpoints' names, and the passages that evidence it."""

    relationship: Relationship
    subject_name: str
    object_name: str
    score: float
    ranks: dict[str, int]
    passages: tuple[str, ...] = ()


class QueryResult(_Result):
    """The fused evidence for one question, best first in each list.

    ``signal_hits`` says how many items each signal produced (a signal that is not
    configured, such as passage vectors without a passage store, is absent). ``notices``
    are what the caller should be told about how the answer was found, e.g. that vector
    search was off because the tenant's vectors were made by another embedding model.
    """

    tenant_id: TenantId
    question: str
    passages: tuple[RetrievedPassage, ...]
    entities: tuple[RetrievedEntity, ...]
    relationships: tuple[RetrievedRelationship, ...]
    signal_hits: dict[str, int]
    notices: tuple[str, ...] = ()

    def passage(self, marker: str) -> RetrievedPassage | None:
        """The passage cited as ``marker`` (``"P1"``), or ``None``."""
        return next((p for p in self.passages if p.marker == marker), None)

    def as_context(self) -> str:
        """An LLM-ready context: numbered passages, then graph facts and entities citing them.

        Deterministic for a given result. Every ``[Pn]`` in it names a passage of
        :attr:`passages`, so a citation can be checked against the result.
        """
        lines = [f"Question: {self.question}", ""]
        if not self.passages:
            lines.append("No passage matched the question.")
        else:
            lines.append("Passages (cite them by their marker, e.g. [P1]):")
            for passage in self.passages:
                lines.append(f"[{passage.marker}] ({_where(passage.source_id, passage.headings)})")
                lines.append(" ".join(passage.text.split()))
        if self.relationships:
            lines += ["", "Graph facts:"]
            for fact in self.relationships:
                relation = fact.relationship
                cited = "".join(f"[{marker}]" for marker in fact.passages)
                lines.append(
                    f"- {fact.subject_name} {relation.type} {fact.object_name}"
                    + (f" {cited}" if cited else "")
                )
        if self.entities:
            lines += ["", "Entities:"]
            for found in self.entities:
                entity = found.entity
                description = entity.attributes.get("description")
                about = f": {description}" if isinstance(description, str) else ""
                cited = "".join(f"[{marker}]" for marker in found.passages)
                lines.append(
                    f"- {entity.name} ({entity.type}){about}" + (f" {cited}" if cited else "")
                )
        return "\n".join(lines)


class Citation(_Result):
    """A passage an answer cites: its marker in the context, chunk, source and the headings
    above it in its document (outermost first)."""

    marker: str
    chunk_id: ChunkId
    source_id: SourceId
    headings: tuple[str, ...] = ()


def _where(source_id: str, headings: Sequence[str]) -> str:
    """A passage's place for people: ``"source: guide.html, section: Install > Linux"``."""
    if not headings:
        return f"source: {source_id}"
    return f"source: {source_id}, section: {' > '.join(headings)}"


AnswerKind = Literal["generated", "extractive", "unanswerable"]


class Answer(_Result):
    """An answer to a question, with checked citations and the context it came from.

    ``kind`` is ``"generated"`` (a model wrote it from the context), ``"extractive"`` (no
    model: the best passages and graph facts, quoted), or ``"unanswerable"`` (no relevant
    context, or the model said the context does not answer). ``citations`` name only
    passages of ``context``; ``dropped_citations`` are those the model gave that named
    none, counted and never shown as evidence.
    """

    question: str
    text: str
    kind: AnswerKind
    citations: tuple[Citation, ...]
    dropped_citations: tuple[str, ...] = ()
    model: str | None = None
    context: QueryResult

    @property
    def dropped_citation_count(self) -> int:
        """How many citations the model invented (named no passage of the context)."""
        return len(self.dropped_citations)


class AnswerDraft(BaseModel):
    """What the model is asked to fill: an answer from the context, and the markers it used."""

    model_config = ConfigDict(extra="forbid")

    answerable: bool = Field(
        description="false when the passages do not contain the answer to the question"
    )
    answer: str = Field(description="the answer, written only from the passages")
    citations: list[str] = Field(
        default_factory=list,
        description="markers of the passages the answer relies on, e.g. ['P1', 'P3']",
    )
