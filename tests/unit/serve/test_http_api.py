"""The HTTP API over the in-memory graph: each endpoint, its limits and its problem details."""

from __future__ import annotations

from redstring.serve import Limits
from tests.serve_world import TENANT_A, as_tenant, finished_job, serving


def test_a_document_is_ingested_and_found_by_query_ask_sources_and_stats() -> None:
    """Ingest through the API, then every read sees it, in the key's own tenant."""
    with serving() as (client, world):
        headers = as_tenant(world, TENANT_A)
        sent = client.post(
            "/v1/documents",
            json={"source": "a/new.md", "text": "Eli Stone works for Okafor Labs."},
            headers=headers,
        )
        assert sent.status_code == 200, sent.text
        assert sent.json()["source_id"] == "a/new.md"
        sources = client.get("/v1/sources", headers=headers).json()
        assert [item["source_id"] for item in sources["items"]] == [
            "a/diaz.md",
            "a/new.md",
            "a/okafor.md",
        ]
        found = client.post("/v1/query", json={"text": "Eli Stone"}, headers=headers).json()
        assert any(item["entity"]["name"] == "Eli Stone" for item in found["entities"])
        answer = client.post("/v1/ask", json={"question": "Who is Eli Stone?"}, headers=headers)
        assert answer.status_code == 200
        assert answer.json()["kind"] in {"extractive", "unanswerable"}
        stats = client.get("/v1/stats", headers=headers).json()
        assert stats["sources"] == 3


def test_no_key_a_wrong_key_and_a_tenant_header_are_refused() -> None:
    """401 without or with a bad key; 403 when a tenant key names a tenant; problems all."""
    with serving() as (client, world):
        bare = client.get("/v1/stats")
        assert bare.status_code == 401
        assert bare.headers["content-type"] == "application/problem+json"
        assert bare.json()["type"] == "urn:redstring:problem:unauthenticated"
        wrong = client.get("/v1/stats", headers={"Authorization": "Bearer rsk_0123456789ab_x"})
        assert wrong.status_code == 401
        header = {**as_tenant(world, TENANT_A), "X-Redstring-Tenant": TENANT_A}
        assert client.get("/v1/stats", headers=header).status_code == 403


def test_an_admin_key_names_its_tenant_in_the_header() -> None:
    """Admin keys act in the tenant they name, and must name one."""
    with serving() as (client, world):
        admin = as_tenant(world, "admin")
        missing = client.get("/v1/stats", headers=admin)
        assert missing.status_code == 422
        assert missing.json()["errors"][0]["field"] == "header.X-Redstring-Tenant"
        named = client.get("/v1/stats", headers={**admin, "X-Redstring-Tenant": TENANT_A})
        assert named.status_code == 200
        assert named.json()["sources"] == 2


def test_a_revoked_key_opens_nothing() -> None:
    """After revocation (and the remembered window) the key is refused."""
    with serving() as (client, world):
        headers = as_tenant(world, TENANT_A)
        assert client.get("/v1/stats", headers=headers).status_code == 200
        key_id = world.keys[TENANT_A][4:16]
        client.portal.call(world.service.keys.revoke, key_id)  # type: ignore[union-attr]
        assert client.get("/v1/stats", headers=headers).status_code == 401


def test_validation_names_the_field_and_malformed_json_is_a_400() -> None:
    """A wrong type is a 422 naming body.k; broken JSON and bad UTF-8 are 400s."""
    with serving() as (client, world):
        headers = as_tenant(world, TENANT_A)
        wrong = client.post("/v1/query", json={"text": "x", "k": "many"}, headers=headers)
        assert wrong.status_code == 422
        assert [item["field"] for item in wrong.json()["errors"]] == ["body.k"]
        broken = client.post(
            "/v1/query",
            content=b'{"text": ',
            headers={**headers, "Content-Type": "application/json"},
        )
        assert broken.status_code == 400
        latin = client.post(
            "/v1/query",
            content='{"text": "caf\xe9"}'.encode("latin-1"),
            headers={**headers, "Content-Type": "application/json"},
        )
        assert latin.status_code == 400


