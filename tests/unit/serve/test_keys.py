"""API keys in memory: what authenticates, what does not, and what a listing shows."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from redstring.domain.errors import InvalidArgumentError
from redstring.serve import InMemoryKeyStore, UnknownKeyError
from redstring.serve.keys import fast_hasher


def _store() -> InMemoryKeyStore:
    return InMemoryKeyStore(hasher=fast_hasher(), remember_seconds=0.001)


async def test_a_key_opens_its_tenant_and_an_admin_key_none_of_its_own() -> None:
    """A tenant key's principal is its tenant; an admin key's has none."""
    store = _store()
    _, tenant_key = await store.create(tenant="acme", name="app")
    admin_record, admin_key = await store.create(tenant=None, name="ops")
    tenant = await store.authenticate(tenant_key)
    admin = await store.authenticate(admin_key)
    assert tenant is not None
    assert (tenant.tenant, tenant.admin) == ("acme", False)
    assert admin is not None
    assert (admin.tenant, admin.admin, admin.key_id) == (None, True, admin_record.key_id)


@pytest.mark.parametrize(
    "mangle",
    [
        lambda key: key[:-1] + ("A" if key[-1] != "A" else "B"),  # wrong secret
        lambda key: key.replace("rsk_", "rsx_"),  # wrong scheme
        lambda key: "rsk_" + "0" * 12 + key[16:],  # unknown id, right secret
        lambda key: key[:16],  # no secret
        lambda key: "",
        lambda key: "Bearer " + key,
    ],
)
async def test_anything_but_the_exact_key_is_refused(mangle: Callable[[str], str]) -> None:
    """A changed character, id or prefix authenticates nothing."""
    store = _store()
    _, key = await store.create(tenant="acme")
    assert await store.authenticate(mangle(key)) is None
    assert await store.authenticate(key) is not None


async def test_revocation_refuses_the_key_and_unknown_ids_are_named() -> None:
    """Revoked keys stay listed, with their time; revoking an unknown id raises."""
    store = _store()
    record, key = await store.create(tenant="acme")
    await store.create(tenant="other")
    assert await store.authenticate(key) is not None
    revoked = await store.revoke(record.key_id)
    await asyncio.sleep(0.01)
    assert revoked.revoked_at is not None
    assert await store.authenticate(key) is None
    assert [item.key_id for item in await store.list_keys("acme")] == [record.key_id]
    assert len(await store.list_keys()) == 2
    with pytest.raises(UnknownKeyError, match="no API key with id 'feedfeedfeed'"):
        await store.revoke("feedfeedfeed")


async def test_a_key_for_an_invalid_tenant_is_refused() -> None:
    """The tenant is checked like everywhere else in redstring."""
    with pytest.raises(InvalidArgumentError):
        await _store().create(tenant="no spaces allowed")
