"""The HTTP API: FastAPI over one :class:`~redstring.serve.service.Service`.

Every endpoint but the two probes needs ``Authorization: Bearer <API key>``. A tenant key
acts in its own tenant only: nothing in the path, query or body names a tenant, and the
``X-Redstring-Tenant`` header is refused for it. An admin key names its tenant in that header.
A miss looks the same whether the id belongs to nobody or to another tenant: ``404`` with a
detail that repeats only what the request said. Every error is an RFC 9457 problem
(:mod:`redstring.serve.problems`); the schema is at ``/openapi.json``.
"""

from __future__ import annotations

import contextlib
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Generic, Literal, TypeVar

from fastapi import Depends, FastAPI, File, Form, Header, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, JsonValue
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import redstring
from redstring import export as exporting
from redstring.documents import SUPPORTED_SUFFIXES, read_document
from redstring.domain.errors import InvalidArgumentError, RedstringError
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
from redstring.serve.jobs import Job
from redstring.serve.keys import Principal
from redstring.serve.problems import (
    MEDIA_TYPE,
    FieldError,
    ProblemError,
    documented,
    problem,
    problem_for,
)
from redstring.serve.service import EntityView, Service, entity_view

__all__ = ["TENANT_HEADER", "create_app"]

TENANT_HEADER = "X-Redstring-Tenant"
T = TypeVar("T")

# Errors every authenticated endpoint can answer with.
_AUTHED = (401, 403, 413, 422, 429, 500)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DocumentIn(_Strict):
    """One document: the source it becomes and its text."""

    source: str = Field(min_length=1, max_length=1024, description="The source id.")
    text: str = Field(min_length=1, description="The document's text (UTF-8, no NUL).")
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


class BatchIn(_Strict):
    """Several documents, ingested by a job."""

    documents: list[DocumentIn] = Field(min_length=1)


class QueryIn(_Strict):
    """A retrieval request."""

    text: str = Field(min_length=1, description="What to look for.")
    k: int = Field(default=10, ge=1, description="How many results of each kind.")
    entity_types: list[str] | None = None
    depth: int = Field(default=1, ge=0, le=3, description="Graph hops from matched entities.")


class AskIn(_Strict):
    """A question."""

    question: str = Field(min_length=1)
    depth: int = Field(default=1, ge=0, le=3)


class MergeIn(_Strict):
    """Merge ``absorb`` into ``keep``."""

    keep: uuid.UUID
    absorb: uuid.UUID


class UnmergeIn(_Strict):
    """Undo the merge that made ``alias`` an alias."""

    alias: uuid.UUID


class MergeOut(BaseModel):
    """The entity that remains after a merge."""

    kept: uuid.UUID
    alias: uuid.UUID


class UnmergeOut(BaseModel):
    """The entity restored by an unmerge."""

    restored: uuid.UUID


class Page(BaseModel, Generic[T]):
    """One page of a list: ``items`` from ``offset``, of ``total``."""

    items: list[T]
    total: int
    offset: int
    limit: int


class Health(BaseModel):
    """The liveness answer."""

    status: Literal["ok"] = "ok"
    version: str


class Readiness(BaseModel):
    """Every backend's probe outcome."""

    status: Literal["ready"] = "ready"
    checks: dict[str, str]


# --- plumbing ----------------------------------------------------------------------------


