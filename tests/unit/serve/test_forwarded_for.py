"""Whose address the limits count (issue 26, finding 5): ``X-Forwarded-For`` is believed only
from the proxies ``redstring serve --forwarded-allow-ips`` names (ADR 0042).

uvicorn believes the header from 127.0.0.1 by default, so a client on the server's own host
could pose as a new address with every request and never meet the per-address budget. The
servers here run under the options the command builds (``uvicorn_options``).
"""

from __future__ import annotations

import httpx

from redstring.cli.serving import uvicorn_options
from redstring.serve import Limits
from tests.serve_world import free_port, running_server

LIMITS = Limits(failed_keys_per_window=3, window_seconds=30)
UNKNOWN = {"Authorization": "Bearer rsk_0123456789ab_guess"}


def _statuses(url: str, forwarded: list[str]) -> list[int]:
    with httpx.Client(base_url=url, timeout=30) as client:
        return [
            client.get("/v1/stats", headers={**UNKNOWN, "X-Forwarded-For": address}).status_code
            for address in forwarded
        ]


def test_without_trusted_proxies_a_forged_forwarded_for_changes_nothing() -> None:
    """A new X-Forwarded-For on every request: still one address, refused past its budget."""
    network = uvicorn_options("127.0.0.1", free_port(), None)
    with running_server(network=network, limits=LIMITS) as (url, _):
        forged = [f"203.0.113.{n}" for n in range(5)]
        assert _statuses(url, forged) == [401, 401, 401, 429, 429]


def test_a_trusted_proxy_names_the_client_address() -> None:
    """Behind a named proxy each forwarded client has its own budget."""
    network = uvicorn_options("127.0.0.1", free_port(), "127.0.0.1")
    with running_server(network=network, limits=LIMITS) as (url, _):
        assert _statuses(url, [f"198.51.100.{n}" for n in range(5)]) == [401] * 5
        assert _statuses(url, ["192.0.2.1"] * 4) == [401, 401, 401, 429]
