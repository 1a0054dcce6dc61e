"""EvidenceResolver: blocking-key candidates scored by Fellegi-Sunter evidence weights.

For one batch of mentions it reads candidates with one ``find_by_blocking_keys`` call bounded
by ``limit_per_key`` (a second, unbounded one only for a name key that filled it; plus
``resolve_entity_ids`` so that a key still naming a merged-away entity leads to the
entity it merged into), then decides each mention in order against the candidates from the
store and the mentions decided before it in the same batch. A mention joins the best cluster
whose weight reaches the merge threshold; otherwise it starts a new entity, and a best weight
between the two thresholds against a stored entity is reported as a possible match.

Scoring is :mod:`redstring.domain.resolution`; term frequencies are counted over the batch
itself, so a large import sharpens its own weights and a small one keeps the defaults.
Deterministic: the same mentions in the same order and the same store give the same decisions.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import JsonValue

from redstring.domain.blocking import attribute_keys, blocking_keys, lookup_keys
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.ids import EntityId, SourceId, TenantId
from redstring.domain.models import Entity
from redstring.domain.resolution import (
    Frequencies,
    MatchScore,
    Profile,
    ResolutionSettings,
    decide,
    frequencies_of,
    profile,
    score_pair,
)
from redstring.ingest.resolution import Decision, Mention
from redstring.ports.graph_store import MAX_LIMIT, GraphStore

RULE = "evidence_weights"
"""The ``rule`` of every decision this resolver makes by score."""

SAME_NAME_RULE = "same_name_in_text"
"""The ``rule`` of a passage mention that merged because it spells a candidate's name
exactly and has nothing else to compare, below the merge threshold (ADR 0022)."""

SHORT_FORM_RULE = "short_form_in_document"
"""The ``rule`` of a passage mention that joined the one entity its own document names in a
fuller form ("Veil" after "Tomas Veil"; ADR 0022)."""

TENANT_SHORT_FORM_RULE = "short_form_in_tenant"
"""The ``rule`` of a passage mention of two words or more that joined the one entity of the
whole tenant its name fits ("M. Lindqvist" in a memo, when the graph knows one Lindqvist it
could be; ADR 0027)."""

_SPECIFIC_FAMILIES = ("n:", "s:")


def _family(key: str) -> str:
    """The family of a blocking key ``Type|xx:...``: the two characters after the type."""
    return key.split("|", 1)[1][:2]


# A cluster is a stored entity (0, id text) or a new entity of this batch (1, group number);
# tuples sort stored entities first.
_ClusterKey = tuple[int, str]


@dataclass
class _Cluster:
    entity_id: EntityId | None
    group: int
    members: list[Profile] = field(default_factory=list)
    stored: Entity | None = None
    """A stored entity not yet profiled: most candidates a batch reads are never scored,
    so a stored cluster's profile is made when it first is."""
    sources: set[SourceId] = field(default_factory=set)


_SAME_DOCUMENT_LEVELS = frozenset({"exact", "equivalent", "subset", "initials", "partial", "close"})
"""Name levels by which a name-only mention joins the one entity its own document names so."""


