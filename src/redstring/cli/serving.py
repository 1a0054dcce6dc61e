"""``redstring serve`` and ``redstring keys``: the servers and their API keys, from the settings.

Keys and jobs live in the graph's PostgreSQL (the embedded one by default). With
``--backend memory`` nothing outlives the process: ``serve`` then makes one key for
``--tenant`` at start and prints it once. The server modules (``redstring.serve``, the
``serve`` extra) are imported only when one of these commands runs.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from redstring.cli import settings as settings_module
from redstring.cli.errors import ConfigError, InputError, UnavailableError
from redstring.cli.options import Invocation, command
from redstring.cli.runtime import open_graph
from redstring.cli.settings import Settings

if TYPE_CHECKING:
    from redstring.serve import KeyStore, Service, Signal

FastAPI = Any  # the app's type; fastapi itself is imported only by redstring.serve

__all__ = ["keys_app", "register", "worker_app"]

keys_app = typer.Typer(
    name="keys",
    help="Create, list and revoke the API keys of `redstring serve`.",
    no_args_is_help=True,
)


def _serve_modules() -> Any:
    try:
        import redstring.serve as serve
    except ImportError as error:
        raise UnavailableError(
            f"the servers need the 'serve' extra ({error}); pip install 'redstring[serve]'"
        ) from error
    return serve


@asynccontextmanager
async def _tables(settings: Settings) -> AsyncIterator[Any]:
    from redstring.cli import embedded
    from redstring.postgres.pool import create_pool
    from redstring.serve.postgres import ServerTables

    if settings.backend == "memory":
        raise ConfigError(
            "API keys are kept in PostgreSQL; with --backend memory, `redstring serve` makes "
            "a key at start and prints it"
        )
    dsn = settings.postgres_dsn or embedded.start(
        settings.data_dir, idle_minutes=settings.db_idle_minutes
    )
    pool = await create_pool(dsn, min_size=1, max_size=2)
    try:
        tables = ServerTables(pool)
        await tables.ensure_schema()
        yield tables
    finally:
        await pool.close()


@asynccontextmanager
async def _key_store(settings: Settings) -> AsyncIterator[KeyStore]:
    from redstring.serve.postgres import PostgresKeyStore

    async with _tables(settings) as tables:
        yield PostgresKeyStore(tables)


async def erase_tenant(settings: Settings, tenant: str) -> dict[str, Any]:
    """``redstring delete-tenant``: the server's own erasure (``DELETE /v1/tenants/{t}``),
    so running servers refuse the tenant's keys at once and forget it within a second.

    Needs only the database: neither the web frameworks nor argon2 are imported. With
    ``--backend memory`` nothing outlives a command, so only the graph is erased.
    """
    from redstring.domain.ids import tenant_id
    from redstring.serve.erasure import erase_tenant as erase

    key = tenant_id(tenant)
    async with open_graph(settings) as runtime:
        if runtime.pool is None:
            events = await runtime.graph.delete_tenant(key)
            return {"tenant": key, "events": events, "keys": 0, "jobs": 0}
        from redstring.serve.postgres import (
            PostgresJobStore,
            PostgresKeyStore,
            PostgresSignal,
            ServerTables,
        )

        tables = ServerTables(runtime.pool)
        await tables.ensure_schema()
        erased = await erase(
            key,
            graph=runtime.graph,
            keys=PostgresKeyStore(tables),
            jobs=PostgresJobStore(tables),
            cache=runtime.cache,
            signal=PostgresSignal(tables),
        )
        return erased.model_dump()


def _key_row(key: Any) -> dict[str, Any]:
    return {
        "key_id": key.key_id,
        "scope": "admin" if key.admin else "tenant",
        "tenant": key.tenant,
        "name": key.name,
        "created_at": key.created_at.isoformat(),
        "revoked_at": key.revoked_at.isoformat() if key.revoked_at else None,
    }


@command(
    keys_app,
    "create",
    help="Create an API key for --tenant (or with --admin, for every tenant); prints it once.",
)
def keys_create(
    invocation: Invocation,
    name: Annotated[str, typer.Option("--name", help="A label for the key.")] = "",
    admin: Annotated[
        bool, typer.Option("--admin", help="Admin scope: the caller names the tenant.")
    ] = False,
) -> None:
    async def work() -> tuple[Any, str]:
        async with _key_store(invocation.settings) as store:
            created: tuple[Any, str] = await store.create(
                tenant=None if admin else invocation.tenant, name=name
            )
            return created

    record, secret = invocation.run(work())
    if invocation.json:
        invocation.emit_json({**_key_row(record), "key": secret})
        return
    scope = "every tenant (admin)" if admin else f"tenant {invocation.tenant}"
    invocation.out.print(f"created key {record.key_id} for {scope}; it is shown only now:")
    invocation.out.print(secret, markup=False)


@command(keys_app, "list", help="List API keys (ids, scopes, names; never the secrets).")
def keys_list(
    invocation: Invocation,
    every: Annotated[bool, typer.Option("--all", help="Every tenant's keys.")] = False,
) -> None:
    async def work() -> list[Any]:
        async with _key_store(invocation.settings) as store:
            found: list[Any] = await store.list_keys(None if every else invocation.tenant)
            return found

    rows = [_key_row(key) for key in invocation.run(work())]
    if invocation.json:
        invocation.emit_json(rows)
        return
    from redstring.cli import render

    render.rows(invocation.out, "API keys", rows, empty="no API keys")


@command(keys_app, "revoke", help="Revoke an API key by its id (as `keys list` shows it).")
def keys_revoke(
    invocation: Invocation,
    key_id: Annotated[str, typer.Argument(help="The key id.")],
) -> None:
    async def work() -> Any:
        from redstring.serve.postgres import PostgresKeyStore, PostgresSignal

        async with _tables(invocation.settings) as tables:
            revoked = await PostgresKeyStore(tables).revoke(key_id)
            await PostgresSignal(tables).bump()
            return revoked

    record = invocation.run(work())
    if invocation.json:
        invocation.emit_json(_key_row(record))
    else:
        invocation.out.print(f"revoked key {record.key_id}")


@asynccontextmanager
async def open_service(settings: Settings, options: dict[str, Any]) -> AsyncIterator[Service]:
    """The graph the settings describe, with its key and job stores, as one Service."""
    serve = _serve_modules()
    from redstring.serve.limits import Limits

    async with AsyncExitStack() as stack:
        runtime = await stack.enter_async_context(
            open_graph(
                settings,
                extract=True,
                extract_processes=int(options.get("extract_processes", 1)),
            )
        )
        lease = float(options.get("job_lease", 30.0))
        keys: KeyStore
        if runtime.pool is None:
            keys = serve.InMemoryKeyStore()
            jobs = serve.JobRunner(runtime.graph, serve.InMemoryJobStore(), lease_seconds=lease)
            _, secret = await keys.create(tenant=options["tenant"], name="serve --backend memory")
            sys.stderr.write(f"API key for tenant {options['tenant']} (this run only): {secret}\n")
            signal: Signal = serve.InMemorySignal()
        else:
            from redstring.serve.postgres import (
                PostgresJobStore,
                PostgresKeyStore,
                PostgresSignal,
                ServerTables,
            )

            tables = ServerTables(runtime.pool)
            await tables.ensure_schema()
            keys = PostgresKeyStore(tables)
            jobs = serve.JobRunner(runtime.graph, PostgresJobStore(tables), lease_seconds=lease)
            signal = PostgresSignal(tables)
        assert runtime.cache is not None
        limits = Limits(requests_per_window=int(options.get("rate_limit", 600)))
        yield serve.Service(
            graph=runtime.graph,
            keys=keys,
            jobs=jobs,
            cache=runtime.cache,
            limits=limits,
            signal=signal,
        )


def build_app(settings: Settings, options: dict[str, Any]) -> FastAPI:
    """The HTTP API (with MCP at ``/mcp``) over the service the settings describe."""
    serve = _serve_modules()
    from redstring.serve.mcp_server import mount_mcp

    app: FastAPI = serve.create_app(
        lambda: open_service(settings, options),
        mount=mount_mcp,
    )
    return app


def worker_app() -> FastAPI:
    """The app of one worker process of ``serve --workers N`` (uvicorn's factory)."""
    settings, options = settings_module.from_worker_environment()
    return build_app(settings, options)


def serve_command(
    invocation: Invocation,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Worker processes.")] = 1,
    transport: Annotated[
        str,
        typer.Option(
            "--transport",
            help="http (the API, with MCP at /mcp) or stdio (MCP only, on stdin/stdout).",
        ),
    ] = "http",
    api_key: Annotated[
        str | None,
        typer.Option(
            "--api-key",
            envvar="REDSTRING_API_KEY",
            help="For --transport stdio on PostgreSQL: the key the session acts as.",
            show_default=False,
        ),
    ] = None,
    rate_limit: Annotated[
        int, typer.Option("--rate-limit", min=1, help="Requests per key per minute.")
    ] = 600,
    job_lease: Annotated[
        float,
        typer.Option(
            "--job-lease",
            min=1.0,
            help="Seconds a stopped server's job stays its own before another resumes it.",
        ),
    ] = 30.0,
    extract_processes: Annotated[
        int,
        typer.Option(
            "--extract-processes",
            min=0,
            help="Worker processes for the offline extractor, per server process: requests "
            "never wait on a parse, and extraction takes at most this many cores. 0: extract "
            "in the serving process (one document then stalls every client).",
        ),
    ] = 1,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            help="Comma-separated addresses (or networks, or *) of the reverse proxies whose "
            "X-Forwarded-For / X-Forwarded-Proto to believe. Unset: none is believed, and "
            "every limit applies to the address the connection comes from.",
            show_default=False,
        ),
    ] = None,
) -> None:
    options = {
        "tenant": invocation.tenant,
        "rate_limit": rate_limit,
        "job_lease": job_lease,
        "extract_processes": extract_processes,
    }
    if transport == "stdio":
        invocation.run(_stdio(invocation.settings, options, api_key))
        return
    if transport != "http":
        raise InputError(f"--transport {transport!r} is not one of: http, stdio")
    _serve_modules()
    import uvicorn

    network = uvicorn_options(host, port, forwarded_allow_ips)
    if workers == 1:
        uvicorn.run(build_app(invocation.settings, options), **network)
        return
    settings_module.hand_to_workers(invocation.settings, options)
    uvicorn.run("redstring.cli.serving:worker_app", factory=True, workers=workers, **network)


