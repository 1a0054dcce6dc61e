"""The ``EntityStore`` cases: entities written, read back, paged and deleted.

Composed into :class:`redstring.testing.graph_store.GraphStoreCompliance`; the rules are
the ones ``redstring.ports.graph_store.EntityStore`` states.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, SourceId, id_text
from redstring.domain.models import Entity, Provenance
from redstring.domain.portable import check_json
from redstring.ports.graph_store import MAX_LIMIT, GraphStore
from redstring.testing import strategies as gen
from redstring.testing.graph_store._support import (
    OTHER,
    STRANGER,
    TENANT,
    GraphCases,
    _alias,
    _by_id,
    _deface_entities,
    _deface_entity,
    _deface_entity_map,
    _depths,
    _edge,
    _edges_by_id,
    _entity,
    _entity_id,
    _entity_writes,
    _expect,
    _ids_in_text_order,
    _pool,
    _raises,
    _snapshot,
)
from redstring.testing.settings import compliance_settings


class EntityStoreCases(GraphCases):
    """What every ``EntityStore`` does, checked through a whole GraphStore."""

    # -- entities ------------------------------------------------------------------------------

    async def test_get_entity_reads_back_what_was_upserted(self, store: GraphStore) -> None:
        """Read-your-writes: once upsert_entity returns, get_entity sees an equal entity."""
        ada = _entity(keys=("Person|n:ada lovelace",))
        await store.upsert_entity(TENANT, ada)
        _expect(await store.get_entity(TENANT, ada.id), ada, "get_entity after upsert_entity")

    async def test_provenance_naming_a_chunk_twice_reads_back_naming_it_once(
        self, store: GraphStore
    ) -> None:
        """An entity's evidence names each chunk once, first position kept (ADR 0028), from
        every read, also when the repeat skipped validation (``model_copy(update=...)``); a
        re-upsert replaces it and a delete removes it. On failure check that provenance is
        stored (or read back) as validation would hold it.
        """
        first, second = ChunkId("c-2"), ChunkId("c-1")
        evidence = Provenance(source_id=SourceId("memo.md"), chunk_ids=(first, second))
        held = _entity("Ada", keys=("k:ada",)).model_copy(update={"provenance": evidence})
        repeated = evidence.model_copy(update={"chunk_ids": (first, second, first, first)})
        smuggled = held.model_copy(update={"provenance": repeated})
        for _ in range(2):
            await store.upsert_entity(TENANT, smuggled)
            await store.upsert_entities(TENANT, [smuggled])
            _expect(await store.get_entity(TENANT, held.id), held, "get_entity")
            _expect(await store.get_entities(TENANT, [held.id]), {held.id: held}, "get_entities")
            _expect(await store.find_entities(TENANT), [held], "find_entities")
            _expect(await store.find_by_blocking_key(TENANT, "k:ada"), [held], "the key read")
        again = held.model_copy(update={"provenance": Provenance(chunk_ids=(second, second))})
        await store.upsert_entity(TENANT, again)
        _expect(
            await store.get_entity(TENANT, held.id),
            held.model_copy(update={"provenance": Provenance(chunk_ids=(second,))}),
            "get_entity after a re-upsert with other evidence",
        )
        _expect(await store.delete_entities(TENANT, [held.id]), 1, "delete_entities")
        _expect(await store.get_entity(TENANT, held.id), None, "get_entity after the delete")

    async def test_get_entity_of_an_unknown_id_is_none(self, store: GraphStore) -> None:
        """An id the tenant does not hold reads as ``None`` rather than raising."""
        await store.upsert_entity(TENANT, _entity())
        _expect(await store.get_entity(TENANT, _entity_id()), None, "get_entity of unknown id")

    async def test_upsert_entity_is_last_write_wins(self, store: GraphStore) -> None:
        """Upserting an id again replaces the entity: one row, holding the later value."""
        first = _entity("Ada Lovelace", type="Person")
        later = _entity("Augusta Ada King", entity_id=first.id, type="Concept")
        await store.upsert_entity(TENANT, first)
        await store.upsert_entity(TENANT, later)
        _expect(await store.get_entity(TENANT, first.id), later, "get_entity after two upserts")
        _expect(
            await store.find_entities(TENANT),
            [later],
            "find_entities after upserting one id twice (one row, the later value)",
        )
        _expect(
            await store.find_entities(TENANT, entity_type="Person"),
            [],
            "find_entities by the entity's old type after its type changed",
        )

    async def test_upsert_entity_twice_is_the_same_as_once(self, store: GraphStore) -> None:
        """Idempotence: replaying an upsert (as a projection does) leaves exactly one row."""
        ada = _entity(keys=("Person|n:ada lovelace",))
        await store.upsert_entity(TENANT, ada)
        await store.upsert_entity(TENANT, ada)
        _expect(await store.find_entities(TENANT), [ada], "find_entities after a replayed upsert")
        _expect(
            await store.find_by_blocking_key(TENANT, "Person|n:ada lovelace"),
            [ada],
            "find_by_blocking_key after a replayed upsert (the entity once)",
        )

    async def test_upsert_entities_writes_every_entity(self, store: GraphStore) -> None:
        """A batch upsert stores each entity; a duplicate id in the batch keeps the last."""
        ada, grace = _entity("Ada"), _entity("Grace")
        ada_later = _entity("Ada King", entity_id=ada.id)
        await store.upsert_entities(TENANT, [ada, grace, ada_later])
        _expect(
            await store.get_entities(TENANT, [ada.id, grace.id]),
            {ada.id: ada_later, grace.id: grace},
            "get_entities after upsert_entities([ada, grace, ada again]): the last ada wins",
        )

    async def test_upsert_entities_with_an_alias_id_writes_nothing(self, store: GraphStore) -> None:
        """A batch holding an alias id raises ``ValueError`` and writes none of the batch."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, canonical.id))
        fresh = _entity("Grace")
        canonical_changed = _entity("Changed", entity_id=canonical.id)
        with _raises(ValueError, "upsert_entities with an alias id as the last element"):
            await store.upsert_entities(
                TENANT, [fresh, canonical_changed, _entity("Alias", entity_id=alias_id)]
            )
        _expect(
            await store.get_entity(TENANT, fresh.id),
            None,
            "an entity before the offending one in a failed batch (nothing is written)",
        )
        _expect(
            await store.get_entity(TENANT, canonical.id),
            canonical,
            "an existing entity the failed batch would have replaced (unchanged)",
        )

    async def test_get_entities_returns_present_ids_and_omits_absent_ones(
        self, store: GraphStore
    ) -> None:
        """Batch read: present ids map to their entity, absent ids are left out, duplicates ok."""
        ada, grace = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [ada, grace])
        unknown = _entity_id()
        _expect(
            await store.get_entities(TENANT, [ada.id, unknown, ada.id]),
            {ada.id: ada},
            "get_entities([ada, unknown, ada])",
        )

    async def test_find_entities_orders_by_id_text(self, store: GraphStore) -> None:
        """Ascending by canonical id text: not insertion order, not name order."""
        ids = _ids_in_text_order(5)
        # Names run against the id order and writes go in reverse, so neither can pass.
        written = [_entity(f"Name {9 - rank}", entity_id=ids[rank]) for rank in range(5)]
        for entity in reversed(written):
            await store.upsert_entity(TENANT, entity)
        _expect(
            [entity.id for entity in await store.find_entities(TENANT)],
            ids,
            "find_entities order (ascending by id text)",
        )

    async def test_find_entities_filters_by_exact_type(self, store: GraphStore) -> None:
        """``entity_type`` matches the type exactly, case included; ``None`` means no filter."""
        person = _entity("Ada", type="Person")
        lower = _entity("Grace", type="person")
        place = _entity("Zürich", type="Place")
        await store.upsert_entities(TENANT, [person, lower, place])
        _expect(
            await store.find_entities(TENANT, entity_type="Person"),
            [person],
            "find_entities(entity_type='Person') with a 'person' and a 'Place' also stored",
        )
        _expect(
            await store.find_entities(TENANT, entity_type="Organisation"),
            [],
            "find_entities of a type nobody has",
        )
        _expect(
            await store.find_entities(TENANT, entity_type=None),
            _by_id([person, lower, place]),
            "find_entities(entity_type=None)",
        )

    async def test_find_entities_stops_at_limit(self, store: GraphStore) -> None:
        """``limit`` caps the page, taking the lowest ids; ``limit=0`` returns nothing."""
        written = [_entity(f"Entity {n}") for n in range(4)]
        await store.upsert_entities(TENANT, written)
        expected = _by_id(written)
        _expect(await store.find_entities(TENANT, limit=2), expected[:2], "find_entities(limit=2)")
        _expect(await store.find_entities(TENANT, limit=0), [], "find_entities(limit=0)")

    async def test_find_entities_with_a_negative_limit_raises(self, store: GraphStore) -> None:
        """A negative limit is a caller's mistake: ``ValueError``, not an empty page."""
        await store.upsert_entity(TENANT, _entity())
        with _raises(ValueError, "find_entities(limit=-1)"):
            await store.find_entities(TENANT, limit=-1)

    async def test_find_entities_resumes_strictly_after_the_cursor(self, store: GraphStore) -> None:
        """``after`` excludes the cursor itself and everything before it in id order."""
        ids = _ids_in_text_order(4)
        written = [_entity(f"Entity {rank}", entity_id=ids[rank]) for rank in range(4)]
        await store.upsert_entities(TENANT, list(reversed(written)))
        _expect(
            await store.find_entities(TENANT, after=ids[1]),
            written[2:],
            "find_entities(after=<second id>)",
        )
        _expect(
            await store.find_entities(TENANT, after=ids[3]), [], "find_entities(after=<last id>)"
        )

    async def test_find_entities_resumes_after_a_cursor_that_does_not_exist(
        self, store: GraphStore
    ) -> None:
        """The cursor need not be stored: paging resumes by id text, which survives deletes."""
        ids = _ids_in_text_order(6)
        written = [_entity(f"Entity {rank}", entity_id=ids[rank]) for rank in range(6)]
        await store.upsert_entities(TENANT, written)
        # Between the third and fourth ids: id text order is the order of the 128-bit value.
        cursor = EntityId(uuid.UUID(int=(ids[2].int + ids[3].int) // 2))
        assert cursor not in ids
        _expect(
            await store.find_entities(TENANT, after=cursor),
            written[3:],
            f"find_entities(after={cursor}), an id never stored that sorts after the third",
        )
        _expect(
            await store.find_entities(TENANT, after=EntityId(uuid.UUID(int=0))),
            written,
            "find_entities(after=00000000-0000-0000-0000-000000000000), below every id",
        )

    async def test_find_entities_pages_combine_the_type_filter_and_the_cursor(
        self, store: GraphStore
    ) -> None:
        """A filtered page is cut after filtering, and resumes within the same filter."""
        ids = _ids_in_text_order(6)
        types = ("Person", "Place", "Person", "Place", "Person", "Person")
        written = [
            _entity(f"Entity {rank}", entity_id=ids[rank], type=types[rank]) for rank in range(6)
        ]
        await store.upsert_entities(TENANT, written)
        people = [entity for entity in written if entity.type == "Person"]
        first = await store.find_entities(TENANT, entity_type="Person", limit=2)
        _expect(first, people[:2], "first page of find_entities(entity_type='Person', limit=2)")
        second = await store.find_entities(TENANT, entity_type="Person", limit=2, after=ids[2])
        _expect(second, people[2:], "the page resumed after the first page's last id")

    # -- delete_entities -----------------------------------------------------------------------

    async def test_delete_entities_removes_the_entity_from_every_entity_read(
        self, store: GraphStore
    ) -> None:
        """A deleted entity reads as absent everywhere; the entity beside it is untouched."""
        doomed = _entity("Ada", type="Person")
        kept = _entity("Grace", type="Person")
        await store.upsert_entities(TENANT, [doomed, kept])
        _expect(await store.delete_entities(TENANT, [doomed.id]), 1, "delete_entities count")
        _expect(await store.get_entity(TENANT, doomed.id), None, "get_entity of the deleted id")
        _expect(
            await store.get_entities(TENANT, [doomed.id, kept.id]),
            {kept.id: kept},
            "get_entities([deleted, kept])",
        )
        _expect(await store.find_entities(TENANT), [kept], "find_entities after the delete")
        _expect(
            await store.find_entities(TENANT, entity_type="Person"),
            [kept],
            "find_entities(entity_type='Person') after the delete",
        )
        _expect(
            await store.resolve_entity_ids(TENANT, [doomed.id, kept.id]),
            {kept.id: kept.id},
            "resolve_entity_ids([deleted, kept]): the deleted id denotes nothing",
        )

    async def test_delete_entities_removes_every_relationship_touching_it(
        self, store: GraphStore
    ) -> None:
        """Edges out of, into and looping on a deleted entity go; edges between others stay."""
        doomed, left, right = _entity("Doomed"), _entity("Left"), _entity("Right")
        out_edge, in_edge = _edge(doomed.id, left.id), _edge(right.id, doomed.id)
        loop, kept_edge = _edge(doomed.id, doomed.id), _edge(left.id, right.id)
        await self._store_graph(store, [doomed, left, right], [out_edge, in_edge, loop, kept_edge])
        await store.delete_entities(TENANT, [doomed.id])
        for edge, role in ((out_edge, "subject"), (in_edge, "object"), (loop, "both ends")):
            _expect(
                await store.get_relationship(TENANT, edge.id),
                None,
                f"get_relationship of an edge whose {role} was deleted",
            )
        _expect(
            await store.get_relationship(TENANT, kept_edge.id),
            kept_edge,
            "get_relationship of an edge between two surviving entities",
        )
        _expect(
            await store.get_relationships_for(TENANT, [doomed.id, left.id, right.id]),
            [kept_edge],
            "get_relationships_for(every id) after deleting one endpoint",
        )
        _expect(
            _depths(await store.neighbours(TENANT, left.id, depth=3)),
            [(1, right.id)],
            "neighbours(left, depth=3): the path through the deleted entity is gone",
        )
        _expect(
            await store.neighbours(TENANT, doomed.id, depth=3),
            [],
            "neighbours of the deleted entity (an unknown id now)",
        )
        reused = _edge(left.id, right.id, relationship_id=loop.id)
        await store.upsert_relationship(TENANT, reused)
        _expect(
            await store.get_relationships_for(TENANT, [left.id]),
            _edges_by_id([kept_edge, reused]),
            "a deleted edge's id written again as a new edge (nothing of the old one is left)",
        )

    async def test_delete_entities_removes_its_blocking_keys(self, store: GraphStore) -> None:
        """Keys stop finding a deleted entity; a key it shared still finds the others."""
        doomed = _entity("Ada", keys=("k:shared", "k:own"))
        kept = _entity("Adah", keys=("k:shared",))
        await store.upsert_entities(TENANT, [doomed, kept])
        await store.delete_entities(TENANT, [doomed.id])
        _expect(
            await store.find_by_blocking_key(TENANT, "k:shared"),
            [kept],
            "find_by_blocking_key of a key the deleted entity shared",
        )
        _expect(
            await store.find_by_blocking_key(TENANT, "k:own"),
            [],
            "find_by_blocking_key of a key only the deleted entity carried",
        )
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:shared", "k:own"]),
            {"k:shared": [kept]},
            "find_by_blocking_keys after the delete (the emptied key is absent)",
        )

    async def test_delete_entities_removes_the_aliases_pointing_at_it(
        self, store: GraphStore
    ) -> None:
        """Aliases whose canonical is deleted go with it; aliases of other entities stay."""
        doomed, kept = _entity("Ada"), _entity("Grace")
        await store.upsert_entities(TENANT, [doomed, kept])
        first, second, other = _entity_id(), _entity_id(), _entity_id()
        await store.upsert_alias(TENANT, _alias(first, doomed.id))
        await store.upsert_alias(TENANT, _alias(second, doomed.id))
        kept_alias = _alias(other, kept.id)
        await store.upsert_alias(TENANT, kept_alias)
        await store.delete_entities(TENANT, [doomed.id])
        _expect(
            await store.resolve_entity_ids(TENANT, [first, second, other]),
            {other: kept.id},
            "resolve_entity_ids of the deleted entity's aliases and another entity's alias",
        )
        _expect(await store.find_aliases(TENANT, doomed.id), [], "find_aliases(deleted)")
        _expect(await store.find_aliases(TENANT, kept.id), [kept_alias], "find_aliases(kept)")
        _expect(
            await store.remove_alias(TENANT, first),
            False,
            "remove_alias of an alias that went with its canonical entity",
        )
        reborn = _entity("Former alias", entity_id=second)
        await store.upsert_entity(TENANT, reborn)
        _expect(
            await store.get_entity(TENANT, second),
            reborn,
            "a former alias id upserted as an entity (the alias is really gone)",
        )

    async def test_delete_entities_ignores_alias_ids(self, store: GraphStore) -> None:
        """An alias id is not an entity: it is neither deleted nor counted, nor its canonical."""
        canonical = _entity("Ada")
        await store.upsert_entity(TENANT, canonical)
        alias = _alias(_entity_id(), canonical.id)
        await store.upsert_alias(TENANT, alias)
        _expect(
            await store.delete_entities(TENANT, [alias.alias_id]),
            0,
            "delete_entities([an alias id])",
        )
        _expect(
            await store.resolve_entity_ids(TENANT, [alias.alias_id]),
            {alias.alias_id: canonical.id},
            "resolve_entity_ids of the alias id passed to delete_entities",
        )
        _expect(await store.find_aliases(TENANT, canonical.id), [alias], "find_aliases")
        _expect(await store.get_entity(TENANT, canonical.id), canonical, "the alias's canonical")

    async def test_delete_entities_counts_each_removed_entity_once(self, store: GraphStore) -> None:
        """The count is of entities removed: duplicates, absent ids and alias ids add nothing."""
        first, second, kept = _entity("Ada"), _entity("Grace"), _entity("Alan")
        await store.upsert_entities(TENANT, [first, second, kept])
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, kept.id))
        _expect(
            await store.delete_entities(
                TENANT, [first.id, first.id, _entity_id(), alias_id, second.id]
            ),
            2,
            "delete_entities([a, a, absent, alias, b])",
        )
        _expect(await store.find_entities(TENANT), [kept], "find_entities after the delete")

    async def test_delete_entities_is_idempotent(self, store: GraphStore) -> None:
        """Deleting again removes nothing more, returns ``0`` and never raises."""
        doomed, kept = _entity("Ada", keys=("k:a",)), _entity("Grace", keys=("k:a",))
        await store.upsert_entities(TENANT, [doomed, kept])
        await store.upsert_relationship(TENANT, _edge(kept.id, kept.id))
        _expect(await store.delete_entities(TENANT, [doomed.id]), 1, "the first delete")
        ids = [doomed.id, kept.id]
        after_first = await self._reads_of(store, ids)
        _expect(await store.delete_entities(TENANT, [doomed.id]), 0, "the same delete again")
        _expect(await self._reads_of(store, ids), after_first, "every read after the replay")

    async def test_delete_entities_of_no_ids_is_zero(self, store: GraphStore) -> None:
        """``[]`` and ids the tenant never held delete nothing and return ``0``."""
        ada = _entity("Ada", keys=("k:a",))
        await store.upsert_entity(TENANT, ada)
        before = await self._reads_of(store, [ada.id])
        _expect(await store.delete_entities(TENANT, []), 0, "delete_entities([])")
        _expect(await store.delete_entities(TENANT, [_entity_id()]), 0, "an unknown id")
        _expect(await self._reads_of(store, [ada.id]), before, "every read afterwards")

    async def test_a_deleted_entity_id_can_be_upserted_again(self, store: GraphStore) -> None:
        """The id comes back as a fresh entity: no old keys, edges or aliases attached."""
        old = _entity("Ada", keys=("k:old",))
        friend = _entity("Grace")
        await store.upsert_entities(TENANT, [old, friend])
        await store.upsert_relationship(TENANT, _edge(old.id, friend.id))
        alias_id = _entity_id()
        await store.upsert_alias(TENANT, _alias(alias_id, old.id))
        await store.delete_entities(TENANT, [old.id])
        fresh = _entity("Augusta", entity_id=old.id, type="Concept", keys=("k:new",))
        await store.upsert_entity(TENANT, fresh)
        _expect(await store.get_entity(TENANT, old.id), fresh, "get_entity of the re-created id")
        _expect(
            await store.find_by_blocking_keys(TENANT, ["k:old", "k:new"]),
            {"k:new": [fresh]},
            "find_by_blocking_keys: only the fresh entity's key finds it",
        )
        _expect(
            await store.get_relationships_for(TENANT, [old.id]), [], "edges of the re-created id"
        )
        _expect(await store.find_aliases(TENANT, old.id), [], "aliases of the re-created id")
        _expect(
            await store.resolve_entity_ids(TENANT, [alias_id, old.id]),
            {old.id: old.id},
            "resolve_entity_ids([old alias, re-created id])",
        )

    async def test_delete_entities_never_crosses_tenants(self, store: GraphStore) -> None:
        """Another tenant holding the very same ids keeps its entities, keys, aliases and edges."""
        ids = [_entity_id() for _ in range(4)]
        await self._populate(store, TENANT, ids)
        await self._populate(store, OTHER, ids)
        before = await self._everything(store, OTHER, ids)
        _expect(
            await store.delete_entities(STRANGER, ids),
            0,
            "delete_entities under a tenant that holds none of the ids",
        )
        _expect(await store.delete_entities(TENANT, ids), 2, "delete_entities under TENANT")
        _expect(
            await self._everything(store, OTHER, ids),
            before,
            "every read of another tenant with the same ids, after TENANT deleted them",
        )
        _expect(
            await self._everything(store, TENANT, ids),
            {
                "get_entities": {},
                "find_entities": [],
                "find_by_blocking_key": [],
                "find_aliases": [],
                "resolve_entity_ids": {},
                "get_relationship": None,
                "get_relationships_for": [],
                "neighbours": [],
            },
            "every read of TENANT after deleting all its entities",
        )

    # -- tenancy: every read -------------------------------------------------------------------

    async def test_get_entity_never_crosses_tenants(self, store: GraphStore) -> None:
        """Each tenant reads its own entity under a shared id; a third reads ``None``."""
        mine, theirs = await self._twins(store)
        _expect(await store.get_entity(TENANT, mine.id), mine, "get_entity under TENANT")
        _expect(await store.get_entity(OTHER, mine.id), theirs, "get_entity under OTHER")
        _expect(await store.get_entity(STRANGER, mine.id), None, "get_entity under STRANGER")

    async def test_get_entities_never_crosses_tenants(self, store: GraphStore) -> None:
        """The batch read is scoped exactly like the single one."""
        mine, theirs = await self._twins(store)
        only_theirs = _entity("Only theirs")
        await store.upsert_entity(OTHER, only_theirs)
        ids = [mine.id, only_theirs.id]
        _expect(await store.get_entities(TENANT, ids), {mine.id: mine}, "get_entities, TENANT")
        _expect(
            await store.get_entities(OTHER, ids),
            {mine.id: theirs, only_theirs.id: only_theirs},
            "get_entities under OTHER",
        )
        _expect(await store.get_entities(STRANGER, ids), {}, "get_entities under STRANGER")

    async def test_find_entities_never_crosses_tenants(self, store: GraphStore) -> None:
        """Listing, filtering and paging see only the tenant's own entities."""
        mine, theirs = await self._twins(store)
        only_theirs = _entity("Only theirs", type="Place")
        await store.upsert_entity(OTHER, only_theirs)
        _expect(await store.find_entities(TENANT), [mine], "find_entities under TENANT")
        _expect(
            await store.find_entities(OTHER),
            _by_id([theirs, only_theirs]),
            "find_entities under OTHER",
        )
        _expect(
            await store.find_entities(TENANT, entity_type="Place"),
            [],
            "find_entities(entity_type='Place') under TENANT (only OTHER has places)",
        )
        _expect(await store.find_entities(STRANGER), [], "find_entities under STRANGER")

    # -- copies: every read hands out objects the caller may change ----------------------------

    async def test_get_entity_returns_copies(self, store: GraphStore) -> None:
        """Defacing a returned entity (nested attributes included) changes nothing stored."""
        ada = _entity(keys=("k:ada",))
        await store.upsert_entity(TENANT, ada)
        expected = _snapshot(ada)
        got = await store.get_entity(TENANT, ada.id)
        assert got is not None, "get_entity after upsert_entity returned None"
        _deface_entity(got)
        _expect(await store.get_entity(TENANT, ada.id), expected, "get_entity after defacing")

    async def test_get_entities_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned mapping or its entities changes nothing stored."""
        ada = _entity(keys=("k:ada",))
        await store.upsert_entity(TENANT, ada)
        expected = {ada.id: _snapshot(ada)}
        _deface_entity_map(await store.get_entities(TENANT, [ada.id]))
        _expect(await store.get_entities(TENANT, [ada.id]), expected, "get_entities, defaced")

    async def test_find_entities_returns_copies(self, store: GraphStore) -> None:
        """Defacing the returned list or its entities changes nothing stored."""
        written = [_entity("Ada", keys=("k:ada",)), _entity("Grace")]
        await store.upsert_entities(TENANT, written)
        expected = _by_id(_snapshot(entity) for entity in written)
        _deface_entities(await store.find_entities(TENANT))
        _expect(await store.find_entities(TENANT), expected, "find_entities after defacing")

    # -- copies: every write keeps nothing of the caller's -------------------------------------

    async def test_upsert_entity_keeps_no_reference_to_the_callers_object(
        self, store: GraphStore
    ) -> None:
        """Changing the entity after upserting it changes nothing stored."""
        ada = _entity(keys=("k:ada",))
        expected = _snapshot(ada)
        await store.upsert_entity(TENANT, ada)
        _deface_entity(ada)
        _expect(await store.get_entity(TENANT, ada.id), expected, "get_entity, caller defaced")
        _expect(await store.find_by_blocking_key(TENANT, "k:ada"), [expected], "its key")

    async def test_upsert_entities_keeps_no_reference_to_the_callers_objects(
        self, store: GraphStore
    ) -> None:
        """Changing the batch's entities after the write changes nothing stored."""
        written = [_entity("Ada"), _entity("Grace")]
        expected = {entity.id: _snapshot(entity) for entity in written}
        await store.upsert_entities(TENANT, written)
        for entity in written:
            _deface_entity(entity)
        _expect(
            await store.get_entities(TENANT, list(expected)),
            expected,
            "get_entities after the caller defaced what it upserted",
        )

    # -- properties ----------------------------------------------------------------------------

    @settings(compliance_settings())
    @given(
        writes=_pool(4).flatmap(_entity_writes),
        batched=st.booleans(),
    )
    async def test_entity_writes_are_idempotent_and_last_write_wins(
        self, writes: list[Entity], batched: bool
    ) -> None:
        """Replaying any sequence of entity writes leaves the last value of each id, once."""
        latest = {entity.id: entity for entity in writes}
        async with self.fresh_store() as store:
            for _replay in range(2):
                if batched:
                    await store.upsert_entities(TENANT, writes)
                else:
                    for entity in writes:
                        await store.upsert_entity(TENANT, entity)
            _expect(
                await store.find_entities(TENANT),
                _by_id(latest.values()),
                "find_entities after replaying the writes (last value of each id, by id text)",
            )
            _expect(
                await store.get_entities(TENANT, list(latest)),
                latest,
                "get_entities after replaying the writes",
            )

    @settings(compliance_settings())
    @given(
        entities=st.lists(
            gen.entities(attributes=gen.small_attributes()),
            max_size=10,
            unique_by=lambda entity: entity.id,
        ),
        page_size=st.integers(min_value=1, max_value=4),
        entity_type=st.none() | gen.type_names(),
        start=st.none() | gen.entity_ids(),
    )
    async def test_find_entities_pages_through_everything_in_id_order(
        self,
        entities: list[Entity],
        page_size: int,
        entity_type: str | None,
        start: EntityId | None,
    ) -> None:
        """Pages chained by ``after`` visit each matching entity once, in id-text order."""
        expected = [
            entity
            for entity in _by_id(entities)
            if (entity_type is None or entity.type == entity_type)
            and (start is None or id_text(entity.id) > id_text(start))
        ]
        async with self.fresh_store() as store:
            await store.upsert_entities(TENANT, entities)
            seen: list[Entity] = []
            cursor = start
            for _page in range(len(entities) + 2):
                page = await store.find_entities(
                    TENANT, entity_type=entity_type, limit=page_size, after=cursor
                )
                assert len(page) <= page_size, (
                    f"find_entities(limit={page_size}) returned {len(page)} entities"
                )
                seen.extend(page)
                if len(page) < page_size:
                    break
                cursor = page[-1].id
            _expect(seen, expected, f"the pages of find_entities(limit={page_size}) chained")

    @settings(compliance_settings())
    @given(pool=_pool(6), data=st.data())
    async def test_delete_entities_leaves_exactly_what_did_not_hang_on_them(
        self, pool: list[EntityId], data: st.DataObject
    ) -> None:
        """On any small graph, deleting any ids leaves what the port's prose says, per read.

        The graph has entities, keys, edges (self-loops included) and aliases; the deleted
        ids mix entities, alias ids, an unknown id and duplicates. OTHER holds the same graph
        and must not change.
        """
        entities = data.draw(
            st.lists(
                gen.entities(ids=st.sampled_from(pool), attributes=gen.small_attributes()),
                min_size=1,
                max_size=len(pool),
                unique_by=lambda entity: entity.id,
            ),
            label="entities",
        )
        live = sorted((entity.id for entity in entities), key=id_text)
        edges = data.draw(
            st.lists(
                gen.relationships(
                    st.sampled_from(live), st.sampled_from(live), attributes=st.just({})
                ),
                max_size=8,
                unique_by=lambda edge: edge.id,
            ),
            label="edges",
        )
        aliases = [
            _alias(alias_id, canonical)
            for alias_id in pool
            if alias_id not in live
            and (canonical := data.draw(st.none() | st.sampled_from(live), label="canonical"))
        ]
        unknown = data.draw(gen.entity_ids().filter(lambda i: i not in pool), label="unknown")
        deleted = data.draw(st.lists(st.sampled_from([*pool, unknown]), max_size=8), label="ids")
        # The oracle, from the prose: live entities among the ids go, with what hangs on them.
        gone = set(deleted) & set(live)
        kept = {entity.id: entity for entity in entities if entity.id not in gone}
        everyone = [*pool, unknown]
        async with self.fresh_store() as store:
            for tenant in (TENANT, OTHER):
                await store.upsert_entities(tenant, entities)
                await store.upsert_relationships(tenant, edges)
                for alias in aliases:
                    await store.upsert_alias(tenant, alias)
            other_before = await self._graph_reads(store, OTHER, everyone)
            _expect(
                await store.delete_entities(TENANT, deleted),
                len(gone),
                f"delete_entities count for {len(deleted)} ids of which {len(gone)} are live",
            )
            _expect(
                await self._graph_reads(store, TENANT, everyone),
                {
                    "find_entities": _by_id(kept.values()),
                    "find_by_blocking_keys": {
                        key: found
                        for key in gen.BLOCKING_KEY_VOCABULARY
                        if (found := _by_id(e for e in kept.values() if key in e.blocking_keys))
                    },
                    "get_relationships_for": _edges_by_id(
                        edge for edge in edges if edge.subject_id in kept and edge.object_id in kept
                    ),
                    "resolve_entity_ids": {
                        **{entity_id: entity_id for entity_id in kept},
                        **{a.alias_id: a.canonical_id for a in aliases if a.canonical_id in kept},
                    },
                },
                "every read of TENANT after delete_entities, against the oracle",
            )
            _expect(
                await self._graph_reads(store, OTHER, everyone),
                other_before,
                "every read of OTHER, which holds the same graph, after TENANT's delete",
            )
            _expect(await store.delete_entities(TENANT, deleted), 0, "the same delete again")

    async def test_find_entities_with_a_limit_past_the_maximum_raises(
        self, store: GraphStore
    ) -> None:
        """A ``limit`` above ``MAX_LIMIT`` raises ``InvalidArgumentError`` everywhere (ADR 0023)."""
        await store.upsert_entity(TENANT, _entity())
        _expect(
            len(await store.find_entities(TENANT, limit=MAX_LIMIT)), 1, "find_entities(MAX_LIMIT)"
        )
        for limit in (MAX_LIMIT + 1, 2**63):
            with _raises(InvalidArgumentError, f"find_entities(limit={limit})"):
                await store.find_entities(TENANT, limit=limit)

    async def test_attributes_keep_the_order_they_were_written_in(self, store: GraphStore) -> None:
        """Attribute keys, nested ones too, come back in write order, not sorted (ADR 0023)."""
        ada, grace = _entity("Ada"), _entity("Grace")
        ada.attributes = {"zeta": 1, "alpha": {"yew": 2, "beech": 3}, "mid": [{"b": 1, "a": 2}]}
        await store.upsert_entities(TENANT, [ada, grace])
        edge = _edge(ada.id, grace.id)
        edge.attributes = dict(ada.attributes)
        await store.upsert_relationship(TENANT, edge)

        def order(attributes: Mapping[str, object]) -> list[object]:
            nested = attributes["alpha"]
            listed = attributes["mid"]
            assert isinstance(nested, dict)
            assert isinstance(listed, list)
            return [list(attributes), list(nested), list(listed[0])]

        expected = [["zeta", "alpha", "mid"], ["yew", "beech"], ["b", "a"]]
        read = await store.get_entity(TENANT, ada.id)
        assert read is not None
        _expect(order(read.attributes), expected, "entity attribute keys in write order")
        read_edge = await store.get_relationship(TENANT, edge.id)
        assert read_edge is not None
        _expect(order(read_edge.attributes), expected, "edge attribute keys in write order")

    @settings(compliance_settings())
    @given(value=gen.awkward_json())
    async def test_attribute_values_the_models_accept_come_back_equal(
        self, value: JsonValue
    ) -> None:
        """NaN, infinities and lone surrogates are refused by the models (ADR 0023); every
        other value (-0.0, integers past 64 bits, NUL in a string, any script) round trips
        unchanged on an entity and an edge. A failure here names a value this backend alters."""
        try:
            check_json(value)
        except InvalidArgumentError:
            with _raises(ValueError, f"Entity with the unportable attribute {value!r}"):
                _entity().attributes = {"value": value}
            return
        entity = _entity()
        entity.attributes = {"value": value}
        edge = _edge(entity.id, entity.id)
        edge.attributes = {"value": value}
        async with self.fresh_store() as store:
            await store.upsert_entity(TENANT, entity)
            await store.upsert_relationship(TENANT, edge)
            _expect(await store.get_entity(TENANT, entity.id), entity, f"entity with {value!r}")
            _expect(await store.get_relationship(TENANT, edge.id), edge, f"edge with {value!r}")
