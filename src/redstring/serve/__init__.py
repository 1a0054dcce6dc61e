"""``redstring serve``: the HTTP API and the MCP server over one ``KnowledgeGraph``.

Both are tenant-scoped by API key (:mod:`redstring.serve.keys`): a tenant key sees its own
tenant and nothing else. Build a :class:`Service` over an open graph, then
:func:`create_app` (HTTP) or :func:`create_mcp_server` (MCP). The command line
(``redstring serve``, ``redstring keys``) does that from its settings.

Names load on first use, so the key, job and erasure modules import without the web
frameworks (``redstring delete-tenant`` erases keys and jobs with only the ``cli`` extra).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from redstring.serve.erasure import TenantErasure
    from redstring.serve.http import create_app
    from redstring.serve.jobs import InMemoryJobStore, Job, JobRunner, JobStore
    from redstring.serve.keys import (
        ApiKey,
        InMemoryKeyStore,
        KeyStore,
        Principal,
        UnknownKeyError,
    )
    from redstring.serve.limits import Limits, RateLimiter
    from redstring.serve.service import EntityView, Service, entity_view
    from redstring.serve.signal import InMemorySignal, Signal

__all__ = [
    "ApiKey",
    "EntityView",
    "InMemoryJobStore",
    "InMemoryKeyStore",
    "InMemorySignal",
    "Job",
    "JobRunner",
    "JobStore",
    "KeyStore",
    "Limits",
    "Principal",
    "RateLimiter",
    "Service",
    "Signal",
    "TenantErasure",
    "UnknownKeyError",
    "create_app",
    "entity_view",
]

_HOMES = {
    "ApiKey": "keys",
    "EntityView": "service",
    "InMemoryJobStore": "jobs",
    "InMemoryKeyStore": "keys",
    "InMemorySignal": "signal",
    "Job": "jobs",
    "JobRunner": "jobs",
    "JobStore": "jobs",
    "KeyStore": "keys",
    "Limits": "limits",
    "Principal": "keys",
    "RateLimiter": "limits",
    "Service": "service",
    "Signal": "signal",
    "TenantErasure": "erasure",
    "UnknownKeyError": "keys",
    "create_app": "http",
    "entity_view": "service",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'redstring.serve' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"redstring.serve.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
