"""The one check every decoded input passes before a handler sees it (ADR 0043).

JSON bodies (through the request models), each line of a JSON Lines import, the fields of a
multipart upload and the arguments of every MCP tool call are decoded into Python values,
and those values go through :func:`check_input`:

* nesting: at most :data:`MAX_DEPTH` levels of objects and arrays, walked without recursion.
  The JSON decoder itself raises ``RecursionError`` long before a value that deep could be
  built; a line of JSON Lines that does so is refused here too;
* lone surrogates: JSON's ``"\\ud800"`` escape decodes to a string no UTF-8 store, encoder or
  tokenizer can take, so it is refused in any string, keys included.

What a field means is checked where it is used: a source id's rule in
:func:`redstring.domain.ids.source_id`, text and metadata in :mod:`redstring.ingest.admission`,
sizes in :class:`~redstring.serve.limits.Limits`. Each refusal is an
:class:`InvalidInputError` naming the field by its path (``body.documents.0.metadata.k``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from redstring.domain.errors import InvalidArgumentError

__all__ = ["MAX_DEPTH", "InvalidInputError", "check_input", "decode_json"]

MAX_DEPTH = 64
"""The deepest nesting any request value may have (far more than any body here needs)."""


class InvalidInputError(InvalidArgumentError):
    """A decoded input breaks a rule every input obeys; ``field`` is its path."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


def _check_string(value: str, field: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidInputError(
            field,
            f"holds a lone surrogate at character {error.start}; send text as UTF-8 "
            "(a JSON \\ud800-\\udfff escape must be one half of a pair)",
        ) from None


def check_input(value: object, *, field: str) -> None:
    """Raise :class:`InvalidInputError` for the first rule ``value`` breaks (see the module)."""
    stack: list[tuple[object, str, int]] = [(value, field, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            _check_string(item, path)
            continue
        if isinstance(item, Mapping):
            children = []
            for key, child in item.items():
                shown = (
                    key.encode("utf-8", "backslashreplace").decode()
                    if isinstance(key, str)
                    else repr(key)
                )
                name = f"{path}.{shown}"
                if isinstance(key, str):
                    _check_string(key, name)
                children.append((child, name))
        elif isinstance(item, list | tuple):
            children = [(child, f"{path}.{index}") for index, child in enumerate(item)]
        else:
            continue
        if depth + 1 > MAX_DEPTH:
            raise InvalidInputError(
                path, f"nests objects and arrays more than {MAX_DEPTH} levels deep"
            )
        stack.extend((child, name, depth + 1) for child, name in children)


def decode_json(text: str, *, field: str) -> Any:
    """``text`` decoded as one JSON value and checked; :class:`InvalidInputError` otherwise."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInputError(
            field, f"not valid JSON ({error.msg} at column {error.colno})"
        ) from None
    except RecursionError:
        raise InvalidInputError(
            field, f"nests objects and arrays more than {MAX_DEPTH} levels deep"
        ) from None
    check_input(value, field=field)
    return value
