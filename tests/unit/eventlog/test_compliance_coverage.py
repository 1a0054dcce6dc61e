"""EventLogCompliance has a copy test and a tenant test for every read method of the port."""

from __future__ import annotations

from redstring.ports.event_log import EventLog
from redstring.testing.event_log import EventLogCompliance
from tests.compliance_coverage import missing_isolation_tests, read_methods


def test_the_derivation_finds_the_read_methods() -> None:
    """An empty read-method list would make the gate below pass over nothing."""
    assert read_methods(EventLog) == ["append", "read", "read_stream", "tenants"]


def test_every_read_method_has_its_isolation_tests() -> None:
    """``test_<method>_returns_copies`` and ``test_<method>_never_crosses_tenants`` exist."""
    assert missing_isolation_tests(EventLog, EventLogCompliance) == []
