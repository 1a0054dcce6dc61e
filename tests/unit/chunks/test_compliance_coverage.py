"""The chunk suite has a copy test and a tenant test for every read method of ChunkStore."""

from __future__ import annotations

from redstring.ports.chunk_store import ChunkStore
from redstring.testing.chunk_store import ChunkStoreCompliance
from tests.compliance_coverage import missing_isolation_tests, read_methods


def test_every_read_method_has_its_copy_and_tenant_tests() -> None:
    """Fails until each read has ``test_<read>_returns_copies`` and ``_never_crosses_tenants``."""
    assert missing_isolation_tests(ChunkStore, ChunkStoreCompliance) == []


def test_the_read_methods_are_found() -> None:
    """An empty derivation would make the gate above pass over nothing.

    ``existing_ids`` returns ``set[ChunkId]`` (strings) and is found only by the mutable
    container axis, so it is named here explicitly.
    """
    reads = read_methods(ChunkStore)
    assert {"get", "existing_ids"} <= set(reads)
    assert {"get_many", "get_by_source", "get_by_entity", "list_sources"} <= set(reads)
    assert "lexical_candidates" in reads
    assert not {"upsert_many", "replace_source", "delete_by_source"} & set(reads)


def test_the_gate_reports_a_suite_without_the_tests() -> None:
    """Against a class with no tests the gate names both tests of every read, so it can fail."""
    missing = missing_isolation_tests(ChunkStore, object)
    assert len(missing) == 2 * len(read_methods(ChunkStore))
    assert "test_existing_ids_returns_copies" in missing
