"""FakeLlmProvider: a scripted LlmProvider for tests downstream of extraction.

Use it instead of a mock. Answers are payload dicts validated against the caller's schema by
``redstring.llm.adapters.validation.parse_completion``, the gate the real adapters use, so a
test cannot smuggle a pre-built schema instance past validation. A payload is one of:

* a ``dict``: what the model would have returned, validated on every call;
* :data:`EMPTY`: the model returned nothing usable, raising ``EmptyCompletionError`` (which
  stays distinguishable from a dict that validates to an instance holding nothing);
* an ``LlmProviderError`` instance or subclass: raised as the model call's failure.

Program it with ``by_substring={...}`` (the answer for a text is the payload whose key occurs
in it, whatever the order of calls) or ``script=[...]`` (one payload per call, in order).
Prefer ``by_substring`` for anything about chunking or merging: with a script, permuting the
chunks permutes the answers, so an order-independence test would pass against a merge that
is not order-independent. A call the fake has no single answer for raises
:class:`UnscriptedCallError`, which is deliberately not an ``LlmProviderError``: a pipeline
skipping failed chunks must not swallow a mistake in the test's own script.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, TypeVar

from pydantic import BaseModel, JsonValue

from redstring.domain.errors import EmptyTextError, InvalidArgumentError, RedstringError
from redstring.llm.adapters.validation import parse_completion
from redstring.ports.errors import EmptyCompletionError, LlmProviderError

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class _Empty(enum.Enum):
    EMPTY = "EMPTY"

    def __repr__(self) -> str:
        return "EMPTY"


EMPTY: Final = _Empty.EMPTY
"""Script this for a call whose model returns no usable content (blank or truncated)."""

Payload: TypeAlias = (
    dict[str, JsonValue] | Literal[_Empty.EMPTY] | LlmProviderError | type[LlmProviderError]
)
"""What one call answers: a dict to validate, :data:`EMPTY`, or a failure to raise."""


class UnscriptedCallError(RedstringError, LookupError):
    """The fake has no single scripted answer for a call: fix the test's script."""


@dataclass(frozen=True)
class LlmCall:
    """One ``extract`` call as the fake received it."""

    text: str
    schema: type[BaseModel]
    system_prompt: str | None


class FakeLlmProvider:
    """Answers ``extract`` from a script; records every call for assertions.

    Exactly one of ``by_substring`` and ``script`` is given. Blank text raises
    :class:`EmptyTextError` before any call is made or recorded. Every returned instance is
    freshly validated, so mutating one answer never changes the next.
    """

    def __init__(
        self,
        model: str = "fake/scripted",
        *,
        by_substring: Mapping[str, Payload] | None = None,
        script: Sequence[Payload] | None = None,
    ) -> None:
        vendor, slash, name = model.partition("/")
        if not (slash and vendor.strip() and name.strip()):
            raise InvalidArgumentError(
                f"model={model!r} is not provider-qualified: use '<provider>/<name>', "
                "e.g. 'fake/scripted'"
            )
        if (by_substring is None) == (script is None):
            raise InvalidArgumentError(
                "pass exactly one of by_substring={substring: payload} or script=[payload, ...]"
            )
        for key in by_substring or {}:
            if not key.strip():
                raise InvalidArgumentError(
                    f"by_substring key {key!r} is blank and would match every text: use a "
                    "substring that identifies the text"
                )
        payloads = list(by_substring.values()) if by_substring is not None else list(script or [])
        for payload in payloads:
            _check_payload(payload)
        self._model = model
        self._by_substring = dict(by_substring) if by_substring is not None else None
        self._script = list(script) if script is not None else []
        self._next = 0
        self._calls: list[LlmCall] = []

    @property
    def model(self) -> str:
        """Provider-qualified identity, as it would land on extracted provenance."""
        return self._model

    @property
    def calls(self) -> tuple[LlmCall, ...]:
        """Every call that reached the model, in order (a snapshot, not a live view)."""
        return tuple(self._calls)

    async def extract(
        self, text: str, schema: type[SchemaT], *, system_prompt: str | None = None
    ) -> SchemaT:
        """The scripted answer for ``text`` validated as ``schema``, or the scripted failure."""
        if not text.strip():
            raise EmptyTextError(
                f"text {text!r} is blank: extraction needs at least one non-whitespace character"
            )
        payload = self._payload_for(text)
        self._calls.append(LlmCall(text=text, schema=schema, system_prompt=system_prompt))
        if payload is EMPTY:
            raise EmptyCompletionError(
                f"the model returned no content for schema {schema.__name__} (scripted EMPTY)"
            )
        if isinstance(payload, LlmProviderError):
            raise payload.with_traceback(None)
        if isinstance(payload, type):
            raise payload(f"scripted {payload.__name__} for text {text[:60]!r}")
        return parse_completion(copy.deepcopy(payload), schema)

    def _payload_for(self, text: str) -> Payload:
        if self._by_substring is None:
            if self._next >= len(self._script):
                raise UnscriptedCallError(
                    f"the script has {len(self._script)} payload(s) and all were used; call "
                    f"{self._next + 1} was for text {text[:60]!r}"
                )
            self._next += 1
            return self._script[self._next - 1]
        matches = sorted(key for key in self._by_substring if key in text)
        if len(matches) != 1:
            problem = "matches no key" if not matches else f"matches several keys {matches}"
            raise UnscriptedCallError(
                f"text {text[:60]!r} {problem}; by_substring needs exactly one key occurring "
                f"in each text (keys: {sorted(self._by_substring)})"
            )
        return self._by_substring[matches[0]]


def _check_payload(payload: object) -> None:
    if payload is EMPTY or isinstance(payload, dict | LlmProviderError):
        return
    if isinstance(payload, type) and issubclass(payload, LlmProviderError):
        return
    if isinstance(payload, BaseModel):
        raise InvalidArgumentError(
            f"a pre-built {type(payload).__name__} instance cannot be scripted: pass the dict "
            "the model would return, so it is validated against the caller's schema like real "
            "output"
        )
    raise InvalidArgumentError(
        f"payload {payload!r} is not scriptable: use a dict, EMPTY, or an LlmProviderError "
        "instance or subclass"
    )