def uvicorn_options(host: str, port: int, forwarded_allow_ips: str | None) -> dict[str, Any]:
    """How uvicorn listens, and whose forwarding headers it believes.

    uvicorn believes ``X-Forwarded-For`` from 127.0.0.1 by default, which lets any client on
    the server's own host pose as any address (and so dodge the per-address budget). Here
    the headers count only from the proxies named, and from none when none is named.
    """
    if forwarded_allow_ips is None or not forwarded_allow_ips.strip():
        return {"host": host, "port": port, "proxy_headers": False}
    return {
        "host": host,
        "port": port,
        "proxy_headers": True,
        "forwarded_allow_ips": [item.strip() for item in forwarded_allow_ips.split(",")],
    }


async def _stdio(settings: Settings, options: dict[str, Any], api_key: str | None) -> None:
    from redstring.serve.mcp_server import create_mcp_server

    async with open_service(settings, options) as service:
        tenant = options["tenant"]
        if settings.backend != "memory":
            if not api_key:
                raise ConfigError("--transport stdio needs --api-key (or REDSTRING_API_KEY)")
            principal = await service.keys.authenticate(api_key)
            if principal is None:
                raise ConfigError("the API key is not valid (unknown, revoked or mistyped)")
            tenant = principal.tenant or tenant
        server = create_mcp_server(service, stdio_tenant=tenant)
        await server.run_stdio_async()


def register(app: typer.Typer) -> None:
    """Add ``serve`` and the ``keys`` group to the command."""
    command(
        app,
        "serve",
        help="Serve the graph over HTTP (the API, and MCP at /mcp) or MCP over stdio.\n\n"
        "Every request needs an API key (`redstring keys create`); a tenant key sees only "
        "its tenant. The OpenAPI schema is at /openapi.json, the docs at /docs.",
    )(serve_command)
    app.add_typer(keys_app)
