"""``redstring serve``: the HTTP API and the MCP server over one ``KnowledgeGraph``.

Both are tenant-scoped by API key (:mod:`redstring.serve.keys`): a tenant key sees its own
tenant and nothing else. Build a :class:`Service` over an open graph, then
:func:`create_app` (HTTP) or :func:`create_mcp_server` (MCP). The command line
(``redstring serve``, ``redstring keys``) does that from its settings.
"""

from __future__ import annotations

from redstring.serve.http import create_app
from redstring.serve.jobs import InMemoryJobStore, Job, JobRunner, JobStore
from redstring.serve.keys import ApiKey, InMemoryKeyStore, KeyStore, Principal, UnknownKeyError
from redstring.serve.limits import Limits, RateLimiter
from redstring.serve.service import EntityView, Service, entity_view

__all__ = [
    "ApiKey",
    "EntityView",
    "InMemoryJobStore",
    "InMemoryKeyStore",
    "Job",
    "JobRunner",
    "JobStore",
    "KeyStore",
    "Limits",
    "Principal",
    "RateLimiter",
    "Service",
    "UnknownKeyError",
    "create_app",
    "entity_view",
]
