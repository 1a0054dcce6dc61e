"""How a problem reaches the client: the exception handlers and the body-size guard.

Every error leaves as a :class:`~redstring.serve.problems.Problem` (``application/problem+json``);
malformed JSON is a ``400``, a validation failure a ``422`` listing each field by path.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from redstring.domain.errors import RedstringError
from redstring.serve.inputs import InvalidInputError
from redstring.serve.problems import (
    MEDIA_TYPE,
    FieldError,
    ProblemError,
    problem,
    problem_for,
)


class BodyLimit:
    """Refuse a request body over the service's ``limits.max_body_bytes`` with 413, before
    the endpoint reads it: a declared length at once, a streamed (chunked) one as it arrives.

    Once a body has gone past the limit, the answer is 413 whatever the reader made of the
    cut-off body (a JSON parser's 400, a multipart parser's error, the MCP transport's own
    answer), as long as nothing has been sent yet.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit: int = scope["app"].state.service.limits.max_body_bytes
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and not declared.isdigit():
            await send_problem(send, 400, "Content-Length is not a number of bytes", scope)
            return
        if declared is not None and int(declared) > limit:
            await send_problem(send, 413, f"the body is over {limit} bytes", scope)
            return
        seen = 0
        tripped = started = False
        finished = declared is not None and int(declared) == 0

        async def counted() -> Message:
            nonlocal seen, tripped, finished
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                finished = not message.get("more_body", False)
                if seen > limit:
                    tripped = True
                    raise _BodyTooLargeError(limit)
            elif message["type"] == "http.disconnect":
                finished = True
            return message

        async def over_the_limit() -> bool:
            """Read what the client is still sending (at most ``limit`` bytes more): a
            parser may refuse the start of a body that is too large as a whole."""
            nonlocal tripped
            with contextlib.suppress(_BodyTooLargeError):
                while not finished:
                    await counted()
            return tripped

        async def answered(message: Message) -> None:
            nonlocal started
            if (
                message["type"] == "http.response.start"
                and not started
                and not tripped
                and message["status"] >= 400
                and not finished
            ):
                await over_the_limit()
            if tripped:
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await send_problem(send, 413, f"the body is over {limit} bytes", scope)
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, answered)
        except Exception:
            if not tripped or started:
                raise
            await send_problem(send, 413, f"the body is over {limit} bytes", scope)


class _BodyTooLargeError(StarletteHTTPException):
    """Raised from the body stream; an HTTP exception, so body parsers let it through."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the body is over {limit} bytes")


async def send_problem(send: Send, status: int, detail: str, scope: Scope) -> None:
    body = problem(status, detail, instance=scope.get("path")).model_dump_json(exclude_none=True)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", MEDIA_TYPE.encode())],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


def problem_response(
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


def field_path(location: tuple[Any, ...] | list[Any]) -> str:
    return ".".join(str(part) for part in location) or "body"


def _methods_at(request: Request) -> list[str]:
    """Every method some route takes at the request's path (one path can have several
    routes, e.g. ``GET`` and ``POST /v1/merges``)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        pattern = getattr(route, "path_regex", None)
        if pattern is not None and pattern.match(request.url.path):
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def _field_error(item: Mapping[str, Any]) -> FieldError:
    """One validation error as a field error; a shared input check names its own path."""
    cause = (item.get("ctx") or {}).get("error")
    if isinstance(cause, InvalidInputError):
        return FieldError(field=cause.field, message=cause.reason)
    return FieldError(field=field_path(item.get("loc", ())), message=str(item.get("msg", "")))


def install_handlers(app: FastAPI) -> None:
    async def on_problem(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, ProblemError)
        return problem_response(
            request, error.status, error.detail, errors=error.errors, headers=error.headers
        )

    async def on_validation(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        found = list(error.errors())
        if any(item.get("type") == "json_invalid" for item in found):
            return problem_response(request, 400, "the body is not valid JSON (UTF-8)")
        errors = [_field_error(item) for item in found]
        names = ", ".join(sorted({item.field for item in errors}))
        return problem_response(request, 422, f"invalid field(s): {names}", errors=errors)

    async def on_http(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        detail = error.detail if isinstance(error.detail, str) else "request refused"
        headers = dict(error.headers or {})
        if error.status_code == 404:
            detail = f"no endpoint at {request.url.path}"
        if error.status_code == 405:
            headers["Allow"] = ", ".join(_methods_at(request))
        return problem_response(request, error.status_code, detail, headers=headers)

    async def on_core(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RedstringError)
        mapped = problem_for(error)
        return problem_response(request, mapped.status, mapped.detail, errors=mapped.errors)

    async def on_anything(request: Request, error: Exception) -> JSONResponse:
        return problem_response(request, 500, "the server failed while handling this request")

    app.add_exception_handler(ProblemError, on_problem)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(RedstringError, on_core)
    app.add_exception_handler(Exception, on_anything)
