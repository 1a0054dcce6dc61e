"""Bad input at the HTTP API: each gets a clean 4xx and writes nothing; strings that look
like SQL or Cypher are only data.

Run against any world (in memory, PostgreSQL) through a real server: Starlette's test client
decodes a percent-encoded path twice, which a real server does not. "Writes nothing" is
checked on the tenant's event count, which every write raises.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from tests.serve_world import TENANT_A, TENANT_B, World, as_tenant

INJECTIONS = (
    "'; DROP TABLE redstring_events; --",
    '" OR 1=1 --',
    "x') UNION SELECT key_hash FROM redstring_api_keys --",
    "MATCH (n) DETACH DELETE n",
    "}) RETURN n //",
    "$1; SELECT pg_sleep(10)",
    "../../../../etc/passwd",
    "%00%27",
)

BAD_REQUESTS: tuple[tuple[str, str, dict[str, Any], int], ...] = (
    ("POST", "/v1/documents", {"content": b"{not json"}, 400),
    ("POST", "/v1/documents", {"content": b'{"source": "s", "text": "caf\xe9"}'}, 400),
    ("POST", "/v1/documents", {"json": {"source": "s", "text": 42}}, 422),
    ("POST", "/v1/documents", {"json": {"source": "", "text": "Eli Stone."}}, 422),
    ("POST", "/v1/documents", {"json": {"source": "s", "text": "Eli\x00Stone."}}, 422),
    ("POST", "/v1/documents", {"json": {"source": "s", "text": "   "}}, 422),
    ("POST", "/v1/documents", {"json": {"source": "s", "text": "x", "tenant": TENANT_B}}, 422),
    ("POST", "/v1/documents", {"json": ["source", "text"]}, 422),
    ("POST", "/v1/documents/batch", {"json": {"documents": []}}, 422),
    ("POST", "/v1/documents/batch", {"json": {"documents": [{"source": "s"}]}}, 422),
    ("POST", "/v1/import", {"content": b"\xff\xfe\x00", "ndjson": True}, 422),
    ("POST", "/v1/import", {"content": b'{"kind": "entity"}', "ndjson": True}, 422),
    ("POST", "/v1/import", {"content": b"[1, 2]", "ndjson": True}, 422),
    ("POST", "/v1/import", {"content": b'{"kind": "entity"}'}, 415),
    ("POST", "/v1/merges", {"json": {"keep": "not-a-uuid", "absorb": "x"}}, 422),
    ("POST", "/v1/query", {"json": {"text": "Eli", "k": -1}}, 422),
    ("POST", "/v1/query", {"json": {"text": "Eli", "k": 10**9}}, 422),
    ("POST", "/v1/query", {"json": {"text": "Eli", "depth": 99}}, 422),
    ("GET", "/v1/sources?limit=0", {}, 422),
    ("GET", "/v1/sources?offset=-1", {}, 422),
    ("GET", "/v1/export?format=../../etc/passwd", {}, 422),
    ("GET", "/v1/entities/%00", {}, 422),
)


def _events(client: httpx.Client, headers: dict[str, str]) -> int:
    count: int = client.get("/v1/stats", headers=headers).json()["events"]
    return count


def check_bad_input_writes_nothing(client: httpx.Client, world: World) -> None:
    """Every malformed request is a 4xx problem of the expected status; no event is added."""
    headers = as_tenant(world, TENANT_A)
    before = _events(client, headers)
    for method, url, options, status in BAD_REQUESTS:
        extra = dict(headers)
        sent = dict(options)
        if sent.pop("ndjson", False):
            extra["Content-Type"] = "application/x-ndjson"
        elif "content" in sent:
            extra["Content-Type"] = "application/json"
        response = client.request(method, url, headers=extra, **sent)
        assert response.status_code == status, (method, url, options, response.text)
        assert response.headers["content-type"] == "application/problem+json", url
    upload = client.post(
        "/v1/documents/file",
        files={"file": ("image.pdf", b"\x89PNG\r\n\x1a\n" + bytes(4096), "application/pdf")},
        headers=headers,
    )
    assert upload.status_code == 422, upload.text
    nameless = client.post(
        "/v1/documents/file", files={"file": ("..", b"Eli Stone.", "text/plain")}, headers=headers
    )
    assert nameless.status_code == 422, nameless.text
    assert _events(client, headers) == before


def check_injection_strings_are_data(client: httpx.Client, world: World) -> None:
    """SQL- and Cypher-looking strings in every field are stored and found verbatim; nothing
    else changes, and tenant B is untouched."""
    a_headers, b_headers = as_tenant(world, TENANT_A), as_tenant(world, TENANT_B)
    b_before = client.get("/v1/export", headers=b_headers).text
    for number, text in enumerate(INJECTIONS):
        source = f"inj/{number}/{text}"
        made = client.post(
            "/v1/documents",
            json={"source": source, "text": f"Eli Stone wrote {text}", "metadata": {"k": text}},
            headers=a_headers,
        )
        assert made.status_code == 200, made.text
        assert made.json()["source_id"] == source
        for method, url, options in (
            ("POST", "/v1/query", {"json": {"text": text}}),
            ("POST", "/v1/ask", {"json": {"question": text}}),
            ("GET", f"/v1/entities/{text}", {}),
            ("POST", "/v1/merges", {"json": {"keep": text, "absorb": text}}),
            ("GET", "/v1/stats", {"headers": {"X-Redstring-Tenant": text}}),
            ("GET", f"/v1/jobs/{text}", {}),
        ):
            extra = {**a_headers, **options.pop("headers", {})}
            response = client.request(method, url, headers=extra, **options)
            assert response.status_code < 500, (method, url, response.text)
    listed = client.get("/v1/sources?limit=100", headers=a_headers).json()["items"]
    stored = {item["source_id"] for item in listed}
    assert {f"inj/{number}/{text}" for number, text in enumerate(INJECTIONS)} <= stored
    for number, text in enumerate(INJECTIONS):
        # A source id goes in the path percent-encoded, slashes included, so that no client
        # or proxy folds its dot segments.
        path = quote(f"inj/{number}/{text}", safe="")
        gone = client.delete(f"/v1/sources/{path}", headers=a_headers)
        assert gone.status_code == 200, (text, gone.text)
    assert client.get("/v1/export", headers=b_headers).text == b_before
