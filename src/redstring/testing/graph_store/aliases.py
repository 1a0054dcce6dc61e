"""The ``AliasStore`` cases: aliases point an id at a canonical entity, resolve, remove.

Composed into :class:`redstring.testing.graph_store.GraphStoreCompliance`; the rules are
the ones ``redstring.ports.graph_store.AliasStore`` states.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.ids import EntityId, id_text
from redstring.ports.errors import MissingEntityError
from redstring.ports.graph_store import GraphStore
from redstring.testing import strategies as gen
from redstring.testing.graph_store._support import (
    OTHER,
    STRANGER,
    TENANT,
    GraphCases,
    _alias,
    _deface_alias,
    _edge,
    _entity,
    _entity_id,
    _expect,
    _expect_missing,
    _ids_in_text_order,
    _pool,
    _raises,
)
from redstring.testing.settings import compliance_settings


class AliasStoreCases(GraphCases):
    """What every ``AliasStore`` does, checked through a whole GraphStore."""

    # -- aliases -------------------------------------------------------------------------------

    async def test_resolve_entity_ids_maps_entities_aliases_and_omits_unknown_ids(
        self, store: GraphStore
    ) -> None:
        """An entity id maps to itself, an alias to its canonical id, an unknown id nowhere."""
        canonical, other = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [canonical, other])
        alias_id, unknown = _entity_id(), _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        _expect(
            await store.resolve_entity_ids(TENANT, [canonical.id, other.id, alias_id, unknown]),
            {canonical.id: canonical.id, other.id: other.id, alias_id: canonical.id},
            "resolve_entity_ids([entity, entity, alias, unknown])",
        )

    async def test_an_alias_id_is_not_an_entity(self, store: GraphStore) -> None:
        """An alias resolves, but is not readable as an entity and cannot carry an edge."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        _expect(await store.get_entity(TENANT, alias_id), None, "get_entity of an alias id")
        when = "upsert_relationship to an alias id (an alias is not a live entity)"
        with _raises(MissingEntityError, when) as caught:
            await store.upsert_relationship(TENANT, _edge(canonical.id, alias_id))
        _expect_missing(caught, alias_id, when)

    async def test_upsert_alias_of_an_absent_canonical_raises(self, store: GraphStore) -> None:
        """No dangling aliases: an absent canonical entity raises MissingEntityError."""
        absent, alias_id = _entity_id(), _entity_id()
        when = "upsert_alias to a canonical id the tenant does not hold"
        with _raises(MissingEntityError, when) as caught:
            await store.upsert_alias(TENANT, _alias(alias_id, absent))
        _expect_missing(caught, absent, when)
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id]),
            {},
            "resolve_entity_ids of the alias whose upsert failed (nothing written)",
        )

    async def test_upsert_alias_to_an_alias_raises(self, store: GraphStore) -> None:
        """The canonical id must be a live entity; another alias is not one."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        first_alias, second_alias = _entity_id(), _entity_id()
        await store.upsert_alias(TENANT, _alias(first_alias, canonical.id))
        with _raises(MissingEntityError, "upsert_alias whose canonical id is itself an alias"):
            await store.upsert_alias(TENANT, _alias(second_alias, first_alias))

    async def test_upsert_alias_to_itself_raises(self, store: GraphStore) -> None:
        """An alias naming itself as canonical is a ``ValueError``."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        with _raises(ValueError, "upsert_alias(alias_id == canonical_id)"):
            await store.upsert_alias(TENANT, _alias(ada.id, ada.id))

    async def test_upsert_alias_whose_id_is_a_live_entity_raises(self, store: GraphStore) -> None:
        """A live entity cannot become an alias: ``ValueError``, and the entity is untouched."""
        canonical, live = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [canonical, live])
        with _raises(ValueError, "upsert_alias whose alias id is a live entity"):
            await store.upsert_alias(TENANT, _alias(live.id, canonical.id))
        _expect(
            await store.resolve_entity_ids(TENANT, [live.id]),
            {live.id: live.id},
            "resolve_entity_ids of the live entity the failed alias named",
        )

    async def test_upsert_entity_whose_id_is_an_alias_raises(self, store: GraphStore) -> None:
        """An alias id cannot become an entity: ``ValueError``, and the alias still resolves."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        with _raises(ValueError, "upsert_entity under an id that is an alias"):
            await store.upsert_entity(TENANT, _entity("Impostor", entity_id=alias_id))
        _expect(await store.get_entity(TENANT, alias_id), None, "get_entity of the alias id")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id]),
            {alias_id: canonical.id},
            "resolve_entity_ids of the alias after the refused upsert_entity",
        )

    async def test_upsert_alias_is_last_write_wins(self, store: GraphStore) -> None:
        """Re-upserting an alias re-points it: it leaves its old canonical's alias list."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, ada.id, "first"))
        moved = _alias(alias_id, grace.id, "second")
        await store.upsert_alias(TENANT, moved)
        _expect(await store.find_aliases(TENANT, ada.id), [], "aliases of the old canonical")
        _expect(await store.find_aliases(TENANT, grace.id), [moved], "aliases of the new one")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id]),
            {alias_id: grace.id},
            "resolve_entity_ids of the re-pointed alias",
        )

    async def test_an_alias_written_twice_is_one_alias(self, store: GraphStore) -> None:
        """Writing the same alias twice (a replayed merge) leaves one alias: listed once,
        resolved once however often it is asked for, removed by one ``remove_alias``, and
        gone with its canonical. On failure check that the canonical's alias index holds an
        alias id once, not once per write.
        """
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        alias = _alias(_entity_id(), ada.id)
        for _ in range(3):
            await store.upsert_alias(TENANT, alias)
        _expect(await store.find_aliases(TENANT, ada.id), [alias], "find_aliases after 3 writes")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias.alias_id, ada.id, alias.alias_id]),
            {alias.alias_id: ada.id, ada.id: ada.id},
            "resolve_entity_ids with the alias asked twice",
        )
        _expect(await store.remove_alias(TENANT, alias.alias_id), True, "remove_alias")
        _expect(await store.find_aliases(TENANT, ada.id), [], "find_aliases after one removal")
        _expect(await store.remove_alias(TENANT, alias.alias_id), False, "remove_alias, again")
        moved = _alias(alias.alias_id, grace.id)
        for written in (alias, alias, moved, moved):
            await store.upsert_alias(TENANT, written)
        _expect(await store.find_aliases(TENANT, ada.id), [], "the old canonical's aliases")
        _expect(await store.find_aliases(TENANT, grace.id), [moved], "the new canonical's")
        _expect(await store.delete_entities(TENANT, [grace.id]), 1, "deleting the canonical")
        _expect(await store.resolve_entity_ids(TENANT, [alias.alias_id]), {}, "the alias after")
        _expect(await store.find_aliases(TENANT, grace.id), [], "aliases of the deleted one")

    async def test_find_aliases_lists_the_aliases_of_one_canonical_by_alias_id(
        self, store: GraphStore
    ) -> None:
        """Aliases pointing at the canonical id, ascending by alias id text, and no others."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        alias_ids = _ids_in_text_order(3)
        aliases = [_alias(alias_id, ada.id, f"name {n}") for n, alias_id in enumerate(alias_ids)]
        for alias in reversed(aliases):
            await store.upsert_alias(TENANT, alias)
        await store.upsert_alias(TENANT, _alias(_entity_id(), grace.id))
        _expect(await store.find_aliases(TENANT, ada.id), aliases, "find_aliases(ada)")
        _expect(await store.find_aliases(TENANT, _entity_id()), [], "find_aliases of an unknown id")

    async def test_remove_alias_reports_whether_there_was_one(self, store: GraphStore) -> None:
        """``True`` then ``False``; the id stops resolving and may then become an entity."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        _expect(await store.remove_alias(TENANT, alias_id), True, "remove_alias of an alias")
        _expect(await store.remove_alias(TENANT, alias_id), False, "remove_alias, again")
        _expect(await store.resolve_entity_ids(TENANT, [alias_id]), {}, "the removed alias")
        _expect(await store.find_aliases(TENANT, canonical.id), [], "aliases after removal")
        reborn = _entity("Reborn", entity_id=alias_id)
        await store.upsert_entity(TENANT, reborn)
        _expect(await store.get_entity(TENANT, alias_id), reborn, "the former alias id as entity")

    async def test_remove_alias_of_an_entity_id_removes_nothing(self, store: GraphStore) -> None:
        """Removing an "alias" that is really an entity id returns ``False`` and keeps it."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        _expect(await store.remove_alias(TENANT, ada.id), False, "remove_alias of an entity id")
        _expect(await store.get_entity(TENANT, ada.id), ada, "the entity after remove_alias")

    # -- tenancy: writes -----------------------------------------------------------------------

    async def test_upsert_alias_checks_the_canonical_in_its_own_tenant(
        self, store: GraphStore
    ) -> None:
        """A canonical entity held by another tenant does not count."""
        ada = _entity("Ada")
        await store.upsert_entity(OTHER, ada)
        with _raises(MissingEntityError, "upsert_alias whose canonical is OTHER's entity"):
            await store.upsert_alias(TENANT, _alias(_entity_id(), ada.id))

    # -- tenancy: every read -------------------------------------------------------------------

    async def test_find_aliases_never_crosses_tenants(self, store: GraphStore) -> None:
        """Aliases of a shared canonical id are listed per tenant."""
        mine, _ = await self._twins(store)
        my_alias, their_alias = _alias(_entity_id(), mine.id), _alias(_entity_id(), mine.id)
        await store.upsert_alias(TENANT, my_alias)
        await store.upsert_alias(OTHER, their_alias)
        _expect(await store.find_aliases(TENANT, mine.id), [my_alias], "find_aliases, TENANT")
        _expect(await store.find_aliases(OTHER, mine.id), [their_alias], "find_aliases, OTHER")
        _expect(await store.find_aliases(STRANGER, mine.id), [], "find_aliases under STRANGER")

    async def test_resolve_entity_ids_never_crosses_tenants(self, store: GraphStore) -> None:
        """One id can be an entity in one tenant, an alias in another and nothing in a third."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        canonical = _entity("Canonical")
        await store.upsert_entity(OTHER, canonical)
        await store.upsert_alias(OTHER, _alias(ada.id, canonical.id))
        _expect(
            await store.resolve_entity_ids(TENANT, [ada.id]),
            {ada.id: ada.id},
            "resolve_entity_ids under TENANT (an entity there)",
        )
        _expect(
            await store.resolve_entity_ids(OTHER, [ada.id]),
            {ada.id: canonical.id},
            "resolve_entity_ids under OTHER (an alias there)",
        )
        _expect(await store.resolve_entity_ids(STRANGER, [ada.id]), {}, "under STRANGER")

    # -- copies: every read hands out objects the caller may change ----------------------------

    async def test_find_aliases_returns_copies(self, store: GraphStore) -> None:
        """Defacing a returned alias (re-pointing it) changes nothing stored."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        alias = _alias(_entity_id(), ada.id)
        await store.upsert_alias(TENANT, alias)
        expected = [alias.model_copy(deep=True)]
        found = await store.find_aliases(TENANT, ada.id)
        for each in found:
            _deface_alias(each)
        found.append(_alias(_entity_id(), ada.id))
        _expect(await store.find_aliases(TENANT, ada.id), expected, "find_aliases, defaced")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias.alias_id]),
            {alias.alias_id: ada.id},
            "resolve_entity_ids of the alias a caller re-pointed on its copy",
        )

    async def test_resolve_entity_ids_returns_copies(self, store: GraphStore) -> None:
        """Changing the returned mapping changes nothing a later resolution sees."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        resolved = await store.resolve_entity_ids(TENANT, [ada.id])
        resolved[ada.id] = _entity_id()
        resolved[_entity_id()] = ada.id
        _expect(
            await store.resolve_entity_ids(TENANT, [ada.id]),
            {ada.id: ada.id},
            "resolve_entity_ids after a caller changed the previous result",
        )

    # -- copies: every write keeps nothing of the caller's -------------------------------------

    async def test_upsert_alias_keeps_no_reference_to_the_callers_object(
        self, store: GraphStore
    ) -> None:
        """Re-pointing the caller's alias object after the write changes nothing stored."""
        ada = _entity("Ada")
        await store.upsert_entity(TENANT, ada)
        alias = _alias(_entity_id(), ada.id)
        expected = alias.model_copy(deep=True)
        await store.upsert_alias(TENANT, alias)
        _deface_alias(alias)
        _expect(await store.find_aliases(TENANT, ada.id), [expected], "find_aliases, defaced")

    # -- properties ----------------------------------------------------------------------------

    @settings(compliance_settings())
    @given(
        pool=_pool(4),
        alias_ids=st.lists(gen.entity_ids(), max_size=4, unique=True),
        unknown=st.lists(gen.entity_ids(), max_size=2),
        targets=st.lists(st.integers(min_value=0, max_value=3), min_size=8, max_size=8),
    )
    async def test_aliases_resolve_to_their_latest_canonical(
        self,
        pool: list[EntityId],
        alias_ids: list[EntityId],
        unknown: list[EntityId],
        targets: list[int],
    ) -> None:
        """Entities resolve to themselves, aliases to their last canonical, others nowhere."""
        aliases = [entity_id for entity_id in alias_ids if entity_id not in pool]
        # Each alias is written twice, so the second (possibly re-pointed) write must win.
        writes = [
            _alias(alias_id, pool[targets[2 * n + replay] % len(pool)], f"name {replay}")
            for replay in range(2)
            for n, alias_id in enumerate(aliases)
        ]
        latest = {alias.alias_id: alias for alias in writes}
        ghosts = [entity_id for entity_id in unknown if entity_id not in pool + aliases]
        async with self.fresh_store() as store:
            await store.upsert_entities(TENANT, [_entity(entity_id=i) for i in pool])
            for alias in writes:
                await store.upsert_alias(TENANT, alias)
            _expect(
                await store.resolve_entity_ids(TENANT, [*pool, *aliases, *ghosts]),
                {
                    **{entity_id: entity_id for entity_id in pool},
                    **{alias.alias_id: alias.canonical_id for alias in latest.values()},
                },
                "resolve_entity_ids(entities + aliases + unknown ids)",
            )
            for canonical in pool:
                _expect(
                    await store.find_aliases(TENANT, canonical),
                    sorted(
                        (alias for alias in latest.values() if alias.canonical_id == canonical),
                        key=lambda alias: id_text(alias.alias_id),
                    ),
                    f"find_aliases({canonical})",
                )

    async def test_upsert_alias_checks_the_canonical_before_the_alias_id(
        self, store: GraphStore
    ) -> None:
        """A live alias id *and* an absent canonical: ``MissingEntityError`` on every adapter."""
        live = _entity("Grace")
        await store.upsert_entity(TENANT, live)
        absent = _entity_id()
        when = "upsert_alias whose alias id is live and whose canonical is absent"
        with _raises(MissingEntityError, when) as caught:
            await store.upsert_alias(TENANT, _alias(live.id, absent))
        _expect_missing(caught, absent, when)
