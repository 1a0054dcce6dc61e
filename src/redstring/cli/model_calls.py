"""Model calls as the command sees them: counted, and stopped when the model is not there.

The library records a failed passage and carries on, which is right for one bad answer and
wrong for a model that cannot answer at all: a server that refuses connections, a key it
refuses, a model name it does not know, or a server that never answers would otherwise turn
every passage into a failure and the run into an empty graph that exits 0. So the command
wraps its provider twice (ADR 0044):

* inside the retries (:class:`CountedModel`), every real call is counted, and a failure no
  retry can mend (connection refused, an unknown host, 401/403, 404) raises
  :class:`ModelUnavailableError` at once;
* outside them (:class:`StopWhenDown`), an open circuit (too many failures in a minute), or
  a failed call before any call of this run has succeeded (a timeout, a 5xx), does too.

:class:`ModelUnavailableError` is the command's own error, not an ``LlmProviderError``, so
``ingest`` does not record it as one failed passage: it stops the run, exit 1, with one line
naming the server, the model and the cause. Passages extracted before it are kept in the
event log, so the next run asks only for the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from redstring.cli.errors import CliError
from redstring.ports.errors import CircuitOpenError, LlmProviderError, TransientLlmError
from redstring.ports.llm_provider import LlmProvider, SchemaT

__all__ = ["CountedModel", "ModelCalls", "ModelUnavailableError", "StopWhenDown"]


class ModelUnavailableError(CliError):
    """The model server cannot be used at all; the message names it, the model and why."""


@dataclass
class ModelCalls:
    """What this run asked of the model server."""

    base_url: str
    model: str
    made: int = 0
    succeeded: int = 0
    failed: int = 0
    last_failure: str = ""

    def unavailable(self, cause: str) -> ModelUnavailableError:
        """The one-line error for ``cause``, naming the server and the model."""
        return ModelUnavailableError(
            f"the model server at {self.base_url} (model {self.model}) {cause}; nothing more "
            "was asked of it. Passages extracted so far are kept: fix the server or the "
            "--llm-* settings and run the same command again"
        )


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _names(error: BaseException) -> set[str]:
    return {klass.__name__ for klass in type(error).__mro__}


def fatal_cause(error: BaseException) -> str | None:
    """Why no retry can help, read from the exception chain (by class name and status, so
    the transport library need not be imported); None when a retry might."""
    links = list(_chain(error))
    for link in links:
        names = _names(link)
        status = getattr(link, "status_code", None)
        if "AuthenticationError" in names or status == 401:
            return "refused the API key (401 Unauthorized): check --llm-api-key"
        if "PermissionDeniedError" in names or status == 403:
            return "refused the request (403 Forbidden): the key may not use this model"
        if "NotFoundError" in names or status == 404:
            return (
                "answered 404 Not Found: it does not know this model, or the URL is not an "
                "OpenAI-compatible API (it usually ends in /v1)"
            )
    if any(isinstance(link, ConnectionRefusedError) for link in links):
        return "refused the connection: nothing listens there"
    for link in links:
        if isinstance(link, TimeoutError) or "TimeoutException" in _names(link):
            return None
        if "ConnectError" in _names(link) or isinstance(link, OSError):
            detail = " ".join(str(link).split())
            return f"cannot be reached ({detail or type(link).__name__})"
    return None


def _summary(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text[:300] or type(error).__name__


class _Watched:
    """An LlmProvider around another, sharing one :class:`ModelCalls`."""

    def __init__(self, inner: LlmProvider, calls: ModelCalls) -> None:
        self._inner = inner
        self.calls = calls

    @property
    def model(self) -> str:
        """The wrapped provider's model."""
        return self._inner.model


class CountedModel(_Watched):
    """An LlmProvider that counts its calls and stops on failures no retry can mend."""

    async def extract(
        self, text: str, schema: type[SchemaT], *, system_prompt: str | None = None
    ) -> SchemaT:
        """The inner provider's answer; :class:`ModelUnavailableError` when it cannot come."""
        self.calls.made += 1
        try:
            answer = await self._inner.extract(text, schema, system_prompt=system_prompt)
        except LlmProviderError as error:
            self.calls.failed += 1
            self.calls.last_failure = _summary(error)
            cause = fatal_cause(error)
            if cause is not None:
                raise self.calls.unavailable(cause) from error
            raise
        self.calls.succeeded += 1
        return answer


class StopWhenDown(_Watched):
    """An LlmProvider (the resilient one) whose give-ups stop the run while nothing works."""

    async def extract(
        self, text: str, schema: type[SchemaT], *, system_prompt: str | None = None
    ) -> SchemaT:
        """The inner answer; an open circuit, or a first call that fails, stops the run."""
        try:
            return await self._inner.extract(text, schema, system_prompt=system_prompt)
        except CircuitOpenError as error:
            last = self.calls.last_failure or _summary(error)
            raise self.calls.unavailable(
                f"failed too many calls in a row (the circuit is open); last failure: {last}"
            ) from error
        except TransientLlmError as error:
            if self.calls.succeeded == 0:
                raise self.calls.unavailable(
                    f"did not answer the first call of this run: {_summary(error)}"
                ) from error
            raise
