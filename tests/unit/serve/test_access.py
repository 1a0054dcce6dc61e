"""Who the server lets in: budgets per key id first, per address second (issue 26,
finding 5; ADR 0042), and revocation that acts on the next request.

The gate is :meth:`Service.admit`, which both the HTTP API and the MCP server call; the
addresses here are what the connection (or a believed proxy) says. A counting hasher shows
which refusals cost no hash.
"""

from __future__ import annotations

from typing import Any

import pytest
from argon2 import PasswordHasher

from redstring.serve import Limits
from redstring.serve.service import AccessRefusedError, Service
from tests.serve_world import TENANT_A, open_world

LIMITS = Limits(failed_keys_per_window=3, window_seconds=30)
UNKNOWN = "rsk_0123456789ab_guess"


class CountingHasher(PasswordHasher):
    """The cheap test profile, counting every verification."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8192, parallelism=1)
        self.verified = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verified += 1
        return super().verify(hash, password)


async def _status(service: Service, key: str, address: str) -> Any:
    try:
        await service.admit(key, address)
    except AccessRefusedError as refused:
        return refused.status
    return 200


async def test_an_address_sending_unknown_keys_is_refused_before_the_decoy_hash() -> None:
    """Past the budget, a key nobody has gets 429 at once (no hash spent on it)."""
    hasher = CountingHasher()
    async with open_world(limits=LIMITS, hasher=hasher) as world:
        statuses = [await _status(world.service, UNKNOWN, "10.0.0.1") for _ in range(3)]
        assert statuses == [401, 401, 401]
        spent = hasher.verified
        assert await _status(world.service, UNKNOWN, "10.0.0.1") == 429
        assert hasher.verified == spent
        assert await _status(world.service, UNKNOWN, "10.0.0.2") == 401


async def test_a_valid_key_from_a_locked_out_address_is_still_admitted() -> None:
    """One client behind a shared address cannot lock its neighbours out."""
    async with open_world(limits=LIMITS) as world:
        for _ in range(4):
            await _status(world.service, UNKNOWN, "192.0.2.7")
        assert await _status(world.service, UNKNOWN, "192.0.2.7") == 429
        assert await _status(world.service, world.keys[TENANT_A], "192.0.2.7") == 200


async def test_a_key_id_whose_secrets_keep_failing_is_refused_before_hashing() -> None:
    """Wrong secrets for a real key id count against that id from any address; past the
    budget its secrets are not hashed, while the holder this process verified lately goes on."""
    hasher = CountingHasher()
    async with open_world(limits=LIMITS, hasher=hasher) as world:
        good = world.keys[TENANT_A]
        assert await _status(world.service, good, "198.51.100.1") == 200
        wrong = good[:-2] + ("xx" if not good.endswith("xx") else "yy")
        statuses = [await _status(world.service, wrong, f"203.0.113.{n}") for n in range(3)]
        assert statuses == [401, 401, 401]
        spent = hasher.verified
        assert await _status(world.service, wrong, "203.0.113.99") == 429
        assert hasher.verified == spent
        assert await _status(world.service, good, "198.51.100.1") == 200


@pytest.mark.parametrize("revoke", ["revoke", "delete"])
async def test_a_revoked_or_deleted_key_is_refused_on_its_next_request(revoke: str) -> None:
    """The row is read on every request: no remembered window outlives a revocation."""
    async with open_world() as world:
        key = world.keys[TENANT_A]
        assert await _status(world.service, key, "127.0.0.1") == 200
        if revoke == "revoke":
            await world.service.keys.revoke(key[4:16])
        else:
            await world.service.keys.delete_tenant(TENANT_A)  # type: ignore[arg-type]
        assert await _status(world.service, key, "127.0.0.1") == 401
