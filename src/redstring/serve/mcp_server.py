"""The MCP server: the tools and resources an agent needs, over the same :class:`Service`.

Tools: ``add_document`` (a long text as a job), ``get_job``, ``search``, ``ask``,
``get_entity`` (with neighbours and sources) and ``delete_source``; resources:
``redstring://schema`` and ``redstring://stats``. Every message is authenticated before
it is handled: over streamable HTTP by the request's ``Authorization: Bearer`` key (admin
keys name the tenant in ``X-Redstring-Tenant``), over stdio by the principal the command
authenticated once at start. A miss is one sentence that repeats only what the caller sent,
the same whether the id is nobody's or another tenant's.
"""

from __future__ import annotations

import contextvars
import json
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST
from starlette.applications import Starlette

import redstring
from redstring.domain.errors import InvalidArgumentError, RedstringError
from redstring.domain.ids import EntityId, TenantId, tenant_id
from redstring.serve.guards import TENANT_HEADER
from redstring.serve.inputs import InvalidInputError, check_input
from redstring.serve.service import AccessRefusedError, Service, entity_view

__all__ = ["create_mcp_server", "mount_mcp"]

_TENANT: contextvars.ContextVar[TenantId] = contextvars.ContextVar("redstring_mcp_tenant")
_KEY_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "redstring_mcp_key_id", default=None
)
"""The tenant key a message came with (``None`` for admin keys and stdio sessions)."""


class _Authenticate(ServerMiddleware[Any]):
    """Resolve each message's tenant (or refuse it) before any handler runs."""

    def __init__(self, service: Service, fixed: TenantId | None) -> None:
        self.service = service
        self.fixed = fixed

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        headers: Mapping[str, str] | None = getattr(ctx.request, "headers", None)
        if headers is None:
            if self.fixed is None:
                raise MCPError(code=INVALID_REQUEST, message="this server has no caller identity")
            tenant, key_id = self.fixed, None
        else:
            address = getattr(getattr(ctx.request, "client", None), "host", None)
            tenant, key_id = await self._tenant(headers, address or "unknown")
        if ctx.method == "tools/call" and ctx.params is not None:
            try:
                check_input(ctx.params.get("arguments") or {}, field="arguments")
            except InvalidInputError as error:
                raise MCPError(code=INVALID_PARAMS, message=str(error)) from None
        token, key_token = _TENANT.set(tenant), _KEY_ID.set(key_id)
        try:
            return await call_next(ctx)
        finally:
            _KEY_ID.reset(key_token)
            _TENANT.reset(token)

    async def _tenant(
        self, headers: Mapping[str, str], address: str
    ) -> tuple[TenantId, str | None]:
        scheme, _, key = (headers.get("authorization") or "").partition(" ")
        try:
            found = await self.service.admit(
                key.strip() if scheme.lower() == "bearer" else None, address
            )
        except AccessRefusedError as refused:
            raise MCPError(code=INVALID_REQUEST, message=refused.detail) from None
        named = headers.get(TENANT_HEADER.lower())
        if found.tenant is not None:
            if named is not None:
                raise MCPError(
                    code=INVALID_REQUEST, message="X-Redstring-Tenant is for admin keys only"
                )
            return found.tenant, found.key_id
        if named is None:
            raise MCPError(code=INVALID_REQUEST, message="an admin key names X-Redstring-Tenant")
        try:
            return tenant_id(named), None
        except InvalidArgumentError as error:
            raise MCPError(code=INVALID_REQUEST, message=str(error)) from error


def _tenant() -> TenantId:
    return _TENANT.get()


