"""API keys: each one opens exactly one tenant (or, with admin scope, any), stored hashed.

A key reads ``rsk_<key id>_<secret>``. The key id (12 hex characters) is public: it names the
key in ``redstring keys list`` and in logs. The secret is 256 random bits, shown once by
:meth:`KeyStore.create` and stored only as an Argon2id hash (argon2-cffi, at OWASP's minimum
profile: 19 MiB, two passes), computed in a worker thread so the event loop never waits on
it. Every request reads its key's row (one primary-key lookup), so a revocation or a deleted
tenant refuses the key at once in every server process (ADR 0042). What a process remembers
for ``remember_seconds`` is only that the secret matched the stored hash (by the SHA-256 of
the whole key), so a busy client costs one hash a window, not one a request.

argon2 is imported only when a secret is hashed or checked, so listing, revoking and
erasing keys need only the database (``redstring delete-tenant`` runs without the ``serve``
extra).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import TenantId, tenant_id

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = [
    "ApiKey",
    "InMemoryKeyStore",
    "KeyStore",
    "Principal",
    "UnknownKeyError",
    "fast_hasher",
]

_PREFIX = "rsk_"
_ID_CHARS = 12


class UnknownKeyError(InvalidArgumentError):
    """A key id names no key of this store."""


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: a key, and the one tenant it opens (``None`` for admin keys)."""

    key_id: str
    tenant: TenantId | None

    @property
    def admin(self) -> bool:
        """True for a key that may act in any tenant it names."""
        return self.tenant is None


@dataclass(frozen=True)
class ApiKey:
    """A stored key, without its secret: what ``keys list`` shows."""

    key_id: str
    tenant: TenantId | None
    name: str
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def admin(self) -> bool:
        """True for an admin-scope key (no tenant of its own)."""
        return self.tenant is None

    @property
    def principal(self) -> Principal:
        """The principal a request made with this key acts as."""
        return Principal(key_id=self.key_id, tenant=self.tenant)


def fast_hasher() -> PasswordHasher:
    """A cheap Argon2id profile for tests only (one pass over 8 MiB)."""
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)


def _default_hasher() -> PasswordHasher:
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)


def _matches(hasher: PasswordHasher, stored_hash: str, secret: str) -> bool:
    from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

    try:
        return hasher.verify(stored_hash, secret)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def split_key(key: str) -> tuple[str, str] | None:
    """``(key id, secret)`` of a well-formed key, or ``None``."""
    if not key.startswith(_PREFIX) or len(key) < len(_PREFIX) + _ID_CHARS + 2:
        return None
    key_id = key[len(_PREFIX) : len(_PREFIX) + _ID_CHARS]
    separator = key[len(_PREFIX) + _ID_CHARS]
    secret = key[len(_PREFIX) + _ID_CHARS + 1 :]
    if separator != "_" or not all(c in "0123456789abcdef" for c in key_id):
        return None
    return key_id, secret


