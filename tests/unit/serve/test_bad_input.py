"""Bad input and injection-looking strings on the in-memory graph (PostgreSQL: integration)."""

from __future__ import annotations

import httpx

from tests.serve_bad_input import check_bad_input_writes_nothing, check_injection_strings_are_data
from tests.serve_world import running_server


def test_bad_input_is_a_clean_4xx_that_writes_nothing() -> None:
    """Malformed JSON, wrong types, bad UTF-8, binary uploads: problems, and no event."""
    with running_server() as (url, world), httpx.Client(base_url=url, timeout=60) as client:
        check_bad_input_writes_nothing(client, world)


def test_sql_and_cypher_looking_strings_are_only_data() -> None:
    """Stored and deleted verbatim; no 5xx anywhere; the other tenant untouched."""
    with running_server() as (url, world), httpx.Client(base_url=url, timeout=60) as client:
        check_injection_strings_are_data(client, world)
