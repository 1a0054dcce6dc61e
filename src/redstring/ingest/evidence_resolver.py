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

from redstring.domain.blocking import (
    attribute_keys,
    blocking_keys,
    lookup_keys,
    name_keys,
    place_keys,
    spread,
)
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.ids import EntityId, SourceId, TenantId
from redstring.domain.models import Entity
from redstring.domain.name_forms import NameForm
from redstring.domain.resolution import (
    FieldKind,
    Frequencies,
    LearnedWeights,
    MatchScore,
    Profile,
    ResolutionSettings,
    decide,
    frequencies_of,
    profile,
    score_pair,
)
from redstring.domain.resolution.estimation import MIN_RECORDS, estimate
from redstring.domain.resolution.kinds import attribute_kinds
from redstring.ingest.resolution import Decision, Mention, ResolutionContext
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
    entity: Entity | None = None
    """The stored entity this cluster is, as read."""


_SAME_DOCUMENT_LEVELS = frozenset({"exact", "equivalent", "subset", "initials", "partial", "close"})
"""Name levels by which a name-only mention joins the one entity its own document names so."""

NAMED_AFTER_WORDS = frozenset(
    {
        "pilot", "project", "programme", "program", "scheme", "initiative", "study", "report",
        "review", "survey", "plan", "strategy", "festival", "conference", "summit", "meeting",
        "inquiry", "trial", "fund", "award", "prize", "agreement", "treaty", "campaign",
        "exhibition", "games", "cup", "championship", "marathon", "fair", "show", "expo",
        "forum", "workshop", "accord", "declaration", "framework", "protocol", "act", "bill",
        "directive", "charter", "assessment", "audit", "consultation", "proposal",
    }
)  # fmt: skip
"""Last words of names of projects, reports and events, which are often named after a place
("the Brennock Storage Pilot"): a short form ("Brennock") never joins such a name, because
the word alone names the place."""

SAMPLE = 2_000
"""At most this many records of a type go into an estimate: the batch's records of it and
stored entities of it, half each when both have more (evenly spaced, in order)."""

GROWTH_TO_REFRESH = 2.0
"""A type's weights are estimated again once the tenant has imported this many times the
records it had at the last estimate (ADR 0035): each refresh then sees at least as much new
data as all the estimates before it, and a tenant of n records has been estimated about
log2(n) times."""


@dataclass
class _Batch:
    """What one ``resolve`` call reads its mentions and stored entities with."""

    frequencies: Frequencies
    kinds: dict[str, dict[str, tuple[str, FieldKind]]]
    weights: dict[str, LearnedWeights]


