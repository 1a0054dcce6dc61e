"""The vector suite has a copy test and a tenant test for every read method of VectorStore."""

from __future__ import annotations

from redstring.ports.vector_store import VectorStore
from redstring.testing.vector_store import VectorStoreCompliance
from tests.compliance_coverage import missing_isolation_tests, read_methods


def test_every_read_method_has_its_copy_and_tenant_tests() -> None:
    """Fails until each read has ``test_<read>_returns_copies`` and ``_never_crosses_tenants``."""
    assert missing_isolation_tests(VectorStore, VectorStoreCompliance) == []


def test_the_read_methods_are_found() -> None:
    """An empty derivation would make the gate above pass over nothing."""
    reads = read_methods(VectorStore)
    assert {"get", "search"} <= set(reads)
    assert not {"upsert", "upsert_many", "delete", "delete_by_tenant"} & set(reads)


def test_the_gate_reports_a_suite_without_the_tests() -> None:
    """Against a class with no tests the gate names every required test, so it can fail."""
    assert missing_isolation_tests(VectorStore, object) == [
        "test_get_returns_copies",
        "test_get_never_crosses_tenants",
        "test_search_returns_copies",
        "test_search_never_crosses_tenants",
    ]
