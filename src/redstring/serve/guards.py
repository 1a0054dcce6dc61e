"""Who may call and what they may send: the key, the tenant it opens, the rate limit, and the
checks every request passes before the graph sees it."""

from __future__ import annotations

import tempfile
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, Query, Request, UploadFile
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from redstring.documents import SUPPORTED_SUFFIXES, read_document
from redstring.domain.errors import InvalidArgumentError, RedstringError
from redstring.domain.ids import TenantId, tenant_id
from redstring.serve.inputs import InvalidInputError, check_input, decode_json
from redstring.serve.keys import Principal
from redstring.serve.payloads import Page
from redstring.serve.problems import (
    FieldError,
    ProblemError,
    problem_for,
)
from redstring.serve.service import AccessRefusedError, Service

TENANT_HEADER = "X-Redstring-Tenant"
T = TypeVar("T")


_bearer = HTTPBearer(auto_error=False, description="An API key from `redstring keys create`.")


def _service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


async def _principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    service = _service(request)
    client = request.client.host if request.client else "unknown"
    try:
        return await service.admit(credentials.credentials if credentials else None, client)
    except AccessRefusedError as refused:
        headers = (
            retry_after(refused.retry_after)
            if refused.retry_after is not None
            else {"WWW-Authenticate": "Bearer"}
        )
        raise ProblemError(refused.status, refused.detail, headers=headers) from None


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


def _admin(principal: Annotated[Principal, Depends(_principal)]) -> Principal:
    if not principal.admin:
        raise ProblemError(403, "only an admin key may do this")
    return principal


Tenant = Annotated[TenantId, Depends(_tenant)]
Admin = Annotated[Principal, Depends(_admin)]
Caller = Annotated[Principal, Depends(_principal)]
Served = Annotated[Service, Depends(_service)]
Offset = Annotated[int, Query(ge=0, description="How many items to skip.")]
Limit = Annotated[int, Query(ge=1, description="Page size (at most the server's page limit).")]


def retry_after(seconds: float) -> dict[str, str]:
    """The ``Retry-After`` header for a wait of ``seconds`` (whole seconds, rounded up)."""
    return {"Retry-After": str(int(seconds + 0.999))}


def page(service: Service, items: list[T], offset: int, limit: int) -> Page[T]:
    """``items[offset:offset + limit]`` with the total; 422 naming query.limit past the
    server's page size."""
    if limit > service.limits.max_page_size:
        raise ProblemError(
            422,
            f"limit {limit} is over this server's page size {service.limits.max_page_size}",
            errors=[FieldError(field="query.limit", message="too large")],
        )
    return Page[T](
        items=items[offset : offset + limit], total=len(items), offset=offset, limit=limit
    )


def check_text(service: Service, text: str, field: str) -> None:
    """422 naming ``field`` when a query or question is longer than the server takes."""
    if len(text) > service.limits.max_query_chars:
        raise ProblemError(
            422,
            f"{field} has {len(text)} characters; this server takes at most "
            f"{service.limits.max_query_chars}",
            errors=[FieldError(field=field, message="too long")],
        )


async def core(call: Any, *, field: str | None = None) -> Any:
    """Await a facade call; a redstring error becomes its problem (``field``: the input)."""
    try:
        return await call
    except RedstringError as error:
        raise problem_for(error, field=field) from error


def check_length(service: Service, text: str, field: str = "body.text") -> None:
    """413 when a document is longer than the graph ingests."""
    limit = service.graph.settings.max_document_chars
    if len(text) > limit:
        raise ProblemError(
            413,
            f"{field} has {len(text)} characters; a document may have at most {limit}",
        )


def check_records(lines: list[str]) -> None:
    """422 naming the first malformed record of a JSON Lines import (nothing is written):
    each line decoded and checked like every input, then validated as a record."""
    from redstring.ingest.records import split_and_check

    try:
        numbered = [
            (number, decode_json(line, field=f"body.line {number}"))
            for number, line in enumerate(lines, start=1)
            if line.strip()
        ]
        split_and_check(numbered)
    except InvalidInputError as error:
        raise ProblemError(
            422, str(error), errors=[FieldError(field=error.field, message=error.reason)]
        ) from error
    except InvalidArgumentError as error:
        raise ProblemError(
            422, str(error), errors=[FieldError(field="body", message=str(error))]
        ) from error


def checked(value: object, field: str) -> None:
    """422 naming the field when ``value`` breaks the shared input rules."""
    try:
        check_input(value, field=field)
    except InvalidInputError as error:
        raise ProblemError(
            422, str(error), errors=[FieldError(field=error.field, message=error.reason)]
        ) from error


def upload_name(filename: str | None, field: str = "body.file") -> str:
    """The bare file name of an upload (any folders dropped); 422 naming ``field`` if none."""
    name = PurePosixPath((filename or "").replace("\\", "/")).name
    if not name or name in {".", ".."} or "\x00" in name:
        raise ProblemError(
            422,
            "the uploaded file needs a file name with a suffix, e.g. report.pdf",
            errors=[FieldError(field=field, message="no usable file name")],
        )
    return name


async def read_upload(file: UploadFile, name: str, field: str = "body.file") -> tuple[str, str]:
    """The upload's text and format, read by suffix; 422 naming ``field`` if unreadable."""
    suffix = PurePosixPath(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ProblemError(
            422,
            f"unsupported file type {suffix or '(none)'!r}; supported: "
            f"{', '.join(SUPPORTED_SUFFIXES)}",
            errors=[FieldError(field=field, message="unsupported file type")],
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
                422, message, errors=[FieldError(field=field, message=message)]
            ) from error
    return document.text, document.format
