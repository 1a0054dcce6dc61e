"""The resolution seam: deciding which entity each mention denotes.

``KnowledgeGraph`` hands a :class:`Resolver` every entity mention of one write (an ingested
source's new passages, or one import) and gets back one :class:`Decision` per mention: an
existing entity to add the mention's evidence to, or a group of mentions that together form a
new entity. Resolvers read candidates from the graph store (blocking keys; never a scan) and
make no model call. :class:`ExactNameResolver` is the simplest honest rule: same type and the
same normalised name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from pydantic import JsonValue

from redstring.domain.blocking import normalise_name
from redstring.domain.errors import EmptyTextError
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId
from redstring.domain.models import Entity
from redstring.domain.resolution import FieldKind, LearnedWeights
from redstring.ports.graph_store import GraphStore


@dataclass(frozen=True)
class Mention:
    """One entity mention to resolve, with where it came from."""

    type: str
    name: str
    attributes: dict[str, JsonValue]
    description: str | None
    source_id: SourceId
    chunk_id: ChunkId | None = None
    ref: str | None = None


@dataclass(frozen=True)
class Decision:
    """What one mention resolves to.

    ``entity_id`` names an existing entity to add the mention to; ``None`` means a new
    entity, shared by every mention of the same ``group``. ``possible_match`` names an
    entity the mention scored between the thresholds against: kept apart, recorded for
    review. ``rule``, ``score`` and ``explanation`` say why.
    """

    mention_index: int
    entity_id: EntityId | None
    group: int
    rule: str
    score: float | None = None
    explanation: dict[str, JsonValue] = field(default_factory=dict)
    possible_match: EntityId | None = None
    audited: bool = False


@dataclass(frozen=True)
class ResolutionContext:
    """What the tenant's log and schema say about resolving its mentions (ADR 0035).

    ``kinds`` holds, per entity type, the attribute kinds the schema declares (attribute key
    in key form -> kind); ``weights`` the tenant's last recorded estimate per entity type;
    ``entities`` how many entities the tenant holds and ``records`` how many records it has
    imported; ``sample(type, n)`` up to ``n`` of its stored entities of a type, in log order,
    for a resolver that re-estimates its weights.
    """

    kinds: Mapping[str, Mapping[str, FieldKind]] = field(default_factory=dict)
    weights: Mapping[str, LearnedWeights] = field(default_factory=dict)
    entities: int = 0
    records: int = 0
    sample: Callable[[str, int], Sequence[Entity]] | None = None


@runtime_checkable
class Resolver(Protocol):
    """Decides, for a batch of mentions, which entity each denotes."""

    async def resolve(
        self,
        graph: GraphStore,
        tenant: TenantId,
        mentions: Sequence[Mention],
        context: ResolutionContext | None = None,
    ) -> list[Decision]:
        """One decision per mention, in mention order; deterministic for the same input
        (the same mentions, store and ``context``)."""
        ...


@runtime_checkable
class LearningResolver(Resolver, Protocol):
    """A resolver that learns from the tenant's records (``EvidenceResolver``).

    Before resolving imported records the writer asks it for new estimates; each one it
    returns is recorded in the tenant's log (``ResolutionWeightsEstimated``) and handed back
    through :attr:`ResolutionContext.weights`, so every later decision, in any process and
    after any rebuild, uses the weights the log holds.
    """

    def estimate(
        self, mentions: Sequence[Mention], context: ResolutionContext
    ) -> dict[str, LearnedWeights]:
        """New estimates per entity type for the types due a refresh; empty when none is."""
        ...


def exact_name_key(entity_type: str, name: str) -> str:
    """The blocking key every stored entity has for each of its surface names."""
    return f"{entity_type}|n:{normalise_name(name)}"


class ExactNameResolver:
    """Same type and same normalised name means the same entity; nothing else merges."""

    async def resolve(
        self,
        graph: GraphStore,
        tenant: TenantId,
        mentions: Sequence[Mention],
        context: ResolutionContext | None = None,
    ) -> list[Decision]:
        """Match each mention to the lowest-id stored entity sharing its name key."""
        keys: list[str | None] = []
        for mention in mentions:
            try:
                keys.append(exact_name_key(mention.type, mention.name))
            except EmptyTextError:
                keys.append(None)
        wanted = {key for key in keys if key is not None}
        found = await graph.find_by_blocking_keys(tenant, wanted) if wanted else {}
        groups: dict[str, int] = {}
        decisions: list[Decision] = []
        for index, key in enumerate(keys):
            candidates = (
                [entity for entity in found.get(key, []) if entity.type == mentions[index].type]
                if key is not None
                else []
            )
            if candidates:
                match = min(candidates, key=lambda entity: str(entity.id))
                decisions.append(
                    Decision(
                        mention_index=index,
                        entity_id=match.id,
                        group=-1,
                        rule="exact_name",
                        score=1.0,
                    )
                )
                continue
            group_key = key if key is not None else f"#{index}"
            group = groups.setdefault(group_key, len(groups))
            decisions.append(
                Decision(mention_index=index, entity_id=None, group=group, rule="new_entity")
            )
        return decisions
