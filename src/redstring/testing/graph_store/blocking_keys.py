"""The ``BlockingKeyIndex`` cases: the candidate index stored with each entity.

Composed into :class:`redstring.testing.graph_store.GraphStoreCompliance`; the rules are
the ones ``redstring.ports.graph_store.BlockingKeyIndex`` states.
"""

from __future__ import annotations

from hypothesis import given, settings

from redstring.domain.blocking import blocking_keys
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.models import Entity
from redstring.domain.portable import MAX_BLOCKING_KEY_LENGTH
from redstring.ports.graph_store import MAX_LIMIT, GraphStore
from redstring.testing import strategies as gen
from redstring.testing.graph_store._support import (
    OTHER,
    STRANGER,
    TENANT,
    GraphCases,
    _by_id,
    _deface_entities,
    _entity,
    _entity_writes,
    _expect,
    _ids_in_text_order,
    _pool,
    _raises,
    _snapshot,
)
from redstring.testing.settings import compliance_settings


class BlockingKeyIndexCases(GraphCases):
    """What every ``BlockingKeyIndex`` does, checked through a whole GraphStore."""

    # -- blocking keys -------------------------------------------------------------------------

    async def test_find_by_blocking_key_returns_the_entities_indexed_under_it(
        self, store: GraphStore
    ) -> None:
        """Entities stored with a key come back for that key, ascending by id, and no others."""
        ids = _ids_in_text_order(3)
        shared = "Person|p:L142"
        first = _entity("Ada", entity_id=ids[2], keys=(shared, "Person|n:ada"))
        second = _entity("Adah", entity_id=ids[0], keys=(shared,))
        other = _entity("Grace", entity_id=ids[1], keys=("Person|n:grace",))
        await store.upsert_entities(TENANT, [first, other, second])
        _expect(
            await store.find_by_blocking_key(TENANT, shared),
            [second, first],
            f"find_by_blocking_key({shared!r})",
        )
        _expect(
            await store.find_by_blocking_key(TENANT, "Person|n:nobody"),
            [],
            "find_by_blocking_key of a key no entity carries",
        )

    async def test_re_upserting_an_entity_replaces_its_blocking_keys(
        self, store: GraphStore
    ) -> None:
        """Keys belong to the entity's latest version: dropped keys stop finding it."""
        before = _entity("Ada", keys=("k:old", "k:kept"))
        after = _entity("Ada", entity_id=before.id, keys=("k:kept", "k:new"))
        await store.upsert_entity(TENANT, before)
        await store.upsert_entity(TENANT, after)
        _expect(
            await store.find_by_blocking_key(TENANT, "k:old"),
            [],
            "a key the entity no longer carries after its re-upsert",
        )
        _expect(await store.find_by_blocking_key(TENANT, "k:kept"), [after], "a kept key")
        _expect(await store.find_by_blocking_key(TENANT, "k:new"), [after], "a newly added key")

    async def test_upsert_entities_replaces_blocking_keys_too(self, store: GraphStore) -> None:
        """The batch write re-indexes keys exactly as the single write does."""
        before = _entity("Ada", keys=("k:old",))
        await store.upsert_entities(TENANT, [before])
        after = _entity("Ada", entity_id=before.id, keys=("k:new",))
        await store.upsert_entities(TENANT, [after])
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:old", "k:new"]),
            {"k:new": [after]},
            "find_by_blocking_keys after upsert_entities moved the entity to a new key",
        )

    async def test_find_by_blocking_keys_groups_by_key_and_omits_empty_keys(
        self, store: GraphStore
    ) -> None:
        """One entry per key holding an entity, each ascending by id; empty keys are absent."""
        ids = _ids_in_text_order(3)
        both = _entity("Ada", entity_id=ids[2], keys=("k:a", "k:b"))
        only_a = _entity("Adah", entity_id=ids[0], keys=("k:a",))
        only_b = _entity("Ava", entity_id=ids[1], keys=("k:b",))
        await store.upsert_entities(TENANT, [both, only_a, only_b])
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:a", "k:b", "k:none"]),
            {"k:a": [only_a, both], "k:b": [only_b, both]},
            "find_by_blocking_keys(['k:a', 'k:b', 'k:none'])",
        )

    async def test_a_key_listed_twice_is_indexed_once_and_every_later_write_works(
        self, store: GraphStore
    ) -> None:
        """An entity listing a key twice is held with its keys sorted and each once (ADR 0003,
        ADR 0028), also when the repeat skipped validation (``model_copy(update=...)``):
        every key read lists it once, and re-upserting, re-keying and deleting it work after.
        On failure check that key index entries are written and removed once per distinct
        key (the in-memory store raised ``KeyError`` on the second removal; PostgreSQL and
        Neo4j listed the entity twice under the key).
        """
        ids = _ids_in_text_order(2)
        built = _entity("Ada", entity_id=ids[0], keys=("k:b", "k:a", "k:b"))
        plain = _entity("Adah", entity_id=ids[1], keys=("k:a", "k:b"))
        smuggled = plain.model_copy(update={"blocking_keys": ("k:b", "k:a", "k:b", "k:b")})
        for entity in (built, smuggled, smuggled):
            await store.upsert_entity(TENANT, entity)
        await store.upsert_entities(TENANT, [smuggled, smuggled])
        _expect(await store.get_entity(TENANT, plain.id), plain, "the entity with a repeated key")
        for key in ("k:a", "k:b"):
            _expect(
                await store.find_by_blocking_key(TENANT, key),
                [built, plain],
                f"find_by_blocking_key({key!r}), each entity once",
            )
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:b", "k:b", "k:a"], limit_per_key=2),
            {"k:a": [built, plain], "k:b": [built, plain]},
            "find_by_blocking_keys with a key asked twice",
        )
        rekeyed = plain.model_copy(update={"blocking_keys": ("k:c", "k:c")})
        await store.upsert_entity(TENANT, rekeyed)
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:a", "k:b", "k:c"]),
            {
                "k:a": [built],
                "k:b": [built],
                "k:c": [plain.model_copy(update={"blocking_keys": ("k:c",)})],
            },
            "every key after re-keying the entity whose keys repeated",
        )
        _expect(await store.delete_entities(TENANT, [plain.id, plain.id]), 1, "delete, asked twice")
        await store.upsert_entity(TENANT, smuggled)
        _expect(await store.delete_by_tenant(TENANT), 2, "delete_by_tenant")
        _expect(await store.find_by_blocking_keys(TENANT, ["k:a", "k:b", "k:c"]), {}, "no key")
        await store.upsert_entity(TENANT, smuggled)
        _expect(await store.find_by_blocking_key(TENANT, "k:b"), [plain], "written again")

    # -- tenancy: every read -------------------------------------------------------------------

    async def test_find_by_blocking_key_never_crosses_tenants(self, store: GraphStore) -> None:
        """A key shared by two tenants finds each tenant's own entities only."""
        mine, theirs = await self._twins(store)
        _expect(await store.find_by_blocking_key(TENANT, "k:twin"), [mine], "under TENANT")
        _expect(await store.find_by_blocking_key(OTHER, "k:twin"), [theirs], "under OTHER")
        _expect(await store.find_by_blocking_key(STRANGER, "k:twin"), [], "under STRANGER")

    async def test_find_by_blocking_keys_never_crosses_tenants(self, store: GraphStore) -> None:
        """The batched key read is scoped like the single one, key by key."""
        mine, theirs = await self._twins(store)
        only_theirs = _entity("Only theirs", keys=("k:theirs",))
        await store.upsert_entity(OTHER, only_theirs)
        keys = ["k:twin", "k:theirs"]
        _expect(
            await store.find_by_blocking_keys(TENANT, keys),
            {"k:twin": [mine]},
            "find_by_blocking_keys under TENANT",
        )
        _expect(
            await store.find_by_blocking_keys(OTHER, keys),
            {"k:twin": [theirs], "k:theirs": [only_theirs]},
            "find_by_blocking_keys under OTHER",
        )
        _expect(await store.find_by_blocking_keys(STRANGER, keys), {}, "under STRANGER")

    # -- copies: every read hands out objects the caller may change ----------------------------

    async def test_find_by_blocking_key_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned list or its entities changes neither them nor the index."""
        written = [_entity("Ada", keys=("k:shared",)), _entity("Adah", keys=("k:shared",))]
        await store.upsert_entities(TENANT, written)
        expected = _by_id(_snapshot(entity) for entity in written)
        _deface_entities(await store.find_by_blocking_key(TENANT, "k:shared"))
        _expect(
            await store.find_by_blocking_key(TENANT, "k:shared"),
            expected,
            "find_by_blocking_key after defacing",
        )
        _expect(
            await store.find_by_blocking_key(TENANT, "defaced"), [], "the key a defacer assigned"
        )

    async def test_find_by_blocking_keys_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned mapping, its lists or its entities changes nothing stored."""
        ada = _entity("Ada", keys=("k:a", "k:b"))
        await store.upsert_entity(TENANT, ada)
        expected = {"k:a": [_snapshot(ada)], "k:b": [_snapshot(ada)]}
        found = await store.find_by_blocking_keys(TENANT, ["k:a", "k:b"])
        for entities in found.values():
            _deface_entities(entities)
        found["k:intruder"] = [_entity("Intruder")]
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:a", "k:b", "k:intruder"]),
            expected,
            "find_by_blocking_keys after defacing",
        )

    # -- properties ----------------------------------------------------------------------------

    @settings(compliance_settings())
    @given(writes=_pool(4).flatmap(_entity_writes))
    async def test_blocking_key_reads_follow_the_latest_keys(self, writes: list[Entity]) -> None:
        """Each key finds exactly the entities whose latest version carries it, by id."""
        latest = {entity.id: entity for entity in writes}
        expected = {
            key: _by_id(entity for entity in latest.values() if key in entity.blocking_keys)
            for key in gen.BLOCKING_KEY_VOCABULARY
        }
        async with self.fresh_store() as store:
            for entity in writes:
                await store.upsert_entity(TENANT, entity)
            for key, entities in expected.items():
                _expect(
                    await store.find_by_blocking_key(TENANT, key),
                    entities,
                    f"find_by_blocking_key({key!r}) after the writes",
                )
            _expect(
                await store.find_by_blocking_keys(TENANT, gen.BLOCKING_KEY_VOCABULARY),
                {key: entities for key, entities in expected.items() if entities},
                "find_by_blocking_keys(every key) after the writes",
            )

    async def test_keys_of_a_very_long_name_are_stored_and_found(self, store: GraphStore) -> None:
        """``blocking_keys()`` of a 9,000-character name (past Neo4j's 8,146-byte index
        limit) and a key of ``MAX_BLOCKING_KEY_LENGTH`` four-byte characters work everywhere."""
        name = " ".join(["Ada"] * 3000)
        long_named = _entity(name, keys=blocking_keys("Person", name))
        widest = _entity("Grace", keys=["𝄞" * MAX_BLOCKING_KEY_LENGTH])
        await store.upsert_entities(TENANT, [long_named, widest])
        found = await store.find_by_blocking_keys(
            TENANT, [*long_named.blocking_keys, *widest.blocking_keys]
        )
        _expect(
            found,
            {key: [long_named] for key in long_named.blocking_keys}
            | {key: [widest] for key in widest.blocking_keys},
            "find_by_blocking_keys of the longest keys",
        )

    async def test_find_by_blocking_keys_limit_keeps_the_smallest_ids_of_each_key(
        self, store: GraphStore
    ) -> None:
        """``limit_per_key`` keeps each key's first ids by text, counted per key, not overall;
        ``None`` keeps them all (ADR 0025)."""
        ids = _ids_in_text_order(5)
        wide = [_entity(f"E{rank}", entity_id=ids[rank], keys=("k:wide",)) for rank in range(3)]
        both = [
            _entity(f"B{rank}", entity_id=ids[rank], keys=("k:wide", "k:narrow")) for rank in (3, 4)
        ]
        # Written largest id first, so insertion order is not the answer.
        await store.upsert_entities(TENANT, [*reversed(both), *reversed(wide)])
        everything = {"k:wide": [*wide, *both], "k:narrow": both}
        keys = ["k:wide", "k:narrow", "k:none"]
        for limit, expected in (
            (1, {"k:wide": [wide[0]], "k:narrow": [both[0]]}),
            (2, {"k:wide": wide[:2], "k:narrow": both}),
            (4, {"k:wide": [*wide, both[0]], "k:narrow": both}),
            (5, everything),
            (MAX_LIMIT, everything),
            (None, everything),
        ):
            _expect(
                await store.find_by_blocking_keys(TENANT, keys, limit_per_key=limit),
                expected,
                f"find_by_blocking_keys({keys!r}, limit_per_key={limit})",
            )
        _expect(
            await store.find_by_blocking_key(TENANT, "k:wide"),
            everything["k:wide"],
            "find_by_blocking_key, which has no limit",
        )

    async def test_find_by_blocking_keys_refuses_a_limit_outside_one_to_max_limit(
        self, store: GraphStore
    ) -> None:
        """A ``limit_per_key`` of zero, below zero or past ``MAX_LIMIT`` raises
        ``InvalidArgumentError``, with or without keys to read (ADR 0025)."""
        await store.upsert_entity(TENANT, _entity("Ada", keys=("k:a",)))
        for limit in (0, -1, MAX_LIMIT + 1, 2**63):
            for keys in (["k:a"], []):
                with _raises(
                    InvalidArgumentError,
                    f"find_by_blocking_keys({keys!r}, limit_per_key={limit})",
                ):
                    await store.find_by_blocking_keys(TENANT, keys, limit_per_key=limit)