class EvidenceResolver:
    """Resolve mentions by explainable evidence weights; the default resolver.

    ``max_candidates`` bounds the clusters scored per mention (those sharing the most keys
    win); ``max_bucket`` ignores a broad key (any family but ``n:``/``s:``) once that many
    clusters share it, so that cost does not grow with the tenant; ``max_members`` bounds the
    members of one cluster a mention is compared with; ``ambiguity_margin`` (bits) keeps a
    mention apart when a second cluster also reaches the merge threshold within that margin
    of the best. Raises :class:`InvalidArgumentError`
    for a bound below 1 or a negative margin.
    """

    def __init__(
        self,
        settings: ResolutionSettings | None = None,
        *,
        max_candidates: int = 8,
        max_bucket: int = 64,
        max_members: int = 6,
        ambiguity_margin: float = 2.0,
        tenant_short_forms: bool = True,
    ) -> None:
        for label, value in (
            ("max_candidates", max_candidates),
            ("max_bucket", max_bucket),
            ("max_members", max_members),
        ):
            if value < 1:
                raise InvalidArgumentError(f"{label} must be at least 1, got {value}")
        if not ambiguity_margin >= 0:
            raise InvalidArgumentError(
                f"ambiguity_margin must be a number of bits >= 0, got {ambiguity_margin}"
            )
        self.settings = settings or ResolutionSettings()
        self._max_candidates = max_candidates
        self._max_bucket = max_bucket
        self._max_members = max_members
        self._ambiguity_margin = ambiguity_margin
        self._tenant_short_forms = tenant_short_forms

    async def resolve(
        self, graph: GraphStore, tenant: TenantId, mentions: Sequence[Mention]
    ) -> list[Decision]:
        """One decision per mention, in mention order (see the module docstring)."""
        profiles: list[Profile | None] = []
        keys: list[tuple[str, ...]] = []
        lookups: list[tuple[str, ...]] = []
        for mention in mentions:
            try:
                profiles.append(
                    profile(mention.type, mention.name, mention.attributes, self.settings)
                )
                decisive = attribute_keys(mention.type, mention.attributes)
                keys.append(blocking_keys(mention.type, mention.name) + decisive)
                lookups.append(lookup_keys(mention.type, mention.name) + decisive)
            except EmptyTextError:
                profiles.append(None)
                keys.append(())
                lookups.append(())
        clusters, index = await self._stored_candidates(graph, tenant, lookups)
        frequencies = frequencies_of([item for item in profiles if item is not None])
        decisions: list[Decision] = []
        groups = 0
        for position, mention_profile in enumerate(profiles):
            best: tuple[_ClusterKey, MatchScore] | None = None
            runner_up = -math.inf
            if mention_profile is not None:
                best, runner_up = self._best(
                    mention_profile, lookups[position], clusters, index, frequencies
                )
            outcome = "new" if best is None else decide(best[1], self.settings)
            short_form = False
            rule = RULE
            from_text = mentions[position].chunk_id is not None
            named_only = (
                from_text
                and best is not None
                and mention_profile is not None
                and _same_name_only(mention_profile, best[1])
            )
            if named_only:
                # Nothing but a name to go by, spelled the same: the same entity. Text mentions
                # carry no attributes, and how often a name recurs in the batch says how often
                # it is mentioned, not how many entities share it (ADR 0022).
                if outcome != "merge":
                    rule = SAME_NAME_RULE
                outcome = "merge"
            elif (
                from_text
                and outcome != "merge"
                and mention_profile is not None
                and not mention_profile.fields
            ):
                # "Veil" or "T. Veil" after "Tomas Veil" in the same document: a short form
                # names the one entity of its document it fits, if exactly one fits.
                local = self._only_fit(
                    mention_profile,
                    lookups[position],
                    mentions[position].source_id,
                    clusters,
                    index,
                    frequencies,
                )
                if local is not None:
                    best, outcome, named_only, short_form = local, "merge", True, True
                    rule = SHORT_FORM_RULE
                elif self._tenant_short_forms and len(mention_profile.form.tokens) > 1:
                    # "T. Veil", "Tom Veil" or "Halvard Maritime" in another document: a
                    # short form of two words or more joins the one entity of the tenant it
                    # fits. One word ("Veil") stays with its own document (ADR 0027).
                    anywhere = self._only_fit(
                        mention_profile, lookups[position], None, clusters, index, frequencies
                    )
                    if anywhere is not None:
                        best, outcome, named_only, short_form = anywhere, "merge", True, True
                        rule = TENANT_SHORT_FORM_RULE
            if (
                best is not None
                and outcome == "merge"
                and not named_only
                and runner_up >= self.settings.merge_threshold
                and best[1].weight - runner_up < self._ambiguity_margin
            ):
                # Two entities fit almost equally well ("R. Okafor": Rufus or Rhoda?): do not
                # guess; keep the mention apart and name the better one for review.
                outcome = "possible"
            if best is not None and outcome == "merge":
                cluster_key, score = best
                cluster = clusters[cluster_key]
                decisions.append(
                    Decision(
                        mention_index=position,
                        entity_id=cluster.entity_id,
                        group=cluster.group,
                        rule=rule,
                        score=round(score.weight, 3),
                        explanation=self._explain(score, cluster),
                        audited=cluster.entity_id is not None and _judged(score),
                    )
                )
            else:
                cluster_key = (1, f"{groups:09d}")
                cluster = _Cluster(entity_id=None, group=groups)
                groups += 1
                clusters[cluster_key] = cluster
                possible = None
                score_value: float | None = None
                explanation: dict[str, JsonValue] = {}
                if best is not None and outcome == "possible":
                    candidate = clusters[best[0]]
                    possible = candidate.entity_id
                    score_value = round(best[1].weight, 3)
                    explanation = self._explain(best[1], candidate)
                decisions.append(
                    Decision(
                        mention_index=position,
                        entity_id=None,
                        group=cluster.group,
                        rule=RULE if possible is not None else "new_entity",
                        score=score_value,
                        explanation=explanation,
                        possible_match=possible,
                    )
                )
            if mention_profile is not None:
                if not short_form:
                    # A short form is compared with nothing later: "Veil" elsewhere must
                    # fit Tomas Veil's full name, as it would once he is stored.
                    cluster.members.append(mention_profile)
                cluster.sources.add(mentions[position].source_id)
                for key in keys[position]:
                    bucket = index.setdefault(key, [])
                    if cluster_key not in bucket:
                        bucket.append(cluster_key)
        return decisions

    async def _stored_candidates(
        self, graph: GraphStore, tenant: TenantId, keys: list[tuple[str, ...]]
    ) -> tuple[dict[_ClusterKey, _Cluster], dict[str, list[_ClusterKey]]]:
        wanted = {key for mention_keys in keys for key in mention_keys}
        # A broad key is skipped once it holds more than max_bucket clusters, so reading one
        # more than that tells all there is to tell and the read stays bounded (ADR 0025).
        # Only a specific key (n:, s:) that fills its limit is read again in full.
        limit = min(self._max_bucket + 1, MAX_LIMIT)
        found = (
            await graph.find_by_blocking_keys(tenant, wanted, limit_per_key=limit) if wanted else {}
        )
        full = [
            key
            for key, bucket in found.items()
            if len(bucket) >= limit and _family(key) in _SPECIFIC_FAMILIES
        ]
        if full:
            found |= await graph.find_by_blocking_keys(tenant, full)
        entities: dict[EntityId, Entity] = {}
        for bucket in found.values():
            for entity in bucket:
                entities.setdefault(entity.id, entity)
        live = await graph.resolve_entity_ids(tenant, list(entities)) if entities else {}
        missing = {target for target in live.values() if target not in entities}
        if missing:
            entities.update(await graph.get_entities(tenant, missing))
        clusters: dict[_ClusterKey, _Cluster] = {}
        index: dict[str, list[_ClusterKey]] = {}
        for key in sorted(found):
            bucket_keys: list[_ClusterKey] = []
            for entity in found[key]:
                target = live.get(entity.id)
                if target is None or target not in entities:
                    continue
                cluster_key = (0, str(target))
                if cluster_key not in clusters:
                    clusters[cluster_key] = _Cluster(
                        entity_id=target, group=-1, stored=entities[target]
                    )
                if cluster_key not in bucket_keys:
                    bucket_keys.append(cluster_key)
            index[key] = sorted(bucket_keys)
        return clusters, index

    def _best(
        self,
        mention: Profile,
        keys: tuple[str, ...],
        clusters: dict[_ClusterKey, _Cluster],
        index: dict[str, list[_ClusterKey]],
        frequencies: Frequencies,
    ) -> tuple[tuple[_ClusterKey, MatchScore] | None, float]:
        """The best-scoring candidate cluster and the runner-up's weight (``-inf`` if none)."""
        shared: dict[_ClusterKey, int] = {}
        for key in keys:
            bucket = index.get(key)
            if not bucket:
                continue
            if len(bucket) > self._max_bucket and _family(key) not in _SPECIFIC_FAMILIES:
                continue
            for cluster_key in bucket:
                shared[cluster_key] = shared.get(cluster_key, 0) + 1
        ranked = sorted(shared, key=lambda cluster_key: (-shared[cluster_key], cluster_key))
        best: tuple[_ClusterKey, MatchScore] | None = None
        runner_up = -math.inf
        for cluster_key in ranked[: self._max_candidates]:
            score = self._cluster_score(mention, clusters[cluster_key], frequencies)
            # Strictly greater: on a tie the cluster sharing more keys (then the smaller key)
            # keeps its place.
            if best is None or score.weight > best[1].weight:
                if best is not None:
                    runner_up = max(runner_up, best[1].weight)
                best = (cluster_key, score)
            else:
                runner_up = max(runner_up, score.weight)
        return best, runner_up

    def _only_fit(
        self,
        mention: Profile,
        keys: tuple[str, ...],
        source: SourceId | None,
        clusters: dict[_ClusterKey, _Cluster],
        index: dict[str, list[_ClusterKey]],
        frequencies: Frequencies,
    ) -> tuple[_ClusterKey, MatchScore] | None:
        """The one cluster whose name ``mention`` fits, among those of ``source`` in this
        batch, or (``source`` is ``None``) among every candidate the keys found, stored or
        new. Tenant-wide, a broad key (more than ``max_bucket`` clusters, of which only the
        first were read) means the candidates are not all known, so nothing fits."""
        fitting: list[tuple[_ClusterKey, MatchScore]] = []
        seen: set[_ClusterKey] = set()
        for key in keys:
            bucket = index.get(key, ())
            if source is None and len(bucket) > self._max_bucket:
                return None
            for cluster_key in bucket:
                cluster = clusters[cluster_key]
                if cluster_key in seen or (source is not None and source not in cluster.sources):
                    continue
                seen.add(cluster_key)
                score = self._cluster_score(mention, cluster, frequencies)
                if (
                    score.compatible
                    and score.evidence[0].level in _SAME_DOCUMENT_LEVELS
                    and all(item.weight >= 0 for item in score.evidence)
                ):
                    fitting.append((cluster_key, score))
        return fitting[0] if len(fitting) == 1 else None

    def _cluster_score(
        self, mention: Profile, cluster: _Cluster, frequencies: Frequencies
    ) -> MatchScore:
        """The best member's score, unless a member's date or identifier contradicts the
        mention: then the weakest contradicted score, so one good member cannot carry a
        mention into a cluster whose other records say it is someone else."""
        if cluster.stored is not None:
            stored, cluster.stored = cluster.stored, None
            with contextlib.suppress(EmptyTextError):  # a name of no letters: no profile
                cluster.members.insert(
                    0, profile(stored.type, stored.name, stored.attributes, self.settings)
                )
        if not cluster.members:
            return MatchScore(weight=-math.inf, evidence=(), types=(mention.type, ""))
        best: MatchScore | None = None
        worst_conflict: MatchScore | None = None
        for member in cluster.members[: self._max_members]:
            score = score_pair(mention, member, frequencies)
            if best is None or score.weight > best.weight:
                best = score
            if score.conflicting and (
                worst_conflict is None or score.weight < worst_conflict.weight
            ):
                worst_conflict = score
        assert best is not None
        if worst_conflict is not None and worst_conflict.weight < best.weight:
            return worst_conflict
        return best

    def _explain(self, score: MatchScore, cluster: _Cluster) -> dict[str, JsonValue]:
        explanation = score.explanation()
        explanation["candidate"] = (
            str(cluster.entity_id) if cluster.entity_id is not None else f"group:{cluster.group}"
        )
        explanation["thresholds"] = {
            "merge": self.settings.merge_threshold,
            "possible": self.settings.possible_threshold,
        }
        return explanation


def _same_name_only(mention: Profile, score: MatchScore) -> bool:
    """Whether ``mention`` has no field to compare and spells the candidate's name exactly
    (after normalisation), with nothing in the score against it."""
    return (
        not mention.fields
        and score.compatible
        and score.evidence[0].level == "exact"
        and all(item.weight >= 0 for item in score.evidence)
    )


def _judged(score: MatchScore) -> bool:
    """Whether a match took judgement: a name that is not the same, or a field that differs.

    Such a match into a stored entity is recorded as a merge (the mention's own entity, then
    ``EntitiesMerged`` with the explanation), so it is listed by ``merges()`` and can be
    undone by ``unmerge()``. Repeating a known name with nothing contradicting it just adds
    evidence, so a document that names someone ten times does not write ten merges.
    """
    name = score.evidence[0]
    return name.level != "exact" or any(item.weight < 0 for item in score.evidence)