class KeyStore(ABC):
    """Create, list, revoke, erase and check API keys; subclasses keep the rows.

    Rows hold the key id, the tenant (``None`` for admin), a name, the Argon2id hash and the
    creation and revocation times. ``authenticate`` never raises for a bad key: it returns
    ``None`` for a malformed, unknown, revoked or wrong key alike, in no telling order.
    """

    def __init__(
        self, *, hasher: PasswordHasher | None = None, remember_seconds: float = 300.0
    ) -> None:
        self._given_hasher = hasher
        self._remember_seconds = remember_seconds
        self._verified: dict[bytes, tuple[float, Principal]] = {}
        self._dummy_hash: str | None = None

    @property
    def _hasher(self) -> PasswordHasher:
        if self._given_hasher is None:
            self._given_hasher = _default_hasher()
        return self._given_hasher

    async def create(self, *, tenant: str | None, name: str = "") -> tuple[ApiKey, str]:
        """A new key for ``tenant`` (``None``: admin scope); returns it and the secret key.

        The secret key is returned only here: the store keeps its hash.
        """
        scoped = None if tenant is None else tenant_id(tenant)
        key_id = secrets.token_hex(_ID_CHARS // 2)
        secret = secrets.token_urlsafe(32)
        record = ApiKey(key_id=key_id, tenant=scoped, name=name, created_at=datetime.now(UTC))
        key_hash = await asyncio.to_thread(self._hasher.hash, secret)
        await self._insert(record, key_hash)
        return record, f"{_PREFIX}{key_id}_{secret}"

    async def revoke(self, key_id: str) -> ApiKey:
        """Revoke the key; a revoked key authenticates nothing, at once. Idempotent.

        Raises :class:`UnknownKeyError` naming ``key_id`` when no such key exists.
        """
        revoked = await self._revoke(key_id, datetime.now(UTC))
        if revoked is None:
            raise UnknownKeyError(f"no API key with id {key_id!r} (see `redstring keys list`)")
        self.forget_remembered()
        return revoked

    async def delete_tenant(self, tenant: TenantId) -> list[str]:
        """Delete every key of ``tenant`` (rows and all); returns their ids, sorted."""
        deleted = sorted(await self._delete_tenant(tenant))
        self.forget_remembered()
        return deleted

    async def list_keys(self, tenant: str | None = None) -> list[ApiKey]:
        """Every key (or only ``tenant``'s), oldest first, revoked ones included."""
        keys = await self._rows()
        if tenant is not None:
            keys = [key for key in keys if key.tenant == tenant]
        return sorted(keys, key=lambda key: (key.created_at, key.key_id))

    def forget_remembered(self) -> None:
        """Forget which secrets this process verified (the next use of each hashes again)."""
        self._verified.clear()

    async def authenticate(self, key: str) -> Principal | None:
        """The principal of a valid, unrevoked ``key``; ``None`` for anything else."""
        parts = split_key(key)
        if parts is None:
            return None
        found = await self.row(parts[0])
        if found is None:
            await self.verify_nothing(parts[1])
            return None
        return await self.verify(key, *found)

    # -- the steps of authenticate, for callers that budget failures between them ----------

    async def row(self, key_id: str) -> tuple[ApiKey, str] | None:
        """The key's record and hash when it exists and is not revoked, else ``None``."""
        found = await self._row(key_id)
        if found is None or found[0].revoked_at is not None:
            return None
        return found

    def remembered(self, key: str, record: ApiKey) -> Principal | None:
        """The principal when this process verified exactly ``key`` for ``record`` lately."""
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
        remembered = self._verified.get(digest)
        if remembered is None or remembered[0] <= time.monotonic():
            return None
        return remembered[1] if remembered[1] == record.principal else None

    async def verify(self, key: str, record: ApiKey, stored_hash: str) -> Principal | None:
        """The principal if ``key``'s secret matches ``stored_hash`` (remembered or hashed)."""
        known = self.remembered(key, record)
        if known is not None:
            return known
        parts = split_key(key)
        if parts is None or not await asyncio.to_thread(
            _matches, self._hasher, stored_hash, parts[1]
        ):
            return None
        if len(self._verified) > 10_000:
            self._verified.clear()
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
        self._verified[digest] = (time.monotonic() + self._remember_seconds, record.principal)
        return record.principal

    async def verify_nothing(self, secret: str) -> None:
        """Spend a verification on a key with no row, so an unknown id takes as long as a
        wrong secret."""
        if self._dummy_hash is None:
            self._dummy_hash = await asyncio.to_thread(self._hasher.hash, secrets.token_urlsafe(16))
        await asyncio.to_thread(_matches, self._hasher, self._dummy_hash, secret)

    async def ensure_schema(self) -> None:  # noqa: B027 - optional, a no-op by default
        """Create the storage if missing (nothing for stores without a schema)."""

    async def ping(self) -> None:
        """Raise if the storage cannot be reached (the readiness probe)."""
        await self._row("000000000000")

    @abstractmethod
    async def _insert(self, record: ApiKey, key_hash: str) -> None: ...

    @abstractmethod
    async def _row(self, key_id: str) -> tuple[ApiKey, str] | None: ...

    @abstractmethod
    async def _rows(self) -> list[ApiKey]: ...

    @abstractmethod
    async def _revoke(self, key_id: str, at: datetime) -> ApiKey | None: ...

    @abstractmethod
    async def _delete_tenant(self, tenant: TenantId) -> list[str]: ...


class InMemoryKeyStore(KeyStore):
    """Keys held in this process (for the in-memory graph and tests)."""

    def __init__(
        self, *, hasher: PasswordHasher | None = None, remember_seconds: float = 300.0
    ) -> None:
        super().__init__(hasher=hasher, remember_seconds=remember_seconds)
        self._keys: dict[str, tuple[ApiKey, str]] = {}

    async def _insert(self, record: ApiKey, key_hash: str) -> None:
        self._keys[record.key_id] = (record, key_hash)

    async def _row(self, key_id: str) -> tuple[ApiKey, str] | None:
        return self._keys.get(key_id)

    async def _rows(self) -> list[ApiKey]:
        return [record for record, _ in self._keys.values()]

    async def _revoke(self, key_id: str, at: datetime) -> ApiKey | None:
        found = self._keys.get(key_id)
        if found is None:
            return None
        record, key_hash = found
        if record.revoked_at is None:
            record = ApiKey(
                key_id=record.key_id,
                tenant=record.tenant,
                name=record.name,
                created_at=record.created_at,
                revoked_at=at,
            )
            self._keys[key_id] = (record, key_hash)
        return record

    async def _delete_tenant(self, tenant: TenantId) -> list[str]:
        gone = [key_id for key_id, (record, _) in self._keys.items() if record.tenant == tenant]
        for key_id in gone:
            del self._keys[key_id]
        return gone
