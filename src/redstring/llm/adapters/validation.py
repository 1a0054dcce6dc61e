"""The one gate every LlmProvider adapter passes a model's output through.

``parse_completion`` turns raw output (JSON text, or an already-decoded JSON object) into an
instance of the caller's schema, or raises: blank output is ``EmptyCompletionError``, output
that is not JSON or does not validate is ``MalformedCompletionError``. Fakes use the same
gate, so a test cannot smuggle a pre-built schema instance past validation.
"""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel, JsonValue, ValidationError

from redstring.ports.errors import EmptyCompletionError, MalformedCompletionError

SchemaT = TypeVar("SchemaT", bound=BaseModel)

_PREVIEW = 200


def parse_completion(raw: str | dict[str, JsonValue], schema: type[SchemaT]) -> SchemaT:
    """Validate ``raw`` against ``schema``; raise a typed error rather than return nothing."""
    if isinstance(raw, str):
        text = _strip_fence(raw.strip())
        if not text:
            raise EmptyCompletionError(
                f"the model returned no content for schema {schema.__name__}"
            )
        try:
            decoded = json.loads(text)
        except json.JSONDecodeError as error:
            raise MalformedCompletionError(
                f"the model's output is not JSON ({error.msg} at char {error.pos}): "
                f"{text[:_PREVIEW]!r}"
            ) from None
    else:
        decoded = raw
    if not isinstance(decoded, dict):
        raise MalformedCompletionError(
            f"the model returned {type(decoded).__name__}, not a JSON object for schema "
            f"{schema.__name__}"
        )
    try:
        return schema.model_validate(decoded)
    except ValidationError as error:
        raise MalformedCompletionError(
            f"the model's output does not validate against {schema.__name__}: "
            f"{error.error_count()} error(s), first: {error.errors()[0]['msg']} at "
            f"{'.'.join(str(p) for p in error.errors()[0]['loc']) or '<root>'}"
        ) from None


def _strip_fence(text: str) -> str:
    """Accept output wrapped in one Markdown code fence, as some servers return it."""
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        inner = text[3:-3]
        first_newline = inner.find("\n")
        return inner[first_newline + 1 :].strip() if first_newline >= 0 else inner.strip()
    return text
