"""The graph suite has a copy test and a tenant test for every read method of GraphStore."""

from __future__ import annotations

from redstring.ports.graph_store import GraphStore
from redstring.testing.graph_store import GraphStoreCompliance
from tests.compliance_coverage import missing_isolation_tests, read_methods


def test_every_read_method_has_its_copy_and_tenant_tests() -> None:
    """Fails until each read has ``test_<read>_returns_copies`` and ``_never_crosses_tenants``."""
    assert missing_isolation_tests(GraphStore, GraphStoreCompliance) == []


def test_the_read_methods_are_found() -> None:
    """An empty derivation would make the gate above pass over nothing."""
    reads = read_methods(GraphStore)
    assert "get_entity" in reads
    assert {"neighbours", "resolve_entity_ids", "find_by_blocking_keys"} <= set(reads)
    assert "delete_by_tenant" not in reads
