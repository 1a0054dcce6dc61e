"""LlmProvider: structured extraction from text by a language model.

Rules (no compliance suite: there is nothing stored to read back; see the scripted-transport
tests of each adapter):

* ``model`` is provider-qualified, versioned provenance (``"ollama/qwen3-8b"``); it lands on
  every extracted fact and in the event log.
* ``extract`` returns an instance of ``schema`` validated from the model's output, or raises
  an :class:`~redstring.ports.errors.LlmProviderError`: ``EmptyCompletionError`` for no usable
  content (blank or truncated), ``MalformedCompletionError`` for output that does not validate,
  ``RefusedCompletionError`` for a refusal. Only a parsed instance holding nothing means
  "nothing found".
* Blank ``text`` raises :class:`~redstring.domain.errors.EmptyTextError` before any call.
* No default ``system_prompt``: the caller owns the instructions.

Not closable.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

SchemaT = TypeVar("SchemaT", bound=BaseModel)


@runtime_checkable
class LlmProvider(Protocol):
    """Extracts a schema instance from text."""

    @property
    def model(self) -> str:
        """Provider-qualified, versioned model identity."""
        ...

    async def extract(
        self, text: str, schema: type[SchemaT], *, system_prompt: str | None = None
    ) -> SchemaT:
        """Ask the model for ``schema`` filled from ``text``; raise rather than return nothing."""
        ...
