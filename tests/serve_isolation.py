"""The tenant-isolation property, run against any world (in memory, PostgreSQL).

Hypothesis calls every endpoint with tenant A's key and one of tenant B's entity ids, source
ids, names, job ids or its tenant name in a parameter, and calls it again with a *twin*: a
value of the same shape that exists nowhere. The two answers must be the same status and the
same body once the value is swapped back: then nothing in the answer can depend on B. Reads
that rank A's own data (query, ask) instead must contain nothing of B at all. B's graph must
be byte-for-byte the same afterwards.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from tests.serve_world import B_NAMES, DOCS_B, TENANT_A, TENANT_B, World, as_tenant

Request = tuple[str, str, dict[str, Any]]
COMPARED: dict[str, Callable[[str, str], Request]] = {
    "get entity": lambda v, a: ("GET", f"/v1/entities/{v}", {}),
    "delete source": lambda v, a: ("DELETE", f"/v1/sources/{v}", {}),
    "merge into a": lambda v, a: ("POST", "/v1/merges", {"json": {"keep": a, "absorb": v}}),
    "merge from a": lambda v, a: ("POST", "/v1/merges", {"json": {"keep": v, "absorb": a}}),
    "unmerge": lambda v, a: ("POST", "/v1/unmerge", {"json": {"alias": v}}),
    "job": lambda v, a: ("GET", f"/v1/jobs/{v}", {}),
    "delete tenant": lambda v, a: ("DELETE", f"/v1/tenants/{quote(v, safe='')}", {}),
    "tenant header": lambda v, a: ("GET", "/v1/stats", {"headers": {"X-Redstring-Tenant": v}}),
    "export header": lambda v, a: ("GET", "/v1/export", {"headers": {"X-Redstring-Tenant": v}}),
}
UNCOMPARED: dict[str, Callable[[str, str], Request]] = {
    "query": lambda v, a: ("POST", "/v1/query", {"json": {"text": v}}),
    "ask": lambda v, a: ("POST", "/v1/ask", {"json": {"question": v}}),
    "sources": lambda v, a: ("GET", f"/v1/sources?limit=100&offset={len(v) % 3}", {}),
    "stats": lambda v, a: ("GET", "/v1/stats", {}),
    "export": lambda v, a: ("GET", "/v1/export?format=graphml", {}),
    "merges": lambda v, a: ("GET", "/v1/merges", {}),
    "possible matches": lambda v, a: ("GET", "/v1/possible-matches", {}),
}


_CLASSES = ("0123456789abcdef", "ghijklmnopqrstuvwxyz", "ABCDEF", "GHIJKLMNOPQRSTUVWXYZ")


def twin_of(value: str) -> str:
    """A value of the same shape that names nothing: each character moved one place within
    its class (hex digits stay hex digits), so a UUID stays a UUID and a validation message
    points at the same position."""
    out = []
    for char in value:
        group = next((group for group in _CLASSES if char in group), None)
        out.append(group[(group.index(char) + 1) % len(group)] if group else char)
    return "".join(out)


def _forms(value: str) -> list[str]:
    """The value as sent and, for a UUID, as the server writes it back."""
    try:
        return [value, str(uuid.UUID(value))]
    except ValueError:
        return [value, value]


def _fields(text: str) -> list[str]:
    return [error["field"] for error in json.loads(text).get("errors", [])]


def _without_echo(body: Any) -> Any:
    """The body without the caller's own question, echoed at any depth."""
    if isinstance(body, dict):
        return {key: _without_echo(item) for key, item in body.items() if key != "question"}
    if isinstance(body, list):
        return [_without_echo(item) for item in body]
    return body


def _call(client: TestClient, headers: dict[str, str], request: Request) -> tuple[int, str]:
    method, url, options = request
    extra = options.pop("headers", {})
    response = client.request(method, url, headers={**headers, **extra}, **options)
    return response.status_code, response.text


def b_markers(world: World, job_id: str) -> list[str]:
    """Strings that only B's data contains."""
    return [*B_NAMES, *DOCS_B, *world.entity_ids[TENANT_B], job_id]


def check_isolation(client: TestClient, world: World, *, max_examples: int = 60) -> None:
    """Run the property; fails with the endpoint and value that told A something of B."""
    b_headers = as_tenant(world, TENANT_B)
    a_headers = as_tenant(world, TENANT_A)
    job = client.post("/v1/rebuild", headers=b_headers)
    assert job.status_code == 202, job.text
    job_id = job.json()["job_id"]
    deadline = time.monotonic() + 60
    while client.get(f"/v1/jobs/{job_id}", headers=b_headers).json()["state"] not in {
        "succeeded",
        "failed",
    }:
        assert time.monotonic() < deadline, "B's rebuild job did not finish"
        time.sleep(0.05)
    before = client.get("/v1/export", headers=b_headers).text
    foreign = {
        "entity": world.entity_ids[TENANT_B],
        "source": list(DOCS_B),
        "name": list(B_NAMES),
        "job": [job_id],
        "tenant": [TENANT_B],
    }
    a_id = world.entity_ids[TENANT_A][0]
    markers = b_markers(world, job_id)

    @settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        database=None,
    )
    @given(data=st.data())
    def property_(data: st.DataObject) -> None:
        kind = data.draw(st.sampled_from(sorted(foreign)), label="kind")
        value = data.draw(st.sampled_from(foreign[kind]), label="B's value")
        name = data.draw(st.sampled_from(sorted(COMPARED) + sorted(UNCOMPARED)), label="call")
        if name in COMPARED:
            twin = twin_of(value)
            theirs = _call(client, a_headers, COMPARED[name](value, a_id))
            nobody = _call(client, a_headers, COMPARED[name](twin, a_id))
            assert theirs[0] == nobody[0], (name, value, theirs, nobody)
            swapped = theirs[1]
            for mine, other in zip(_forms(value), _forms(twin), strict=True):
                swapped = swapped.replace(mine, other)
            if theirs[0] == 422:
                # Refused by shape before any data is read; the validator's message quotes
                # the offending character, so compare the fields it names.
                swapped, expected = _fields(swapped), _fields(nobody[1])
            else:
                expected = nobody[1]
            assert swapped == expected, (name, value, theirs, nobody)
        else:
            status, text = _call(client, a_headers, UNCOMPARED[name](value, a_id))
            assert status == 200, (name, value, status, text)
            if text.startswith("{"):
                text = json.dumps(_without_echo(json.loads(text)))
            leaked = [marker for marker in markers if marker in text]
            assert leaked == [], (name, value, leaked)

    property_()
    after = client.get("/v1/export", headers=b_headers).text
    assert after == before, "tenant B's graph changed while A's key was used"


def check_foreign_source_ids_stay_apart(client: TestClient, world: World) -> None:
    """A writing under B's source id makes A's own source; B's is untouched, and A's
    delete removes A's only."""
    a_headers, b_headers = as_tenant(world, TENANT_A), as_tenant(world, TENANT_B)
    source = next(iter(DOCS_B))
    before = client.get("/v1/export", headers=b_headers).text
    made = client.post(
        "/v1/documents",
        json={"source": source, "text": "Farah Nasser works for Northwind."},
        headers=a_headers,
    )
    assert made.status_code == 200, made.text
    assert made.json()["unchanged"] is False
    assert client.delete(f"/v1/sources/{source}", headers=a_headers).status_code == 200
    assert client.delete(f"/v1/sources/{source}", headers=a_headers).status_code == 404
    assert client.get("/v1/export", headers=b_headers).text == before
