"""The HTTP API: FastAPI over one :class:`~redstring.serve.service.Service`.

Every endpoint but the two probes needs ``Authorization: Bearer <API key>``. A tenant key
acts in its own tenant only: nothing in the path, query or body names a tenant, and the
``X-Redstring-Tenant`` header is refused for it. An admin key names its tenant in that header.
A miss looks the same whether the id belongs to nobody or to another tenant: ``404`` with a
detail that repeats only what the request said. Every error is an RFC 9457 problem
(:mod:`redstring.serve.problems`); the schema is at ``/openapi.json``.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import FastAPI, File, Form, Header, Path, Query, Request, UploadFile
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

import redstring
from redstring import export as exporting
from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.documents import SUPPORTED_SUFFIXES
from redstring.domain.ids import EntityId, TenantId, tenant_id
from redstring.ingest.reports import (
    DeleteReport,
    GraphStats,
    IngestReport,
    MergeInfo,
    PossibleMatchInfo,
    SourceInfo,
)
from redstring.retrieval import Answer, QueryResult
from redstring.serve.answers import BodyLimit, install_handlers
from redstring.serve.erasure import TenantErasure
from redstring.serve.guards import (
    TENANT_HEADER,
    Admin,
    Caller,
    Limit,
    Offset,
    Served,
    Tenant,
    check_length,
    check_records,
    check_text,
    checked,
    core,
    page,
    read_upload,
    upload_name,
)
from redstring.serve.jobs import Job
from redstring.serve.keys import Principal
from redstring.serve.limits import Limits
from redstring.serve.page import add_page
from redstring.serve.payloads import (
    PRINTABLE,
    AskIn,
    BatchIn,
    DocumentIn,
    Health,
    MergeIn,
    MergeOut,
    Page,
    QueryIn,
    Readiness,
    UnmergeIn,
    UnmergeOut,
)
from redstring.serve.problems import (
    FieldError,
    ProblemError,
    documented,
)
from redstring.serve.service import EntityView, Service, entity_view

__all__ = ["TENANT_HEADER", "create_app"]

# Errors every authenticated endpoint can answer with (400: a body or header that cannot be
# read; 413: a body over the limit, however sent).
_AUTHED = (400, 401, 403, 413, 422, 429, 500)
_PROBES = (400, 413, 500)


# --- the application ---------------------------------------------------------------------


def create_app(
    open_service: Callable[[], AbstractAsyncContextManager[Service]],
    *,
    mount: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None,
) -> FastAPI:
    """The HTTP API over the service that ``open_service`` opens (in the app's lifespan).

    On start the app opens the service and watches for abandoned jobs (resuming each once
    its lease runs out) and for the shared signal of erasures (forgetting what is gone); on
    stop it stops the running jobs (another server resumes them) and closes the service.
    ``mount`` may add routes and run beside the app (the MCP server's transport).
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with open_service() as service, contextlib.AsyncExitStack() as stack:
            app.state.service = service
            if mount is not None:
                await stack.enter_async_context(mount(app))
            signalled = await service.signal.current()
            watchers = [
                asyncio.create_task(service.jobs.watch()),
                asyncio.create_task(service.watch(since=signalled)),
            ]
            try:
                yield
            finally:
                for watcher in watchers:
                    watcher.cancel()
                for watcher in watchers:
                    with contextlib.suppress(asyncio.CancelledError):
                        await watcher
                await service.jobs.close()

    app = FastAPI(
        title="redstring",
        version=redstring.__version__,
        summary="A tenant's knowledge graph over HTTP: ingest, query, ask, review merges.",
        lifespan=lifespan,
    )
    install_handlers(app)
    _routes(app)
    add_page(app)
    app.add_middleware(BodyLimit)
    _state_limits_in_the_schema(app)
    return app


def _state_limits_in_the_schema(app: FastAPI) -> None:
    """Make ``/openapi.json`` state the bounds of the service it serves (its limits are
    known only once the service is open), so a client can read every bound it will meet."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            service: Service | None = getattr(app.state, "service", None)
            if service is not None:
                state_limits(schema, service.limits, service.graph.settings.max_document_chars)
        return app.openapi_schema or generate()

    app.openapi = openapi  # type: ignore[method-assign]


def state_limits(schema: dict[str, Any], limits: Limits, max_document_chars: int) -> None:
    """Write ``limits`` into ``schema`` where the request models leave the bound to the
    server: ``k`` and ``limit`` (page size), query and question length, batch size, text,
    and the length past which a document is ingested as a job."""
    components: dict[str, Any] = schema.get("components", {}).get("schemas", {})
    bounds = {
        ("QueryIn", "k"): {"maximum": limits.max_page_size},
        ("QueryIn", "text"): {"maxLength": limits.max_query_chars},
        ("AskIn", "question"): {"maxLength": limits.max_query_chars},
        ("BatchIn", "documents"): {"maxItems": limits.max_documents_per_batch},
        ("DocumentIn", "text"): {"maxLength": max_document_chars},
    }
    for name, model in components.items():
        for (wanted, field), bound in bounds.items():
            if name.split("-")[0] == wanted and field in model.get("properties", {}):
                model["properties"][field].update(bound)
        files = model.get("properties", {}).get("files")
        if name.startswith("Body_") and files is not None:
            files["maxItems"] = limits.max_documents_per_batch
    for path in ("/v1/documents", "/v1/documents/file"):
        accepted = schema.get("paths", {}).get(path, {}).get("post", {}).get("responses", {})
        if "202" in accepted:
            accepted["202"]["description"] = (
                f"A text over {limits.max_held_document_chars:,} characters, or any with "
                "Prefer: respond-async: the job that ingests it (done of total counts "
                "passages)."
            )
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("name") == "limit" and parameter.get("in") == "query":
                    parameter["schema"]["maximum"] = limits.max_page_size


def _routes(app: FastAPI) -> None:
    @app.get("/v1/health", response_model=Health, tags=["probes"], responses=documented(*_PROBES))
    async def health() -> Health:
        """Liveness: the process answers (no backend is touched, no key needed)."""
        return Health(version=redstring.__version__)

    @app.get(
        "/v1/ready",
        response_model=Readiness,
        tags=["probes"],
        responses=documented(*_PROBES, 503),
    )
    async def ready(service: Served) -> Readiness:
        """Readiness: one cheap read on every configured backend (no key needed)."""
        checks = await service.readiness()
        failed = {name: outcome for name, outcome in checks.items() if not outcome.startswith("ok")}
        if failed:
            raise ProblemError(
                503, "; ".join(f"{name}: {outcome}" for name, outcome in sorted(failed.items()))
            )
        return Readiness(checks=checks)

    @app.post(
        "/v1/documents",
        response_model=IngestReport,
        tags=["documents"],
        responses={**_AS_A_JOB, **documented(*_AUTHED, 409, 503)},
    )
    async def ingest(
        document: DocumentIn,
        tenant: Tenant,
        service: Served,
        caller: Caller,
        prefer: Prefer = None,
    ) -> IngestReport | JSONResponse:
        """Make a source hold a text: chunk, extract, resolve, record (unchanged text: no-op).
        A text over the server's held-document length, or any with ``Prefer:
        respond-async``, is ingested as a job: ``202`` with the job, whose progress counts
        passages."""
        check_length(service, document.text)
        return await _ingest_or_job(
            service,
            caller,
            tenant,
            document.source,
            document.text,
            document.metadata,
            prefer,
            "body.text",
        )

    @app.post(
        "/v1/documents/file",
        response_model=IngestReport,
        tags=["documents"],
        responses={**_AS_A_JOB, **documented(*_AUTHED, 409, 503)},
    )
    async def ingest_file(
        tenant: Tenant,
        service: Served,
        caller: Caller,
        file: Annotated[UploadFile, File(description=f"One of {', '.join(SUPPORTED_SUFFIXES)}")],
        source: Annotated[
            str | None,
            Form(
                min_length=1,
                max_length=1024,
                pattern=PRINTABLE,
                description="The source id (default: the file's bare name).",
            ),
        ] = None,
        prefer: Prefer = None,
    ) -> IngestReport | JSONResponse:
        """Ingest one uploaded file (.txt .md .html .pdf .docx); the source defaults to its
        file name (the name only: any folders in it are dropped). A long one is ingested as
        a job (``202``), as for ``POST /v1/documents``."""
        checked({"source": source, "file": file.filename}, "body")
        name = upload_name(file.filename)
        text, kind = await read_upload(file, name)
        check_length(service, text)
        metadata: dict[str, Any] = {"filename": name, "format": kind}
        return await _ingest_or_job(
            service, caller, tenant, source or name, text, metadata, prefer, "body.file"
        )

    @app.post(
        "/v1/documents/files",
        response_model=Job,
        status_code=202,
        tags=["documents", "jobs"],
        responses=documented(*_AUTHED),
    )
    async def ingest_files(
        tenant: Tenant,
        service: Served,
        files: Annotated[
            list[UploadFile], File(description=f"Each one of {', '.join(SUPPORTED_SUFFIXES)}")
        ],
    ) -> Job:
        """Ingest several uploaded files as a job (202); each becomes the source of its bare
        file name. Every file is read before the job starts: one unreadable file is a 422
        naming it, and nothing is ingested."""
        if len(files) > service.limits.max_documents_per_batch:
            raise ProblemError(
                422,
                f"{len(files)} files; a batch takes at most "
                f"{service.limits.max_documents_per_batch}",
                errors=[FieldError(field="body.files", message="too many")],
            )
        documents: dict[str, dict[str, Any]] = {}
        for number, file in enumerate(files):
            field = f"body.files.{number}"
            checked(file.filename, field)
            name = upload_name(file.filename, field=field)
            if name in documents:
                raise ProblemError(
                    422,
                    f"two files are named {name!r}; each file becomes the source of its name",
                    errors=[FieldError(field=field, message="duplicate file name")],
                )
            text, kind = await read_upload(file, name, field=field)
            check_length(service, text, field=field)
            documents[name] = {
                "source": name,
                "text": text,
                "metadata": {"filename": name, "format": kind},
            }
        payload = {"documents": list(documents.values())}
        return await service.jobs.submit(tenant, "ingest", payload, total=len(documents))

    @app.post(
        "/v1/documents/batch",
        response_model=Job,
        status_code=202,
        tags=["documents", "jobs"],
        responses=documented(*_AUTHED),
    )
    async def ingest_batch(batch: BatchIn, tenant: Tenant, service: Served) -> Job:
        """Ingest several documents as a job: 202 with the job; follow it at /v1/jobs/{id}."""
        if len(batch.documents) > service.limits.max_documents_per_batch:
            raise ProblemError(
                422,
                f"{len(batch.documents)} documents; a batch takes at most "
                f"{service.limits.max_documents_per_batch}",
                errors=[FieldError(field="body.documents", message="too many")],
            )
        for number, document in enumerate(batch.documents):
            check_length(service, document.text, field=f"body.documents.{number}.text")
        payload = {"documents": [document.model_dump(mode="json") for document in batch.documents]}
        return await service.jobs.submit(tenant, "ingest", payload, total=len(batch.documents))

    @app.post(
        "/v1/import",
        response_model=Job,
        status_code=202,
        tags=["documents", "jobs"],
        responses=documented(*_AUTHED, 415),
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
                "description": "JSON Lines: one entity or relationship record per line "
                "(docs/how-to/import-records.md).",
            }
        },
    )
    async def import_records(request: Request, tenant: Tenant, service: Served) -> Job:
        """Import already-extracted records (JSON Lines) as a job; the batch is checked whole
        first, and a malformed line is a 422 naming it (nothing is written)."""
        kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind not in {"application/x-ndjson", "application/jsonl", "application/json-lines"}:
            raise ProblemError(415, "send JSON Lines as application/x-ndjson")
        raw = await request.body()
        try:
            lines = raw.decode("utf-8").splitlines()
        except UnicodeDecodeError as error:
            raise ProblemError(
                422,
                f"the body is not UTF-8 (byte {error.start})",
                errors=[FieldError(field="body", message="not UTF-8")],
            ) from error
        check_records(lines)
        return await service.jobs.submit(tenant, "import", {"lines": lines}, total=1)

    @app.post(
        "/v1/rebuild",
        response_model=Job,
        status_code=202,
        tags=["jobs"],
        responses=documented(*_AUTHED),
    )
    async def rebuild(tenant: Tenant, service: Served) -> Job:
        """Replay the tenant's event log into fresh projections, as a job."""
        return await service.jobs.submit(tenant, "rebuild", {}, total=1)

    @app.get(
        "/v1/jobs/{job_id}", response_model=Job, tags=["jobs"], responses=documented(*_AUTHED, 404)
    )
    async def job(
        job_id: Annotated[str, Path(pattern="^[0-9a-f]{32}$", description="A job id.")],
        tenant: Tenant,
        service: Served,
    ) -> Job:
        """A job of this tenant: its state, progress and (when finished) result or error."""
        found = await service.jobs.store.get(tenant, job_id)
        if found is None:
            raise ProblemError(404, f"no job {job_id!r}")
        return found

    @app.post(
        "/v1/query", response_model=QueryResult, tags=["reading"], responses=documented(*_AUTHED)
    )
    async def query(body: QueryIn, tenant: Tenant, service: Served) -> QueryResult:
        """Ranked, cited passages, entities and relationships for a text (no model call)."""
        check_text(service, body.text, "body.text")
        if body.k > service.limits.max_page_size:
            raise ProblemError(
                422,
                f"k {body.k} is over this server's page size {service.limits.max_page_size}",
                errors=[FieldError(field="body.k", message="too large")],
            )
        result: QueryResult = await core(
            service.graph.query(
                tenant, body.text, k=body.k, entity_types=body.entity_types, depth=body.depth
            ),
            field="body.text",
        )
        return result

    @app.post("/v1/ask", response_model=Answer, tags=["reading"], responses=documented(*_AUTHED))
    async def ask(body: AskIn, tenant: Tenant, service: Served) -> Answer:
        """An answer from the tenant's documents, every citation checked."""
        check_text(service, body.question, "body.question")
        answer: Answer = await core(
            service.graph.ask(tenant, body.question, depth=body.depth), field="body.question"
        )
        return answer

    @app.get(
        "/v1/entities/{entity_id}",
        response_model=EntityView,
        tags=["reading"],
        responses=documented(*_AUTHED, 404),
    )
    async def entity(entity_id: uuid.UUID, tenant: Tenant, service: Served) -> EntityView:
        """An entity (an alias resolves to its survivor), its sources and its neighbours."""
        found = await entity_view(service.graph, tenant, EntityId(entity_id))
        if found is None:
            raise ProblemError(404, f"no entity {entity_id}")
        return found

    @app.delete(
        "/v1/sources/{source_id:path}",
        response_model=DeleteReport,
        tags=["documents"],
        responses=documented(*_AUTHED, 404, 409),
    )
    async def delete_source(source_id: str, tenant: Tenant, service: Served) -> DeleteReport:
        """Delete a source: its passages and the facts no other source supports."""
        report: DeleteReport = await core(
            service.graph.delete_source(tenant, source_id), field="path.source_id"
        )
        if not report.existed:
            raise ProblemError(404, f"no source {source_id!r}")
        return report

    @app.get(
        "/v1/stats", response_model=GraphStats, tags=["reading"], responses=documented(*_AUTHED)
    )
    async def stats(tenant: Tenant, service: Served) -> GraphStats:
        """Counts over the tenant's graph."""
        found: GraphStats = await service.graph.stats(tenant)
        return found

    @app.get(
        "/v1/export",
        tags=["reading"],
        responses={
            200: {
                "description": "The graph as JSON, GraphML or one offline HTML page.",
                "content": {
                    "application/json": {},
                    "application/graphml+xml": {},
                    "text/html": {},
                },
            },
            **documented(*_AUTHED),
        },
    )
    async def export(
        tenant: Tenant,
        service: Served,
        format: Annotated[Literal["json", "graphml", "html"], Query()] = "json",
    ) -> Response:
        """The tenant's whole graph, deterministically ordered."""
        snapshot = await service.graph.export(tenant)
        render, media = {
            "json": (exporting.to_json, "application/json"),
            "graphml": (exporting.to_graphml, "application/graphml+xml"),
            "html": (exporting.to_html, "text/html; charset=utf-8"),
        }[format]
        return Response(render(snapshot), media_type=media)

    @app.delete(
        "/v1/tenants/{tenant}",
        response_model=TenantErasure,
        tags=["tenants"],
        responses=documented(*_AUTHED, 403),
    )
    async def delete_tenant(
        tenant: Annotated[
            str,
            Path(
                min_length=1,
                max_length=128,
                pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$",
                description="The tenant to erase.",
            ),
        ],
        admin: Admin,
        service: Served,
    ) -> TenantErasure:
        """Erase a tenant (admin keys only): its graph, event log, API keys, jobs and cache
        entries, in every server process sharing these stores. Afterwards the server answers
        as if the tenant never existed; erasing a tenant that holds nothing is a no-op."""
        return await service.delete_tenant(tenant_id(tenant))

    for path, item, read, tag, summary in (
        ("/v1/sources", SourceInfo, KnowledgeGraph.sources, "reading", "The tenant's sources."),
        (
            "/v1/merges",
            MergeInfo,
            KnowledgeGraph.merges,
            "merges",
            "Every merge, oldest first, with its rule, score and explanation.",
        ),
        (
            "/v1/possible-matches",
            PossibleMatchInfo,
            KnowledgeGraph.possible_matches,
            "merges",
            "Pairs left apart for review.",
        ),
    ):
        _paged(app, path, item, read, tag=tag, summary=summary)

    @app.post(
        "/v1/merges",
        response_model=MergeOut,
        tags=["merges"],
        responses=documented(*_AUTHED, 404, 409),
    )
    async def merge(body: MergeIn, tenant: Tenant, service: Served) -> MergeOut:
        """Merge ``absorb`` into ``keep`` (a reviewed decision)."""
        kept = await core(service.graph.merge(tenant, EntityId(body.keep), EntityId(body.absorb)))
        return MergeOut(kept=kept, alias=body.absorb)

    @app.post(
        "/v1/unmerge",
        response_model=UnmergeOut,
        tags=["merges"],
        responses=documented(*_AUTHED, 404, 409),
    )
    async def unmerge(body: UnmergeIn, tenant: Tenant, service: Served) -> UnmergeOut:
        """Undo the merge that made ``alias`` an alias; the pair stays apart afterwards."""
        restored = await core(service.graph.unmerge(tenant, EntityId(body.alias)))
        return UnmergeOut(restored=restored)


_AS_A_JOB: dict[int | str, dict[str, Any]] = {
    202: {"model": Job, "description": "Long, or asked for with Prefer: respond-async: a job."}
}

Prefer = Annotated[
    str | None,
    Header(description="respond-async: ingest as a job (202) whatever the length (RFC 7240)."),
]


async def _ingest_or_job(
    service: Service,
    caller: Principal,
    tenant: TenantId,
    source: str,
    text: str,
    metadata: dict[str, Any],
    prefer: str | None,
    field: str,
) -> IngestReport | JSONResponse:
    """Ingest while the request waits, or, for a long text (or when the client prefers),
    answer ``202`` with a job that ingests it and counts its passages."""
    asked = prefer is not None and "respond-async" in prefer.lower().replace(" ", "").split(",")
    if asked or len(text) > service.limits.max_held_document_chars:
        payload = {"source": source, "text": text, "metadata": metadata}
        job = await service.jobs.submit(tenant, "document", payload, total=1)
        headers = {"Preference-Applied": "respond-async"} if asked else None
        return JSONResponse(job.model_dump(mode="json"), status_code=202, headers=headers)
    held = service.ingest_held(
        tenant,
        source,
        text,
        metadata=metadata or None,
        key_id=None if caller.admin else caller.key_id,
    )
    report: IngestReport = await core(held, field=field)
    return report


def _paged(
    app: FastAPI,
    path: str,
    item: type[BaseModel],
    read: Callable[[KnowledgeGraph, TenantId], Awaitable[list[Any]]],
    *,
    tag: str,
    summary: str,
) -> None:
    """``GET path``: one page (``offset``, ``limit``) of what ``read`` lists for the tenant."""

    async def listed(
        tenant: Tenant, service: Served, offset: Offset = 0, limit: Limit = 50
    ) -> Page[Any]:
        return page(service, await read(service.graph, tenant), offset, limit)

    app.get(
        path,
        response_model=Page[item],  # type: ignore[valid-type]
        tags=[tag],
        responses=documented(*_AUTHED),
        name=read.__name__,
        description=summary,
    )(listed)
