"""Type votes at ingest: a document's mentions of one name take the type the votes settle.

The rule is :func:`redstring.domain.type_votes.settle_types`; this module gathers its votes:
the document's own (one per passage and type) and the tenant's (its entities of that exact
name under each declared type, read in one batched blocking-key call, each weighing as many
votes as it has mentions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from redstring.domain.blocking import normalise_name
from redstring.domain.errors import EmptyTextError
from redstring.domain.history import TenantHistory
from redstring.domain.ids import TenantId
from redstring.domain.schema import Schema
from redstring.domain.type_votes import settle_types
from redstring.ingest.resolution import Mention, exact_name_key
from redstring.ports.graph_store import GraphStore

_TENANT_READ_LIMIT = 16


async def vote_types(
    graph: GraphStore,
    history: TenantHistory,
    tenant: TenantId,
    schema: Schema,
    mentions: Sequence[Mention],
    positions: Sequence[int],
) -> tuple[list[Mention], int]:
    """``mentions`` with each type settled by the votes, and how many changed type.

    ``positions[i]`` is the passage of ``mentions[i]``: a passage votes once per name and type.
    """
    names: dict[str, str] = {}
    keys: list[str | None] = []
    for mention in mentions:
        try:
            key = normalise_name(mention.name)
        except EmptyTextError:
            key = None
        keys.append(key)
        if key is not None:
            names.setdefault(key, mention.name)
    document: dict[str, list[str]] = {}
    seen: set[tuple[int, str, str]] = set()
    for mention, key, position in zip(mentions, keys, positions, strict=True):
        if key is not None and (position, key, mention.type) not in seen:
            seen.add((position, key, mention.type))
            document.setdefault(key, []).append(mention.type)
    held = await _tenant_votes(graph, history, tenant, schema, names)
    settled = {key: settle_types(types, held.get(key)) for key, types in document.items()}
    changed = 0
    voted: list[Mention] = []
    for mention, key in zip(mentions, keys, strict=True):
        kind = settled.get(key, {}).get(mention.type, mention.type) if key else mention.type
        if kind != mention.type:
            changed += 1
            mention = replace(mention, type=kind)
        voted.append(mention)
    return voted, changed


async def _tenant_votes(
    graph: GraphStore,
    history: TenantHistory,
    tenant: TenantId,
    schema: Schema,
    names: dict[str, str],
) -> dict[str, dict[str, int]]:
    """For each name key, the declared types the tenant holds it under and their mentions."""
    wanted: dict[str, tuple[str, str]] = {}
    for key, name in names.items():
        for spec in schema.entity_types:
            wanted[exact_name_key(spec.name, name)] = (key, spec.name)
    if not wanted:
        return {}
    found = await graph.find_by_blocking_keys(
        tenant, list(wanted), limit_per_key=_TENANT_READ_LIMIT
    )
    votes: dict[str, dict[str, int]] = {}
    for block_key, entities in found.items():
        key, kind = wanted[block_key]
        for entity in entities:
            if entity.type != kind:
                continue
            known = history.entities.get(entity.id)
            weight = len(known.items) if known is not None else 1
            bucket = votes.setdefault(key, {})
            bucket[kind] = bucket.get(kind, 0) + max(1, weight)
    return votes
