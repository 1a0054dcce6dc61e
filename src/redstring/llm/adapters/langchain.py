"""LlmProvider over any LangChain chat model, with one constructor for OpenAI-compatible servers.

``LangChainLlmProvider(chat_model, model="ollama/qwen3-8b")`` asks ``chat_model`` for the
caller's schema as a JSON-schema response format and validates the answer through
:func:`~redstring.llm.adapters.validation.parse_completion`, the gate every LlmProvider shares.
``from_openai_compatible`` builds the chat model for Ollama, vLLM, LM Studio or OpenAI.

What a caller may rely on:

* ``model`` is the provenance given at construction; no chat model knows which server it
  was pointed at, so it is never derived from one.
* The text is the only human turn; a ``system_prompt`` is a separate system turn before it,
  and there is no default one.
* Blank text raises :class:`~redstring.domain.errors.EmptyTextError` before any call.
* Every failure is an :class:`~redstring.ports.errors.LlmProviderError`: a truncation is
  ``EmptyCompletionError``, a refusal or content filter ``RefusedCompletionError``, output
  that does not validate ``MalformedCompletionError``, a timeout, 429, 5xx or dropped
  connection ``TransientLlmError`` (worth retrying), anything else the base class, with the
  transport's own exception chained as ``__cause__``.

No LangChain or openai module is imported at module level: types are imported for the type
checker only, and ``langchain_openai`` inside ``from_openai_compatible``, so that a transport
library never becomes part of this module's import cost or its failure contract.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.llm.adapters.validation import parse_completion
from redstring.ports.errors import (
    EmptyCompletionError,
    LlmProviderError,
    RefusedCompletionError,
    TransientLlmError,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

SchemaT = TypeVar("SchemaT", bound=BaseModel)

# A placeholder key: local OpenAI-compatible servers ignore it, and passing one stops
# ChatOpenAI from reading OPENAI_API_KEY itself (the library reads no environment).
_NO_API_KEY = "not-needed"

# Matched by class name anywhere in the MRO, so neither openai nor langchain_core needs
# importing to recognise its errors (and a subclass is recognised as its parent).
_TRUNCATED = frozenset({"LengthFinishReasonError"})
_REFUSED = frozenset({"ContentFilterFinishReasonError", "ModelRefusalError"})
_TRANSIENT = frozenset(
    {
        "APITimeoutError",
        "APIConnectionError",
        "RateLimitError",
        "InternalServerError",
        "ModelRateLimitError",
        "ModelAPIError",
        "ModelConnectionError",
        "ModelTimeoutError",
    }
)
_TRANSIENT_STATUS = frozenset({408, 409, 429})

# finish_reason (OpenAI chat), stop_reason (Anthropic), done_reason (Ollama native).
_STOP_KEYS = ("finish_reason", "stop_reason", "done_reason")
_TRUNCATION_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})

_SCHEMA_NAME = re.compile(r"[^A-Za-z0-9_-]")


class LangChainLlmProvider:
    """Structured extraction through a LangChain chat model.

    ``strict`` is sent as the response format's ``strict`` flag. It defaults to False because
    OpenAI rejects a strict schema unless every property is required and no object admits
    extra keys, which most pydantic schemas do not satisfy; the answer is validated against
    the schema here either way.
    """

    def __init__(self, chat_model: BaseChatModel, *, model: str, strict: bool = False) -> None:
        provider, _, name = model.partition("/")
        if not provider.strip() or not name.strip():
            raise InvalidArgumentError(
                f"model {model!r} is not provider-qualified: pass provenance such as "
                "'ollama/qwen3-8b' or 'openai/gpt-4o-2024-08-06'"
            )
        self._chat_model = chat_model
        self._model = model
        self._strict = strict

    @classmethod
    def from_openai_compatible(
        cls,
        base_url: str,
        model: str,
        *,
        provider: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 0,
        temperature: float | None = 0.0,
        strict: bool = False,
    ) -> LangChainLlmProvider:
        """A provider over ``ChatOpenAI`` pointed at ``base_url``; ``model`` becomes
        ``f"{provider}/{model}"``.

        Works with any server speaking the OpenAI chat-completions API (Ollama at
        ``http://localhost:11434/v1``, vLLM, LM Studio, OpenAI). ``api_key=None`` sends a
        placeholder, which local servers ignore; OpenAI needs the real key passed here.
        ``max_retries`` defaults to 0 because retrying is the resilience layer's decision:
        a transient failure surfaces as ``TransientLlmError``. Nothing is sent over the
        network until ``extract`` is called.
        """
        if not provider.strip() or "/" in provider:
            raise InvalidArgumentError(
                f"provider {provider!r} must be a non-blank name without '/', such as "
                "'ollama', 'vllm', 'lmstudio' or 'openai'"
            )
        from langchain_openai import ChatOpenAI

        chat_model = ChatOpenAI(
            model=model,
            base_url=base_url,
            api_key=api_key if api_key is not None else _NO_API_KEY,
            timeout=timeout,
            max_retries=max_retries,
            temperature=temperature,
        )
        return cls(chat_model, model=f"{provider}/{model}", strict=strict)

    @property
    def model(self) -> str:
        """Provider-qualified, versioned model identity, as given at construction."""
        return self._model

    @property
    def chat_model(self) -> BaseChatModel:
        """The LangChain chat model every ``extract`` calls."""
        return self._chat_model

    async def extract(
        self, text: str, schema: type[SchemaT], *, system_prompt: str | None = None
    ) -> SchemaT:
        """Ask the model for ``schema`` filled from ``text``; raise rather than return nothing."""
        if not text.strip():
            raise EmptyTextError(
                f"text {text[:40]!r} is blank: pass text with at least one non-whitespace "
                "character to extract from"
            )
        if system_prompt is not None and not system_prompt.strip():
            raise InvalidArgumentError(
                f"system_prompt {system_prompt!r} is blank: pass instructions, or None for no "
                "system turn"
            )
        messages = [("human", text)]
        if system_prompt is not None:
            messages.insert(0, ("system", system_prompt))
        bound = self._chat_model.bind(response_format=self._response_format(schema))
        try:
            reply = await bound.ainvoke(messages)
        except Exception as error:
            raise self._translate(error) from error
        return parse_completion(self._answer_text(reply), schema)

    def _response_format(self, schema: type[BaseModel]) -> dict[str, Any]:
        # OpenAI accepts only [A-Za-z0-9_-]{1,64} as a schema name.
        name = _SCHEMA_NAME.sub("_", schema.__name__)[:64] or "schema"
        return {
            "type": "json_schema",
            "json_schema": {
                "name": name,
                "schema": schema.model_json_schema(),
                "strict": self._strict,
            },
        }

    def _answer_text(self, reply: BaseMessage) -> str:
        """The answer's text, refusing refusals and truncations before any parsing."""
        refusal = _refusal_of(reply)
        if refusal is not None:
            raise RefusedCompletionError(f"{self._model} refused the request: {refusal[:200]!r}")
        reason = _truncation_of(reply.response_metadata)
        if reason is not None:
            raise EmptyCompletionError(
                f"{self._model} stopped at its token limit ({reason}): the answer is "
                "truncated; raise the output token budget or send a shorter text"
            )
        return _text_of(reply.content)

    def _translate(self, error: Exception) -> LlmProviderError:
        names = {klass.__name__ for klass in type(error).__mro__}
        described = f"{type(error).__name__}: {str(error)[:200]}"
        if names & _TRUNCATED:
            return EmptyCompletionError(
                f"{self._model} stopped at its token limit ({described}): raise the output "
                "token budget or send a shorter text"
            )
        if names & _REFUSED:
            return RefusedCompletionError(f"{self._model} refused the request ({described})")
        if _is_transient(error, names):
            return TransientLlmError(f"{self._model} call failed transiently ({described})")
        return LlmProviderError(f"{self._model} call failed ({described})")


def _is_transient(error: Exception, names: set[str]) -> bool:
    if names & _TRANSIENT or isinstance(error, TimeoutError | ConnectionError):
        return True
    if getattr(error, "is_retryable", False) is True:
        return True
    status = getattr(error, "status_code", None)
    return isinstance(status, int) and (status in _TRANSIENT_STATUS or status >= 500)


def _refusal_of(reply: BaseMessage) -> str | None:
    refusal = reply.additional_kwargs.get("refusal")
    if refusal:
        return str(refusal)
    if isinstance(reply.content, list):
        for block in reply.content:
            if isinstance(block, Mapping) and block.get("type") == "refusal":
                return str(block.get("refusal") or "refusal block without text")
    if reply.response_metadata.get("finish_reason") == "content_filter":
        return "stopped by a content filter"
    return None


def _truncation_of(metadata: Mapping[str, Any]) -> str | None:
    for key in _STOP_KEYS:
        if metadata.get(key) in _TRUNCATION_REASONS:
            return f"{key}={metadata[key]!r}"
    details = metadata.get("incomplete_details")
    if isinstance(details, Mapping) and details.get("reason") in _TRUNCATION_REASONS:
        return f"incomplete_details.reason={details['reason']!r}"
    return None


def _text_of(content: str | list[str | dict[Any, Any]]) -> str:
    """Join the text of a reply; reasoning and other non-text blocks are not the answer."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)
