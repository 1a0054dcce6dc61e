"""API keys: each one opens exactly one tenant (or, with admin scope, any), stored hashed.

A key reads ``rsk_<key id>_<secret>``. The key id (12 hex characters) is public: it names the
key in ``redstring keys list`` and in logs. The secret is 256 random bits, shown once by
:meth:`KeyStore.create` and stored only as an Argon2id hash (argon2-cffi, at OWASP's minimum
profile: 19 MiB, two passes). A verified key is remembered in this process for
``remember_seconds`` (by the SHA-256 of the whole key), so a busy client costs one hash a
window, not one a request; a revocation therefore takes effect within that window in every
server process.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import TenantId, tenant_id

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
    return PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)


def _default_hasher() -> PasswordHasher:
    return PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)


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
    """Create, list, revoke and check API keys; subclasses keep the rows.

    Rows hold the key id, the tenant (``None`` for admin), a name, the Argon2id hash and the
    creation and revocation times. ``authenticate`` never raises for a bad key: it returns
    ``None`` for a malformed, unknown, revoked or wrong key alike, in no telling order.
    """

    def __init__(
        self, *, hasher: PasswordHasher | None = None, remember_seconds: float = 5.0
    ) -> None:
        self._hasher = hasher or _default_hasher()
        self._remember_seconds = remember_seconds
        self._verified: dict[bytes, tuple[float, Principal]] = {}
        self._dummy_hash: str | None = None

    async def create(self, *, tenant: str | None, name: str = "") -> tuple[ApiKey, str]:
        """A new key for ``tenant`` (``None``: admin scope); returns it and the secret key.

        The secret key is returned only here: the store keeps its hash.
        """
        scoped = None if tenant is None else tenant_id(tenant)
        key_id = secrets.token_hex(_ID_CHARS // 2)
        secret = secrets.token_urlsafe(32)
        record = ApiKey(key_id=key_id, tenant=scoped, name=name, created_at=datetime.now(UTC))
        await self._insert(record, self._hasher.hash(secret))
        return record, f"{_PREFIX}{key_id}_{secret}"

    async def revoke(self, key_id: str) -> ApiKey:
        """Revoke the key; a revoked key authenticates nothing. Idempotent.

        Raises :class:`UnknownKeyError` naming ``key_id`` when no such key exists.
        """
        revoked = await self._revoke(key_id, datetime.now(UTC))
        if revoked is None:
            raise UnknownKeyError(f"no API key with id {key_id!r} (see `redstring keys list`)")
        self._verified.clear()
        return revoked

    async def list_keys(self, tenant: str | None = None) -> list[ApiKey]:
        """Every key (or only ``tenant``'s), oldest first, revoked ones included."""
        keys = await self._rows()
        if tenant is not None:
            keys = [key for key in keys if key.tenant == tenant]
        return sorted(keys, key=lambda key: (key.created_at, key.key_id))

    async def authenticate(self, key: str) -> Principal | None:
        """The principal of a valid, unrevoked ``key``; ``None`` for anything else."""
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
        now = time.monotonic()
        remembered = self._verified.get(digest)
        if remembered is not None and remembered[0] > now:
            return remembered[1]
        parts = split_key(key)
        if parts is None:
            return None
        found = await self._row(parts[0])
        if found is None:
            # Verify anyway, so an unknown id takes as long as a wrong secret.
            if self._dummy_hash is None:
                self._dummy_hash = self._hasher.hash(secrets.token_urlsafe(16))
            self._check(self._dummy_hash, parts[1])
            return None
        record, stored_hash = found
        if record.revoked_at is not None or not self._check(stored_hash, parts[1]):
            return None
        if len(self._verified) > 10_000:
            self._verified.clear()
        self._verified[digest] = (now + self._remember_seconds, record.principal)
        return record.principal

    def _check(self, stored_hash: str, secret: str) -> bool:
        try:
            return self._hasher.verify(stored_hash, secret)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

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


class InMemoryKeyStore(KeyStore):
    """Keys held in this process (for the in-memory graph and tests)."""

    def __init__(
        self, *, hasher: PasswordHasher | None = None, remember_seconds: float = 5.0
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
