"""Erasing a tenant leaves nothing of it anywhere in the process (issue 26, finding 2).

On the in-memory graph every store is an object of this process, so "nothing anywhere" is a
search of every string reachable from the service: stores, caches, key and job stores,
histories, locks and limiters. The PostgreSQL and Redis search, with two server processes,
is in tests/integration/postgres/test_erasure_on_postgres.py.
"""

from __future__ import annotations

from redstring.serve.keys import UnknownKeyError
from tests.erasure_support import new_marked_tenant_name, seed_marked_tenant, traces
from tests.serve_world import DOCS_A, TENANT_A, as_tenant, finished_job, open_world, serving


async def test_after_an_erasure_nothing_in_the_process_holds_the_tenant() -> None:
    """Graph, log, keys, jobs, cache windows, histories, verified secrets: all gone; the
    other tenants keep everything."""
    async with open_world() as world:
        service = world.service
        marked = await seed_marked_tenant(service, new_marked_tenant_name())
        assert traces(service, marked.markers)  # the search can see the tenant
        a_before = (await service.graph.export(TENANT_A)).model_dump()

        erased = await service.delete_tenant(marked.tenant)  # type: ignore[arg-type]

        assert (erased.keys, erased.jobs) == (2, 1)
        assert erased.events > 0
        assert traces(service, marked.markers) == []
        assert (await service.graph.export(TENANT_A)).model_dump() == a_before
        again = await service.delete_tenant(marked.tenant)  # type: ignore[arg-type]
        assert (again.events, again.keys, again.jobs) == (0, 0, 0)


def test_the_admin_endpoint_erases_and_the_server_answers_as_if_it_never_existed() -> None:
    """``DELETE /v1/tenants/{t}``: admin keys only; afterwards the tenant's keys are
    refused, its job is a miss and an admin sees an empty tenant."""
    with serving() as (client, world):
        admin = as_tenant(world, "admin")
        a_headers = as_tenant(world, TENANT_A)
        job = client.post("/v1/rebuild", headers=a_headers).json()
        assert finished_job(client, a_headers, job)["state"] == "succeeded"
        assert client.delete(f"/v1/tenants/{TENANT_A}", headers=a_headers).status_code == 403

        gone = client.delete(f"/v1/tenants/{TENANT_A}", headers=admin)
        assert gone.status_code == 200, gone.text
        assert (gone.json()["keys"], gone.json()["jobs"]) == (1, 1)
        assert client.get("/v1/stats", headers=a_headers).status_code == 401
        named = {**admin, "X-Redstring-Tenant": TENANT_A}
        stats = client.get("/v1/stats", headers=named).json()
        assert (stats["sources"], stats["entities"], stats["events"]) == (0, 0, 0)
        assert client.get(f"/v1/jobs/{job['job_id']}", headers=named).status_code == 404
        assert client.get("/v1/sources", headers=named).json()["total"] == 0
        exported = client.get("/v1/export", headers=named).text
        assert not any(name in exported for name in ("Okafor", *DOCS_A))
        bad = client.delete("/v1/tenants/no%20spaces", headers=admin)
        assert bad.status_code == 422


async def test_an_erased_tenants_keys_cannot_be_revoked_or_listed() -> None:
    """Deleted keys are rows gone, not rows revoked."""
    async with open_world() as world:
        key_id = world.keys[TENANT_A][4:16]
        await world.service.delete_tenant(TENANT_A)  # type: ignore[arg-type]
        assert await world.service.keys.list_keys(TENANT_A) == []
        try:
            await world.service.keys.revoke(key_id)
        except UnknownKeyError:
            pass
        else:
            raise AssertionError("a deleted key could still be revoked")