def _plain(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json")
    return dumped


def create_mcp_server(service: Service, *, stdio_tenant: str | None = None) -> MCPServer[Any]:
    """The MCP server over ``service``.

    ``stdio_tenant`` is the tenant a stdio session acts in (authenticated by the command that
    starts it); over HTTP each request's key decides, and a server built without it refuses
    messages that carry no HTTP headers.
    """
    fixed = None if stdio_tenant is None else tenant_id(stdio_tenant)
    server: MCPServer[Any] = MCPServer(
        name="redstring",
        version=redstring.__version__,
        instructions=(
            "A tenant's knowledge graph: add documents, search them, ask questions with "
            "citations, look up an entity with its neighbours and sources."
        ),
        middleware=[_Authenticate(service, fixed)],
        log_level="WARNING",
    )
    graph = service.graph
    limits = service.limits

    def _check(text: str, what: str) -> None:
        if len(text) > limits.max_query_chars:
            raise ToolError(f"{what} has {len(text)} characters; at most {limits.max_query_chars}")

    @server.tool()
    async def add_document(source: str, text: str) -> dict[str, Any]:
        """Add (or replace) a document: the source id it is stored under and its text. A long
        text is ingested by a job: the answer is the job (follow it with get_job)."""
        if len(text) > graph.settings.max_document_chars:
            raise ToolError(f"text is over {graph.settings.max_document_chars} characters")
        if len(text) > limits.max_held_document_chars:
            payload = {"source": source, "text": text, "metadata": {}}
            return _plain(await service.jobs.submit(_tenant(), "document", payload, total=1))
        try:
            held = service.ingest_held(_tenant(), source, text, key_id=_KEY_ID.get())
            return _plain(await held)
        except RedstringError as error:
            raise ToolError(str(error)) from error

    @server.tool()
    async def get_job(job_id: str) -> dict[str, Any]:
        """A job of this tenant: its state, progress (done of total) and result or error."""
        found = await service.jobs.store.get(_tenant(), job_id)
        if found is None:
            raise ToolError(f"no job {job_id!r}")
        return _plain(found)

    @server.tool()
    async def search(query: str, k: int = 10) -> dict[str, Any]:
        """Passages, entities and relationships relevant to ``query``, ranked and cited."""
        _check(query, "query")
        if not 1 <= k <= limits.max_page_size:
            raise ToolError(f"k must be between 1 and {limits.max_page_size}")
        try:
            return _plain(await graph.query(_tenant(), query, k=k))
        except RedstringError as error:
            raise ToolError(str(error)) from error

    @server.tool()
    async def ask(question: str) -> dict[str, Any]:
        """An answer from the documents, with the passages it cites."""
        _check(question, "question")
        try:
            answer = await graph.ask(_tenant(), question)
        except RedstringError as error:
            raise ToolError(str(error)) from error
        return {
            "text": answer.text,
            "kind": answer.kind,
            "citations": [_plain(citation) for citation in answer.citations],
        }

    @server.tool()
    async def get_entity(entity_id: str) -> dict[str, Any]:
        """An entity by id, with its aliases, neighbours and the sources that mention it."""
        try:
            parsed = EntityId(uuid.UUID(entity_id))
        except ValueError as error:
            raise ToolError(f"{entity_id!r} is not an entity id (a UUID)") from error
        found = await entity_view(graph, _tenant(), parsed)
        if found is None:
            raise ToolError(f"no entity {entity_id}")
        return _plain(found)

    @server.tool()
    async def delete_source(source: str) -> dict[str, Any]:
        """Delete a source and every fact only it supported."""
        try:
            report = await graph.delete_source(_tenant(), source)
        except RedstringError as error:
            raise ToolError(str(error)) from error
        if not report.existed:
            raise ToolError(f"no source {source!r}")
        return _plain(report)

    @server.resource("redstring://schema", mime_type="application/json")
    async def schema() -> str:
        """The entity and relationship types this graph extracts."""
        return json.dumps(graph.schema.model_dump(mode="json"))

    @server.resource("redstring://stats", mime_type="application/json")
    async def stats() -> str:
        """Counts over the caller's tenant."""
        return json.dumps(_plain(await graph.stats(_tenant())))

    return server


@asynccontextmanager
async def mount_mcp(app: Starlette) -> AsyncIterator[None]:
    """Serve MCP (streamable HTTP, stateless, JSON responses) at ``/mcp`` beside the API.

    ``app.state.service`` must be open. DNS-rebinding protection (a Host allow-list) is off:
    every message needs an API key, which a page in a browser does not have.
    """
    server = create_mcp_server(app.state.service)
    transport = server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    app.router.routes.extend(transport.routes)
    async with server.session_manager.run():
        yield
