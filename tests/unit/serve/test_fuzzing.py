"""Schemathesis fuzzes every operation of the published OpenAPI schema against a running
server: no input it generates may get a 5xx, and every answer must be one the schema allows.

The server is real (uvicorn on a free port over the in-memory graph); requests carry a
tenant key, so generated bodies reach the handlers rather than stopping at authentication.
``KG_FUZZ_EXAMPLES`` sets the examples per operation (default 15).
"""

from __future__ import annotations

import os

import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import status_code_conformance

from redstring.serve import Limits
from tests.serve_world import TENANT_A, running_server

EXAMPLES = int(os.environ.get("KG_FUZZ_EXAMPLES", "15"))

# JSON Lines are text: generated strings go out as they are.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")


def test_no_generated_request_gets_a_server_error() -> None:
    """Every operation, fuzzed from its schema: no 5xx, and only documented statuses."""
    limits = Limits(requests_per_window=1_000_000)
    with running_server(limits=limits) as (url, world):
        raw = requests.get(f"{url}/openapi.json", timeout=30).json()
        schema = schemathesis.openapi.from_dict(raw)
        headers = {"Authorization": f"Bearer {world.keys[TENANT_A]}"}
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) >= 18
        failures: list[str] = []
        for operation in operations:

            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy())
            def fuzz(case: schemathesis.Case) -> None:
                case.call_and_validate(
                    base_url=url,
                    headers=headers,
                    checks=[not_a_server_error, status_code_conformance],
                )

            try:
                fuzz()
            except (Exception, BaseExceptionGroup) as error:  # report every operation at once
                failures.append(f"{operation.label}: {error}")
        assert failures == []
