"""Transaction-level advisory locks, the one way the PostgreSQL adapters serialise writers.

A lock is named by text and hashed to PostgreSQL's 64-bit lock space; it is released when
the transaction ends, so an adapter never unlocks by hand and a failed write cannot leave a
lock behind.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SCHEMA_LOCK", "lock_for_transaction"]

SCHEMA_LOCK = "redstring"
"""Every adapter's ``ensure_schema`` takes this one lock: concurrent ``CREATE ... IF NOT
EXISTS`` statements can still collide in the catalogue, even for different tables."""


async def lock_for_transaction(conn: Any, name: str, *, shared: bool = False) -> None:
    """Take the advisory lock ``name`` until ``conn``'s transaction ends.

    ``shared=True`` takes it in shared mode: shared holders do not wait for each other, only
    for an exclusive holder. Must run inside a transaction.
    """
    function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
    await conn.execute(f"SELECT {function}(hashtextextended($1, 0))", name)
