"""Tenant isolation on the in-memory graph (the PostgreSQL run is in tests/integration)."""

from __future__ import annotations

from tests.serve_isolation import check_foreign_source_ids_stay_apart, check_isolation
from tests.serve_world import serving


def test_tenant_a_key_never_sees_touches_or_confirms_tenant_b() -> None:
    """Every endpoint with B's ids, names and source ids answers A exactly like a miss."""
    with serving() as (client, world):
        check_isolation(client, world)


def test_a_source_id_of_another_tenant_is_just_a_name() -> None:
    """Writing under B's source id creates and deletes A's own source, never B's."""
    with serving() as (client, world):
        check_foreign_source_ids_stay_apart(client, world)