def test_limits_refuse_long_queries_big_pages_big_bodies_and_big_batches() -> None:
    """Each limit answers 413 or 422 naming its field, and writes nothing."""
    limits = Limits(max_query_chars=20, max_page_size=5, max_documents_per_batch=2)
    with serving(limits=limits) as (client, world):
        headers = as_tenant(world, TENANT_A)
        long = client.post("/v1/query", json={"text": "x" * 21}, headers=headers)
        assert long.status_code == 422
        assert long.json()["errors"][0]["field"] == "body.text"
        page = client.get("/v1/sources?limit=6", headers=headers)
        assert page.status_code == 422
        assert page.json()["errors"][0]["field"] == "query.limit"
        batch = {"documents": [{"source": f"s{i}", "text": "Eli Stone."} for i in range(3)]}
        many = client.post("/v1/documents/batch", json=batch, headers=headers)
        assert many.status_code == 422
        assert many.json()["errors"][0]["field"] == "body.documents"
        huge = client.post(
            "/v1/documents",
            json={"source": "huge", "text": "x" * (11 * 1024 * 1024)},
            headers=headers,
        )
        assert huge.status_code == 413
        assert client.get("/v1/stats", headers=headers).json()["sources"] == 2


def test_a_key_over_its_rate_gets_429_with_retry_after() -> None:
    """The third request in the window is refused, with how long to wait."""
    with serving(limits=Limits(requests_per_window=2, window_seconds=30)) as (client, world):
        headers = as_tenant(world, TENANT_A)
        assert client.get("/v1/stats", headers=headers).status_code == 200
        assert client.get("/v1/stats", headers=headers).status_code == 200
        refused = client.get("/v1/stats", headers=headers)
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["Retry-After"]) <= 30
        assert refused.json()["status"] == 429


def test_an_uploaded_file_is_ingested_under_its_bare_name() -> None:
    """A path in the upload's file name is dropped; binary junk is a 422 that writes nothing."""
    with serving() as (client, world):
        headers = as_tenant(world, TENANT_A)
        sent = client.post(
            "/v1/documents/file",
            files={"file": ("../../etc/eli.txt", b"Eli Stone works for Northwind.", "text/plain")},
            headers=headers,
        )
        assert sent.status_code == 200, sent.text
        assert sent.json()["source_id"] == "eli.txt"
        junk = client.post(
            "/v1/documents/file",
            files={"file": ("junk.txt", bytes(range(256)), "text/plain")},
            headers=headers,
        )
        assert junk.status_code == 422
        assert junk.json()["errors"][0]["field"] == "body.file"
        assert client.get("/v1/stats", headers=headers).json()["sources"] == 3


def test_a_batch_runs_as_a_job_with_progress() -> None:
    """202 with a job id; the job finishes with one outcome per document."""
    with serving() as (client, world):
        headers = as_tenant(world, TENANT_A)
        batch = {
            "documents": [
                {"source": "j/1.md", "text": "Eli Stone works for Harbor Bank."},
                {"source": "j/2.md", "text": "Farah Nasser works for Northwind."},
            ]
        }
        accepted = client.post("/v1/documents/batch", json=batch, headers=headers)
        assert accepted.status_code == 202
        job = finished_job(client, headers, accepted.json())
        assert (job["done"], job["total"]) == (2, 2)
        assert [item["source_id"] for item in job["result"]["documents"]] == ["j/1.md", "j/2.md"]


def test_uploaded_files_are_ingested_by_one_job() -> None:
    """Several files in one request: read first (a bad one refuses them all), then a job."""
    with serving() as (client, world):
        headers = as_tenant(world, TENANT_A)
        files = [
            ("files", ("dir/eli.txt", b"Eli Stone works for Harbor Bank.", "text/plain")),
            ("files", ("farah.md", b"Farah Nasser works for Northwind.", "text/markdown")),
        ]
        accepted = client.post("/v1/documents/files", files=files, headers=headers)
        assert accepted.status_code == 202, accepted.text
        job = finished_job(client, headers, accepted.json())
        assert job["state"] == "succeeded", job
        assert [item["source_id"] for item in job["result"]["documents"]] == [
            "eli.txt",
            "farah.md",
        ]
        bad = [*files, ("files", ("sheet.xlsx", b"PK\x03\x04", "application/zip"))]
        refused = client.post("/v1/documents/files", files=bad, headers=headers)
        assert refused.status_code == 422
        assert refused.json()["errors"][0]["field"] == "body.files.2"
        twice = [files[0], files[0]]
        refused = client.post("/v1/documents/files", files=twice, headers=headers)
        assert refused.json()["errors"][0]["field"] == "body.files.1"
        assert client.get("/v1/stats", headers=headers).json()["sources"] == 4


