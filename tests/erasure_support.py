"""A tenant that leaves traces, and the searches that must find none after it is erased.

``seed_marked_tenant`` fills a tenant through the service with names, source ids, metadata
and text that appear nowhere else (its ``markers``), runs a query (a rate-limit window and a
verified secret), and leaves a job (its row holds the input text). ``strings_in`` walks any
object graph (a service and every store under it) and returns every string it holds, for the
in-process search; the PostgreSQL and Redis searches live with their tests.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from redstring.serve.service import Service

MARKED_DOCUMENT = (
    "Zyqua Vorlax works for Quillborne Trust. Zyqua Vorlax lives in Lagos.\n\n"
    "Bruno Diaz works for Northwind."
)


def token_of(tenant: str) -> str:
    """The random part of a marked tenant's name: in its text, source ids and metadata, so
    a run's traces are its own (a failed run's leftovers never match)."""
    return tenant.rsplit("-", 1)[-1]


def marked_document(tenant: str) -> str:
    """The document a marked tenant holds, naming its token."""
    return f"{MARKED_DOCUMENT}\n\nFile reference Ref{token_of(tenant)} of Quillborne Trust."


@dataclass(frozen=True)
class MarkedTenant:
    """The tenant, its key, and the strings that only it holds."""

    tenant: str
    key: str
    markers: tuple[str, ...]


def new_marked_tenant_name() -> str:
    return f"erase-{uuid.uuid4().hex[:10]}"


def markers_of(tenant: str, key: str) -> tuple[str, ...]:
    """What must be gone: the tenant id (every table row of a tenant names it), its key id
    and secret (cache keys name the id), and its token (in its text, ids and metadata)."""
    return (tenant, key[4:16], key[17:], token_of(tenant))


def strings_in(root: object, *, limit: int = 2_000_000) -> Iterator[str]:
    """Every string reachable from ``root`` through dicts, sequences, sets, dataclass and
    pydantic fields and redstring objects' attributes (keys included), each object once."""
    seen: set[int] = set()
    stack: list[Any] = [root]
    while stack and len(seen) < limit:
        item = stack.pop()
        if isinstance(item, str):
            yield item
            continue
        if isinstance(item, bytes | bytearray):
            yield bytes(item).decode("utf-8", "replace")
            continue
        if id(item) in seen or isinstance(item, int | float | bool | enum.Enum) or item is None:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif isinstance(item, BaseModel):
            stack.extend(item.__dict__.values())
        elif type(item).__module__.startswith(("redstring.", "tests.")):
            stack.extend(getattr(item, "__dict__", {}).values())
            for name in getattr(type(item), "__slots__", ()):
                stack.append(getattr(item, name, None))


def traces(root: object, markers: tuple[str, ...]) -> list[str]:
    """The strings under ``root`` that contain a marker (at most ten, shortened)."""
    found = []
    for text in strings_in(root):
        if any(marker in text for marker in markers):
            found.append(text[:120])
            if len(found) == 10:
                break
    return found


async def seed_marked_tenant(service: Service, tenant: str) -> MarkedTenant:
    """A tenant with a document, an import, a query, a finished job and a second key."""
    _, key = await service.keys.create(tenant=tenant, name="qzmeta key")
    await service.keys.create(tenant=tenant, name="qzmeta second key")
    principal = await service.admit(key, "127.0.0.1")
    assert principal.tenant == tenant
    graph = service.graph
    token = token_of(tenant)
    await graph.ingest(
        tenant, f"qz-{token}.md", marked_document(tenant), metadata={"qzmeta": f"m-{token}"}
    )
    await graph.import_records(
        tenant,
        [{"kind": "entity", "ref": "q1", "type": "Person", "name": f"Quillborne {token}"}],
    )
    await graph.query(tenant, "Where does Zyqua Vorlax work?")
    job = await service.jobs.submit(
        principal.tenant,
        "ingest",
        {"documents": [{"source": f"qz-job-{token}.md", "text": f"Zyqua Vorlax met {token}."}]},
        total=1,
    )
    await service.jobs.wait()
    assert (await service.jobs.store.get(principal.tenant, job.job_id)) is not None
    return MarkedTenant(tenant=tenant, key=key, markers=markers_of(tenant, key))