class EvidenceResolver:
    """Resolve mentions by explainable evidence weights; the default resolver.

    ``max_candidates`` bounds the clusters scored per mention (those sharing the most keys
    win); ``max_bucket`` ignores a broad key (any family but ``n:``/``s:``) once that many
    clusters share it, so that cost does not grow with the tenant; ``max_members`` bounds the
    members of one cluster a mention is compared with; ``ambiguity_margin`` (bits) keeps a
    mention apart when a second cluster also reaches the merge threshold within that margin
    of the best; ``cohesion`` (bits, by default the possible-match threshold) is the weight a
    mention must reach on average over the members it is compared with (the weakest left
    out when there are three or more) for its best member to speak for the cluster: one
    member that fits cannot carry a mention into a cluster the rest of which says it is
    something else, nor can one doubtful member keep it out (ADR 0037). Raises
    :class:`InvalidArgumentError` for a bound below 1, a negative margin or a cohesion that
    is not a finite number.
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
        cohesion: float | None = None,
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
        if cohesion is not None and not math.isfinite(cohesion):
            raise InvalidArgumentError(f"cohesion must be a finite number of bits, got {cohesion}")
        self.settings = settings or ResolutionSettings()
        self._max_candidates = max_candidates
        self._max_bucket = max_bucket
        self._max_members = max_members
        self._ambiguity_margin = ambiguity_margin
        self._tenant_short_forms = tenant_short_forms
        self._cohesion = self.settings.possible_threshold if cohesion is None else cohesion

    def kinds_of(
        self, mentions: Sequence[Mention], context: ResolutionContext
    ) -> dict[str, dict[str, tuple[str, FieldKind]]]:
        """Per entity type, the kind of every attribute key the mentions carry (key form),
        from the schema, the tenant's recorded estimate, the key table and the values."""
        by_type: dict[str, list[Mention]] = {}
        for mention in mentions:
            by_type.setdefault(mention.type, []).append(mention)
        kinds: dict[str, dict[str, tuple[str, FieldKind]]] = {}
        for entity_type, typed in by_type.items():
            declared = {
                key: (key, kind) for key, kind in context.kinds.get(entity_type, {}).items()
            }
            learned = context.weights.get(entity_type)
            kinds[entity_type] = attribute_kinds(
                (mention.attributes for mention in typed),
                declared=declared,
                recorded=learned.attribute_kinds if learned is not None else {},
                hints=self.settings.field_kinds,
            )
        return kinds

    def estimate(
        self, mentions: Sequence[Mention], context: ResolutionContext
    ) -> dict[str, LearnedWeights]:
        """New weights for each entity type whose imported records are due an estimate.

        Only records (mentions without a passage) count: a passage's mention carries a name
        and nothing to learn from. A type is due when the tenant, with this batch, holds at
        least :data:`MIN_RECORDS` entities and no estimate was made yet, or
        :data:`GROWTH_TO_REFRESH` times the entities it held at the last one. The estimate
        sees at most :data:`SAMPLE` records: the batch's of the type and stored entities of
        it (``context.sample``), and starts from the previous estimate.
        """
        records = [mention for mention in mentions if mention.chunk_id is None]
        counts: dict[str, int] = {}
        for mention in records:
            counts[mention.type] = counts.get(mention.type, 0) + 1
        estimates: dict[str, LearnedWeights] = {}
        kinds = self.kinds_of(records, context)
        for entity_type in sorted(counts):
            previous = context.weights.get(entity_type)
            size = context.records + len(records)
            if size < MIN_RECORDS or (
                previous is not None and size < GROWTH_TO_REFRESH * previous.tenant_records
            ):
                continue
            typed = [mention for mention in records if mention.type == entity_type]
            chosen, stored, paired = _estimation_sample(entity_type, typed, context)
            profiles: list[Profile] = []
            keys: list[list[str]] = []
            items = [(m.type, m.name, m.attributes) for m in chosen]
            items += [(e.type, e.name, e.attributes) for e in stored]
            sampled = 0
            for position, (item_type, name, attributes) in enumerate(
                [*items, *((e.type, e.name, e.attributes) for e in paired)]
            ):
                try:
                    made = profile(item_type, name, attributes, self.settings, kinds[entity_type])
                except EmptyTextError:
                    continue
                profiles.append(made)
                keys.append(_estimation_keys(made.form))
                if position < len(items):
                    sampled = len(profiles)
            learned = estimate(
                entity_type,
                profiles,
                attribute_kinds=kinds[entity_type],
                name_keys=keys,
                previous=previous,
                tenant_records=size,
                sampled=sampled,
            )
            if learned is not None:
                estimates[entity_type] = learned
        return estimates

    async def resolve(
        self,
        graph: GraphStore,
        tenant: TenantId,
        mentions: Sequence[Mention],
        context: ResolutionContext | None = None,
    ) -> list[Decision]:
        """One decision per mention, in mention order (see the module docstring)."""
        context = context or ResolutionContext()
        kinds = self.kinds_of(mentions, context)
        profiles: list[Profile | None] = []
        keys: list[tuple[str, ...]] = []
        lookups: list[tuple[str, ...]] = []
        for mention in mentions:
            try:
                profiles.append(
                    profile(
                        mention.type,
                        mention.name,
                        mention.attributes,
                        self.settings,
                        kinds.get(mention.type),
                    )
                )
                decisive = attribute_keys(mention.type, mention.attributes) + place_keys(
                    mention.type, mention.name, mention.attributes
                )
                keys.append(blocking_keys(mention.type, mention.name) + decisive)
                lookups.append(lookup_keys(mention.type, mention.name) + decisive)
            except EmptyTextError:
                profiles.append(None)
                keys.append(())
                lookups.append(())
        other_types = _other_type_keys(mentions, profiles, context)
        clusters, index = await self._stored_candidates(
            graph, tenant, [*lookups, tuple(key for group in other_types for key in group)]
        )
        batch = _Batch(
            frequencies=frequencies_of([item for item in profiles if item is not None]),
            kinds=kinds,
            weights=dict(context.weights),
        )
        named_elsewhere = _names_of_other_types(mentions, profiles, other_types, index)
        audited_names: set[tuple[_ClusterKey, str]] = set()
        decisions: list[Decision] = []
        groups = 0
        for position, mention_profile in enumerate(profiles):
            best: tuple[_ClusterKey, MatchScore] | None = None
            runner_up: tuple[_ClusterKey, float] | None = None
            if mention_profile is not None:
                best, runner_up = self._best(
                    mention_profile, lookups[position], clusters, index, batch
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
                one_word = len(mention_profile.form.tokens) == 1
                local = None
                if not (one_word and position in named_elsewhere):
                    # "Hadley" where the town Hadley is also named is the town, not a short
                    # form of "Cllr Ruth Hadley" (ADR 0036).
                    local = self._only_fit(
                        mention_profile,
                        lookups[position],
                        mentions[position].source_id,
                        clusters,
                        index,
                        batch,
                    )
                if local is not None:
                    best, outcome, named_only, short_form = local, "merge", True, True
                    rule = SHORT_FORM_RULE
                elif self._tenant_short_forms and not one_word:
                    # "T. Veil", "Tom Veil" or "Halvard Maritime" in another document: a
                    # short form of two words or more joins the one entity of the tenant it
                    # fits. One word ("Veil") stays with its own document (ADR 0027).
                    anywhere = self._only_fit(
                        mention_profile, lookups[position], None, clusters, index, batch
                    )
                    if anywhere is not None:
                        best, outcome, named_only, short_form = anywhere, "merge", True, True
                        rule = TENANT_SHORT_FORM_RULE
            if (
                best is not None
                and outcome == "merge"
                and not named_only
                and runner_up is not None
                and runner_up[1] >= self.settings.merge_threshold
                and best[1].weight - runner_up[1] < self._ambiguity_margin
                and not self._alike(clusters[best[0]], clusters[runner_up[0]], batch)
            ):
                # Two different entities fit almost equally well ("R. Okafor": Rufus or
                # Rhoda?): do not guess; keep the mention apart and name the better one for
                # review. Two that fit each other as well (two spellings of one company not
                # merged yet) are no reason to hold back.
                outcome = "possible"
            if best is not None and outcome == "merge":
                cluster_key, score = best
                cluster = clusters[cluster_key]
                audited = cluster.entity_id is not None and _judged(score)
                if audited and mention_profile is not None:
                    # A merge is recorded once: the name joining an entity that already
                    # holds it (an earlier merge, or earlier in this batch) adds evidence.
                    spelled = mention_profile.form.normalised
                    known = f"{mentions[position].type}|n:{spelled}"
                    stored = cluster.entity
                    if (cluster_key, spelled) in audited_names or (
                        stored is not None and known in stored.blocking_keys
                    ):
                        audited = False
                    audited_names.add((cluster_key, spelled))
                decisions.append(
                    Decision(
                        mention_index=position,
                        entity_id=cluster.entity_id,
                        group=cluster.group,
                        rule=rule,
                        score=round(score.weight, 3),
                        explanation=self._explain(score, cluster, batch),
                        audited=audited,
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
                    explanation = self._explain(best[1], candidate, batch)
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
                        entity_id=target,
                        group=-1,
                        stored=entities[target],
                        entity=entities[target],
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
        batch: _Batch,
    ) -> tuple[tuple[_ClusterKey, MatchScore] | None, tuple[_ClusterKey, float] | None]:
        """The best-scoring candidate cluster and the runner-up with its weight."""
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
        runner_up: tuple[_ClusterKey, float] | None = None
        for cluster_key in ranked[: self._max_candidates]:
            score = self._cluster_score(mention, clusters[cluster_key], batch)
            # Strictly greater: on a tie the cluster sharing more keys (then the smaller key)
            # keeps its place.
            if best is None or score.weight > best[1].weight:
                if best is not None and (runner_up is None or best[1].weight > runner_up[1]):
                    runner_up = (best[0], best[1].weight)
                best = (cluster_key, score)
            elif runner_up is None or score.weight > runner_up[1]:
                runner_up = (cluster_key, score.weight)
        return best, runner_up

    def _alike(self, left: _Cluster, right: _Cluster, batch: _Batch) -> bool:
        """Whether two clusters' first members would merge with each other."""
        if not left.members or not right.members:
            return False
        first = left.members[0]
        score = score_pair(
            first, right.members[0], batch.frequencies, batch.weights.get(first.type)
        )
        return not score.conflicting and score.weight >= self.settings.merge_threshold

    def _only_fit(
        self,
        mention: Profile,
        keys: tuple[str, ...],
        source: SourceId | None,
        clusters: dict[_ClusterKey, _Cluster],
        index: dict[str, list[_ClusterKey]],
        batch: _Batch,
    ) -> tuple[_ClusterKey, MatchScore] | None:
        """The one cluster whose name ``mention`` is a short form of, among those of
        ``source`` in this batch, or (``source`` is ``None``) among every candidate the keys
        found, stored or new. Tenant-wide, a broad key (more than ``max_bucket`` clusters,
        of which only the first were read) means the candidates are not all known, so
        nothing fits.

        A short form says no more than the name it stands for: "Northwind Holdings" is not
        a short form of "Northwind Corporation" (a word the other lacks), and "Brennock" is
        not one of "Brennock Storage Pilot" (named after the place; :data:`NAMED_AFTER_WORDS`).
        """
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
                score = self._cluster_score(mention, cluster, batch)
                if (
                    score.compatible
                    and score.evidence[0].level in _SAME_DOCUMENT_LEVELS
                    and all(item.weight >= 0 for item in score.evidence)
                    and _shortens(mention.form, cluster.members[0].form)
                ):
                    fitting.append((cluster_key, score))
        return fitting[0] if len(fitting) == 1 else None

    def _cluster_score(self, mention: Profile, cluster: _Cluster, batch: _Batch) -> MatchScore:
        """The best member's score, unless a member's date or identifier contradicts the
        mention, or the mention's mean weight over the members compared (the weakest left
        out of three or more) falls short of the cohesion bound: then the weakest
        contradicted (or weakest) score, so one good member cannot carry a mention into a
        cluster whose other records say it is someone else.

        Without the bound, "Board of Trustees of Michigan State Univ." joined a cluster of
        eighteen universities' boards, one bridging name after another (NBER assignees)."""
        if cluster.stored is not None:
            stored, cluster.stored = cluster.stored, None
            with contextlib.suppress(EmptyTextError):  # a name of no letters: no profile
                cluster.members.insert(
                    0,
                    profile(
                        stored.type,
                        stored.name,
                        stored.attributes,
                        self.settings,
                        batch.kinds.get(stored.type),
                    ),
                )
        if not cluster.members:
            return MatchScore(weight=-math.inf, evidence=(), types=(mention.type, ""))
        weights = batch.weights.get(mention.type)
        scores = [
            score_pair(mention, member, batch.frequencies, weights)
            for member in cluster.members[: self._max_members]
        ]
        best = max(scores, key=lambda score: score.weight)
        conflicts = [score for score in scores if score.conflicting]
        if conflicts:
            worst_conflict = min(conflicts, key=lambda score: score.weight)
            if worst_conflict.weight < best.weight:
                return worst_conflict
        if len(scores) > 1 and _trimmed_mean([score.weight for score in scores]) < self._cohesion:
            # The cluster as a whole does not take the mention: average, not single, link.
            return min(scores, key=lambda score: score.weight)
        return best

    def _explain(self, score: MatchScore, cluster: _Cluster, batch: _Batch) -> dict[str, JsonValue]:
        explanation = score.explanation()
        explanation["candidate"] = (
            str(cluster.entity_id) if cluster.entity_id is not None else f"group:{cluster.group}"
        )
        explanation["thresholds"] = {
            "merge": self.settings.merge_threshold,
            "possible": self.settings.possible_threshold,
        }
        learned = batch.weights.get(score.types[0])
        # Which m and u the field weights come from: the tenant's estimate (how many records
        # it learned from, the tenant's size then) or the priors.
        explanation["weights"] = (
            {
                "source": "estimated",
                "records": learned.records,
                "tenant_records": learned.tenant_records,
            }
            if learned is not None
            else {"source": "priors"}
        )
        return explanation


def _trimmed_mean(weights: list[float]) -> float:
    """The mean of ``weights``, leaving out the lowest when there are three or more."""
    if len(weights) >= 3:
        weights = sorted(weights)[1:]
    return sum(weights) / len(weights)


def _estimation_sample(
    entity_type: str, typed: Sequence[Mention], context: ResolutionContext
) -> tuple[Sequence[Mention], Sequence[Entity], list[Entity]]:
    """What an estimate of ``entity_type`` sees: the batch's records and stored entities,
    an even sample of each (at most :data:`SAMPLE` together, half each when both have
    more), then the stored entities that share a blocking key with one of those records
    (at most ``SAMPLE // 2``, evenly spaced among them; for EM's candidate pairs only).

    An even sample of each side alone rarely holds both records of a pair: of FEBRL 4's
    second file, 1,000 records beside 1,000 of the 5,000 stored ones held the original of
    one duplicate in five, and EM learned the name's levels from the rest (ADR 0035).
    """
    if context.sample is None:
        return spread(typed, SAMPLE), [], []
    stored = context.sample(entity_type, SAMPLE // 2)
    chosen = spread(typed, SAMPLE - len(stored))
    if not stored:
        return chosen, stored, []
    wanted: set[str] = set()
    for mention in chosen:
        with contextlib.suppress(EmptyTextError):
            wanted.update(lookup_keys(mention.type, mention.name))
            wanted.update(attribute_keys(mention.type, mention.attributes))
            wanted.update(place_keys(mention.type, mention.name, mention.attributes))
    taken = {entity.id for entity in stored}
    paired = [
        entity
        for entity in context.sample(entity_type, max(context.entities, len(stored)))
        if entity.id not in taken and not wanted.isdisjoint(entity.blocking_keys)
    ]
    return chosen, stored, list(spread(paired, SAMPLE // 2))


def _estimation_keys(form: NameForm) -> list[str]:
    """The name keys that pair records for estimation: the two-sided, specific families."""
    return sorted(key for key in name_keys(form) if key[:2] in ("n:", "s:", "p:", "k:"))


def _shortens(short: NameForm, full: NameForm) -> bool:
    """Whether ``short`` may stand for ``full``: no more words, and not a name of a project,
    report or event of which ``short`` would be the place it is named after."""
    if len(short.tokens) > len(full.tokens):
        return False
    last = full.tokens[-1]
    return not (last in NAMED_AFTER_WORDS and last not in short.tokens)


def _other_type_keys(
    mentions: Sequence[Mention], profiles: Sequence[Profile | None], context: ResolutionContext
) -> list[tuple[str, ...]]:
    """For each one-word passage mention, the exact-name keys of its name under the other
    types the tenant's schema declares: "Hadley" the Person may be Hadley the Location."""
    types = sorted(set(context.kinds) | {mention.type for mention in mentions})
    found: list[tuple[str, ...]] = []
    for mention, item in zip(mentions, profiles, strict=True):
        if mention.chunk_id is None or item is None or len(item.form.tokens) != 1:
            found.append(())
            continue
        found.append(
            tuple(f"{other}|n:{item.form.normalised}" for other in types if other != mention.type)
        )
    return found


def _names_of_other_types(
    mentions: Sequence[Mention],
    profiles: Sequence[Profile | None],
    other_types: Sequence[tuple[str, ...]],
    index: dict[str, list[_ClusterKey]],
) -> set[int]:
    """Positions of one-word passage mentions whose word, spelled the same, names an entity
    of another type: in the same source in this batch, or stored."""
    spelled: dict[tuple[SourceId, str], set[str]] = {}
    for mention, item in zip(mentions, profiles, strict=True):
        if item is not None:
            spelled.setdefault((mention.source_id, item.form.normalised), set()).add(mention.type)
    positions: set[int] = set()
    for position, keys in enumerate(other_types):
        item = profiles[position]
        if not keys or item is None:
            continue
        mention = mentions[position]
        local = spelled.get((mention.source_id, item.form.normalised), set()) - {mention.type}
        if local or any(index.get(key) for key in keys):
            positions.add(position)
    return positions


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