class BodyLimit:
    """Refuse a request body over ``limit`` bytes with 413, before the endpoint reads it."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _send_problem(send, 413, f"the body is over {self.limit} bytes", scope)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _BodyTooLargeError()
            return message

        try:
            await self.app(scope, counted, send)
        except _BodyTooLargeError:
            await _send_problem(send, 413, f"the body is over {self.limit} bytes", scope)


class _BodyTooLargeError(Exception):
    pass


async def _send_problem(send: Send, status: int, detail: str, scope: Scope) -> None:
    body = problem(status, detail, instance=scope.get("path")).model_dump_json(exclude_none=True)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", MEDIA_TYPE.encode())],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


def _problem_response(
    request: Request,
    status: int,
    detail: str,
    *,
    errors: list[FieldError] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = problem(status, detail, instance=request.url.path, errors=errors)
    return JSONResponse(
        body.model_dump(mode="json", exclude_none=True),
        status_code=status,
        media_type=MEDIA_TYPE,
        headers=headers,
    )


def _field_path(location: tuple[Any, ...] | list[Any]) -> str:
    return ".".join(str(part) for part in location) or "body"


def _install_handlers(app: FastAPI) -> None:
    async def on_problem(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, ProblemError)
        return _problem_response(
            request, error.status, error.detail, errors=error.errors, headers=error.headers
        )

    async def on_validation(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        found = list(error.errors())
        if any(item.get("type") == "json_invalid" for item in found):
            return _problem_response(request, 400, "the body is not valid JSON (UTF-8)")
        errors = [
            FieldError(field=_field_path(item.get("loc", ())), message=str(item.get("msg", "")))
            for item in found
        ]
        names = ", ".join(sorted({item.field for item in errors}))
        return _problem_response(request, 422, f"invalid field(s): {names}", errors=errors)

    async def on_http(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        detail = error.detail if isinstance(error.detail, str) else "request refused"
        if error.status_code == 404:
            detail = f"no endpoint at {request.url.path}"
        return _problem_response(
            request, error.status_code, detail, headers=dict(error.headers or {})
        )

    async def on_core(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RedstringError)
        mapped = problem_for(error)
        return _problem_response(request, mapped.status, mapped.detail, errors=mapped.errors)

    async def on_anything(request: Request, error: Exception) -> JSONResponse:
        return _problem_response(request, 500, "the server failed while handling this request")

    app.add_exception_handler(ProblemError, on_problem)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(RedstringError, on_core)
    app.add_exception_handler(Exception, on_anything)


_bearer = HTTPBearer(auto_error=False, description="An API key from `redstring keys create`.")


def _service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


async def _principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    if credentials is None:
        raise ProblemError(
            401,
            "send an API key as Authorization: Bearer <key>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    service = _service(request)
    found = await service.keys.authenticate(credentials.credentials)
    if found is None:
        raise ProblemError(
            401,
            "the API key is not valid (unknown, revoked or mistyped)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    wait = await service.rate.admit(found.key_id)
    if wait is not None:
        raise ProblemError(
            429,
            f"this key made more than {service.limits.requests_per_window} requests in "
            f"{service.limits.window_seconds:g} s; retry after {wait:.0f} s",
            headers={"Retry-After": str(int(wait + 0.999))},
        )
    return found


async def _tenant(
    principal: Annotated[Principal, Depends(_principal)],
    named: Annotated[
        str | None,
        Header(
            alias=TENANT_HEADER,
            description="The tenant to act in: admin keys only (a tenant key has its own).",
        ),
    ] = None,
) -> TenantId:
    if principal.tenant is not None:
        if named is not None:
            raise ProblemError(
                403,
                f"this key acts in its own tenant only; {TENANT_HEADER} is for admin keys",
            )
        return principal.tenant
    if named is None:
        raise ProblemError(
            422,
            f"an admin key names the tenant in the {TENANT_HEADER} header",
            errors=[FieldError(field=f"header.{TENANT_HEADER}", message="required")],
        )
    try:
        return tenant_id(named)
    except InvalidArgumentError as error:
        raise ProblemError(
            422,
            str(error),
            errors=[FieldError(field=f"header.{TENANT_HEADER}", message=str(error))],
        ) from error


Tenant = Annotated[TenantId, Depends(_tenant)]
Served = Annotated[Service, Depends(_service)]
Offset = Annotated[int, Query(ge=0, description="How many items to skip.")]
Limit = Annotated[int, Query(ge=1, description="Page size (at most the server's page limit).")]


def _page(service: Service, items: list[T], offset: int, limit: int) -> Page[T]:
    if limit > service.limits.max_page_size:
        raise ProblemError(
            422,
            f"limit {limit} is over this server's page size {service.limits.max_page_size}",
            errors=[FieldError(field="query.limit", message="too large")],
        )
    return Page[T](
        items=items[offset : offset + limit], total=len(items), offset=offset, limit=limit
    )


def _check_text(service: Service, text: str, field: str) -> None:
    if len(text) > service.limits.max_query_chars:
        raise ProblemError(
            422,
            f"{field} has {len(text)} characters; this server takes at most "
            f"{service.limits.max_query_chars}",
            errors=[FieldError(field=field, message="too long")],
        )


async def _core(call: Any, *, field: str | None = None) -> Any:
    try:
        return await call
    except RedstringError as error:
        raise problem_for(error, field=field) from error


# --- the application ---------------------------------------------------------------------


def create_app(
    open_service: Callable[[], AbstractAsyncContextManager[Service]],
    *,
    max_body_bytes: int | None = None,
    mount: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None,
) -> FastAPI:
    """The HTTP API over the service that ``open_service`` opens (in the app's lifespan).

    On start the app opens the service and resumes unfinished jobs; on stop it stops the
    running jobs (a later server resumes them) and closes the service. ``mount`` may add
    routes and run beside the app (the MCP server's transport).
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with open_service() as service, contextlib.AsyncExitStack() as stack:
            app.state.service = service
            if mount is not None:
                await stack.enter_async_context(mount(app))
            await service.jobs.resume()
            try:
                yield
            finally:
                await service.jobs.close()

    app = FastAPI(
        title="redstring",
        version=redstring.__version__,
        summary="A tenant's knowledge graph over HTTP: ingest, query, ask, review merges.",
        lifespan=lifespan,
    )
    _install_handlers(app)
    _routes(app)
    limit = max_body_bytes if max_body_bytes is not None else 10 * 1024 * 1024
    app.add_middleware(BodyLimit, limit=limit)
    return app


def _routes(app: FastAPI) -> None:
    @app.get("/v1/health", response_model=Health, tags=["probes"], responses=documented(500))
    async def health() -> Health:
        """Liveness: the process answers (no backend is touched, no key needed)."""
        return Health(version=redstring.__version__)

    @app.get("/v1/ready", response_model=Readiness, tags=["probes"], responses=documented(500, 503))
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
        responses=documented(*_AUTHED, 409, 503),
    )
    async def ingest(document: DocumentIn, tenant: Tenant, service: Served) -> IngestReport:
        """Make a source hold a text: chunk, extract, resolve, record (unchanged text: no-op)."""
        _check_length(service, document.text)
        report: IngestReport = await _core(
            service.graph.ingest(
                tenant, document.source, document.text, metadata=document.metadata or None
            ),
            field="body.text",
        )
        return report

    @app.post(
        "/v1/documents/file",
        response_model=IngestReport,
        tags=["documents"],
        responses=documented(*_AUTHED, 409, 503),
    )
    async def ingest_file(
        tenant: Tenant,
        service: Served,
        file: Annotated[UploadFile, File(description=f"One of {', '.join(SUPPORTED_SUFFIXES)}")],
        source: Annotated[str | None, Form(max_length=1024)] = None,
    ) -> IngestReport:
        """Ingest one uploaded file (.txt .md .html .pdf .docx); the source defaults to its
        file name (the name only: any folders in it are dropped)."""
        name = _upload_name(file.filename)
        text, kind = await _read_upload(file, name)
        _check_length(service, text)
        report: IngestReport = await _core(
            service.graph.ingest(
                tenant, source or name, text, metadata={"filename": name, "format": kind}
            ),
            field="body.file",
        )
        return report

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
            _check_length(service, document.text, field=f"body.documents.{number}.text")
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
        _check_records(lines)
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
    async def job(job_id: str, tenant: Tenant, service: Served) -> Job:
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
        _check_text(service, body.text, "body.text")
        if body.k > service.limits.max_page_size:
            raise ProblemError(
                422,
                f"k {body.k} is over this server's page size {service.limits.max_page_size}",
                errors=[FieldError(field="body.k", message="too large")],
            )
        result: QueryResult = await _core(
            service.graph.query(
                tenant, body.text, k=body.k, entity_types=body.entity_types, depth=body.depth
            ),
            field="body.text",
        )
        return result

    @app.post("/v1/ask", response_model=Answer, tags=["reading"], responses=documented(*_AUTHED))
    async def ask(body: AskIn, tenant: Tenant, service: Served) -> Answer:
        """An answer from the tenant's documents, every citation checked."""
        _check_text(service, body.question, "body.question")
        answer: Answer = await _core(
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

    @app.get(
        "/v1/sources",
        response_model=Page[SourceInfo],
        tags=["reading"],
        responses=documented(*_AUTHED),
    )
    async def sources(
        tenant: Tenant, service: Served, offset: Offset = 0, limit: Limit = 50
    ) -> Page[SourceInfo]:
        """The tenant's sources, by id."""
        return _page(service, await service.graph.sources(tenant), offset, limit)

    @app.delete(
        "/v1/sources/{source_id:path}",
        response_model=DeleteReport,
        tags=["documents"],
        responses=documented(*_AUTHED, 404, 409),
    )
    async def delete_source(source_id: str, tenant: Tenant, service: Served) -> DeleteReport:
        """Delete a source: its passages and the facts no other source supports."""
        report: DeleteReport = await _core(
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

    @app.get(
        "/v1/merges",
        response_model=Page[MergeInfo],
        tags=["merges"],
        responses=documented(*_AUTHED),
    )
    async def merges(
        tenant: Tenant, service: Served, offset: Offset = 0, limit: Limit = 50
    ) -> Page[MergeInfo]:
        """Every merge, oldest first, with its rule, score and explanation."""
        return _page(service, await service.graph.merges(tenant), offset, limit)

    @app.get(
        "/v1/possible-matches",
        response_model=Page[PossibleMatchInfo],
        tags=["merges"],
        responses=documented(*_AUTHED),
    )
    async def possible_matches(
        tenant: Tenant, service: Served, offset: Offset = 0, limit: Limit = 50
    ) -> Page[PossibleMatchInfo]:
        """Pairs left apart for review."""
        return _page(service, await service.graph.possible_matches(tenant), offset, limit)

    @app.post(
        "/v1/merges",
        response_model=MergeOut,
        tags=["merges"],
        responses=documented(*_AUTHED, 404, 409),
    )
    async def merge(body: MergeIn, tenant: Tenant, service: Served) -> MergeOut:
        """Merge ``absorb`` into ``keep`` (a reviewed decision)."""
        kept = await _core(service.graph.merge(tenant, EntityId(body.keep), EntityId(body.absorb)))
        return MergeOut(kept=kept, alias=body.absorb)

    @app.post(
        "/v1/unmerge",
        response_model=UnmergeOut,
        tags=["merges"],
        responses=documented(*_AUTHED, 404, 409),
    )
    async def unmerge(body: UnmergeIn, tenant: Tenant, service: Served) -> UnmergeOut:
        """Undo the merge that made ``alias`` an alias; the pair stays apart afterwards."""
        restored = await _core(service.graph.unmerge(tenant, EntityId(body.alias)))
        return UnmergeOut(restored=restored)


def _check_length(service: Service, text: str, field: str = "body.text") -> None:
    limit = service.graph.settings.max_document_chars
    if len(text) > limit:
        raise ProblemError(
            413,
            f"{field} has {len(text)} characters; a document may have at most {limit}",
        )


def _check_records(lines: list[str]) -> None:
    from redstring.ingest.records import parse_jsonl, split_and_check

    try:
        split_and_check(parse_jsonl(lines))
    except InvalidArgumentError as error:
        raise ProblemError(
            422, str(error), errors=[FieldError(field="body", message=str(error))]
        ) from error


def _upload_name(filename: str | None) -> str:
    name = PurePosixPath((filename or "").replace("\\", "/")).name
    if not name or name in {".", ".."} or "\x00" in name:
        raise ProblemError(
            422,
            "the uploaded file needs a file name with a suffix, e.g. report.pdf",
            errors=[FieldError(field="body.file", message="no usable file name")],
        )
    return name


async def _read_upload(file: UploadFile, name: str) -> tuple[str, str]:
    suffix = PurePosixPath(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ProblemError(
            422,
            f"unsupported file type {suffix or '(none)'!r}; supported: "
            f"{', '.join(SUPPORTED_SUFFIXES)}",
            errors=[FieldError(field="body.file", message="unsupported file type")],
        )
    data = await file.read()
    # The upload's own name never reaches the file system: only its checked suffix does.
    with tempfile.TemporaryDirectory(prefix="redstring-upload-") as folder:
        path = Path(folder) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            document = await run_in_threadpool(read_document, path)
        except InvalidArgumentError as error:
            message = str(error).replace(str(path), name)
            raise ProblemError(
                422, message, errors=[FieldError(field="body.file", message=message)]
            ) from error
    return document.text, document.format
