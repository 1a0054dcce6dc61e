"""RFC 9457 problem details: the one shape of every error the HTTP API returns.

A problem's ``type`` is a URN naming its kind (``urn:redstring:problem:not-found``), its
``title`` is the same for every problem of that kind and ``detail`` says what happened to this
request. A validation problem adds ``errors``: one entry per field, each naming the field by
its path (``body.text``, ``query.limit``). Nothing in a problem tells one tenant anything about
another: a miss says only what the request named.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from redstring.domain.errors import InvalidArgumentError, RedstringError
from redstring.ingest.admission import DocumentTooLargeError
from redstring.ingest.service import (
    ExtractorNotConfiguredError,
    MergeRefusedError,
    TenantErasedError,
    UnknownEntityError,
    WriteConflictError,
)

__all__ = ["FieldError", "Problem", "ProblemError", "problem_for"]

MEDIA_TYPE = "application/problem+json"

TITLES: dict[int, tuple[str, str]] = {
    400: ("bad-request", "The request cannot be read"),
    401: ("unauthenticated", "A valid API key is needed"),
    403: ("forbidden", "This key may not do that"),
    404: ("not-found", "Nothing of that name here"),
    405: ("method-not-allowed", "That method is not allowed here"),
    409: ("conflict", "The request conflicts with the graph's state"),
    413: ("too-large", "The request is larger than this server accepts"),
    415: ("unsupported-media-type", "That content type is not accepted here"),
    422: ("invalid", "The request is well-formed but a value is not valid"),
    429: ("rate-limited", "Too many requests for this key"),
    500: ("internal", "The server failed; the request may not have been applied"),
    503: ("unavailable", "A backend the server needs is not available"),
}


class FieldError(BaseModel):
    """One invalid field: where it is and what is wrong with it."""

    field: str = Field(description="The field's path, e.g. body.text or query.limit.")
    message: str


class Problem(BaseModel):
    """An RFC 9457 problem details object."""

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None
    errors: list[FieldError] | None = None


class ProblemError(Exception):
    """Raised by an endpoint to answer with a problem."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        errors: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}


def sendable(text: str) -> str:
    """``text`` with anything UTF-8 cannot carry (a lone surrogate the request sent, quoted
    back) written as a backslash escape, so a problem about bad text can always be sent."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def problem(
    status: int, detail: str, *, instance: str | None = None, errors: list[FieldError] | None = None
) -> Problem:
    """The problem of ``status`` with this request's ``detail``."""
    slug, title = TITLES.get(status, ("error", "The request failed"))
    return Problem(
        type=f"urn:redstring:problem:{slug}",
        title=title,
        status=status,
        detail=sendable(detail),
        instance=None if instance is None else sendable(instance),
        errors=None
        if errors is None
        else [FieldError(field=sendable(e.field), message=sendable(e.message)) for e in errors],
    )


def problem_for(error: RedstringError, *, field: str | None = None) -> ProblemError:
    """The problem a core error means; ``field`` names the input it concerns, if one."""
    errors = [FieldError(field=field, message=str(error))] if field else None
    if isinstance(error, UnknownEntityError):
        return ProblemError(404, str(error))
    if isinstance(error, MergeRefusedError | WriteConflictError | TenantErasedError):
        return ProblemError(409, str(error))
    if isinstance(error, DocumentTooLargeError):
        return ProblemError(413, str(error))
    if isinstance(error, ExtractorNotConfiguredError):
        return ProblemError(503, str(error))
    if isinstance(error, InvalidArgumentError):
        return ProblemError(422, str(error), errors=errors)
    return ProblemError(500, "the request failed inside the graph")


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for ``statuses``, each a problem details body."""
    return {
        status: {
            "model": Problem,
            "description": TITLES[status][1],
            "content": {MEDIA_TYPE: {}},
        }
        for status in statuses
    }