def test_import_is_a_job_and_a_bad_line_is_a_422_naming_it() -> None:
    """JSON Lines in, a job out; a malformed record is refused before any job exists."""
    with serving() as (client, world):
        headers = {**as_tenant(world, TENANT_A), "Content-Type": "application/x-ndjson"}
        good = (
            '{"kind": "entity", "ref": "g", "type": "Person", "name": "Grace Hopper"}\n'
            '{"kind": "entity", "ref": "n", "type": "Organization", "name": "Navy"}\n'
            '{"kind": "relationship", "subject": "g", "type": "WORKS_FOR", "object": "n"}\n'
        )
        accepted = client.post("/v1/import", content=good.encode(), headers=headers)
        assert accepted.status_code == 202, accepted.text
        bad = client.post("/v1/import", content=b'{"kind": "entity"}\n', headers=headers)
        assert bad.status_code == 422
        assert "record 1" in bad.json()["detail"]
        assert "ref" in bad.json()["detail"]


def test_export_serves_json_graphml_and_html() -> None:
    """Each format with its media type; an unknown format is a 422 naming query.format."""
    with serving() as (client, world):
        headers = as_tenant(world, TENANT_A)
        as_json = client.get("/v1/export", headers=headers)
        assert as_json.status_code == 200
        assert as_json.json()["tenant_id"] == TENANT_A
        graphml = client.get("/v1/export?format=graphml", headers=headers)
        assert graphml.headers["content-type"].startswith("application/graphml+xml")
        html = client.get("/v1/export?format=html", headers=headers)
        assert html.headers["content-type"].startswith("text/html")
        wrong = client.get("/v1/export?format=csv", headers=headers)
        assert wrong.status_code == 422
        assert wrong.json()["errors"][0]["field"] == "query.format"


def test_readiness_checks_every_backend() -> None:
    """The probe lists each store, the cache and the key store, all ok."""
    with serving() as (client, _):
        ready = client.get("/v1/ready")
        assert ready.status_code == 200
        assert set(ready.json()["checks"]) >= {"graph", "vectors", "passages", "events", "cache"}


def test_readiness_is_503_naming_the_backend_that_fails() -> None:
    """A cache that cannot be reached makes the server not ready, and says so."""
    from redstring.cache.adapters.redis import RedisCache

    with serving() as (client, world):
        dead = RedisCache.from_url("redis://127.0.0.1:1/0")
        world.service.cache = dead
        refused = client.get("/v1/ready")
        client.portal.call(dead.close)  # type: ignore[union-attr]
    assert refused.status_code == 503
    assert refused.json()["detail"].startswith("cache: failed")


def test_the_body_limit_comes_from_the_service_limits() -> None:
    """A body over max_body_bytes is a 413 before any handler reads it."""
    with serving(limits=Limits(max_body_bytes=1_000)) as (client, world):
        headers = as_tenant(world, TENANT_A)
        big = client.post(
            "/v1/documents", json={"source": "s", "text": "x" * 2_000}, headers=headers
        )
        assert big.status_code == 413
        small = client.post(
            "/v1/documents", json={"source": "s", "text": "Eli Stone."}, headers=headers
        )
        assert small.status_code == 200


def test_merge_review_through_the_api() -> None:
    """Merge two people, see it listed and the alias resolve, unmerge, and a second merge
    of the pair (kept apart) or of different types is a 409."""
    with serving() as (client, world):
        headers = as_tenant(world, TENANT_A)
        entities = client.get("/v1/export", headers=headers).json()["entities"]
        ids = {item["entity"]["name"]: item["entity"]["id"] for item in entities}
        keep, absorb = ids["Amara Okafor"], ids["Bruno Diaz"]
        merged = client.post("/v1/merges", json={"keep": keep, "absorb": absorb}, headers=headers)
        assert merged.status_code == 200, merged.text
        assert merged.json() == {"kept": keep, "alias": absorb}
        listed = client.get("/v1/merges", headers=headers).json()
        assert [(m["winner_id"], m["loser_id"]) for m in listed["items"]] == [(keep, absorb)]
        alias = client.get(f"/v1/entities/{absorb}", headers=headers).json()
        assert alias["entity"]["id"] == keep
        assert [a["alias_id"] for a in alias["aliases"]] == [absorb]
        restored = client.post("/v1/unmerge", json={"alias": absorb}, headers=headers)
        assert restored.json() == {"restored": absorb}
        again = client.post("/v1/merges", json={"keep": keep, "absorb": absorb}, headers=headers)
        assert again.status_code == 409
        assert again.json()["type"] == "urn:redstring:problem:conflict"
        kinds = client.post(
            "/v1/merges", json={"keep": keep, "absorb": ids["Okafor Labs"]}, headers=headers
        )
        assert kinds.status_code == 409
        matches = client.get("/v1/possible-matches", headers=headers)
        assert matches.status_code == 200
        assert matches.json()["total"] == len(matches.json()["items"])
