"""Values every backend can hold: the rules that keep the adapters of a port agreeing.

A value one backend stores and another refuses makes the two adapters different products, so
the models refuse it for all of them (ADR 0023): JSON has no NaN or infinity (PostgreSQL's
``json`` refuses them, the in-memory and Neo4j stores kept them); no UTF-8 store can hold a
lone surrogate; Neo4j indexes at most 8,146 bytes of a string, so a
blocking key is bounded in characters well below that. A model field breaking a rule fails
validation (pydantic's ``ValidationError``, a ``ValueError``) with a message naming the value
and the rule.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable, Mapping
from typing import Annotated

from pydantic import AfterValidator, JsonValue

from redstring.domain.errors import InvalidArgumentError

MAX_BLOCKING_KEY_LENGTH = 1024
"""The longest blocking key, in characters: at most 4,096 UTF-8 bytes, half of what Neo4j's
index can hold, and far more than any key needs to nominate candidates."""

MAX_SQL_INT = 2**31 - 1
"""The largest value of a 32-bit SQL ``integer`` column (chunk indexes, stream versions)."""

MAX_JSON_DEPTH = 32
"""How deeply a caller's JSON value (document metadata, record attributes) may nest: far more
than any export needs, and far less than a JSON decoder's or PostgreSQL's recursion limit."""


def check_unicode(value: str, *, what: str = "text") -> str:
    """``value`` if it encodes as UTF-8, i.e. holds no lone surrogate.

    Raises :class:`InvalidArgumentError` naming the position of the first surrogate otherwise.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(
            f"{what} holds a lone surrogate {value[error.start]!r} at index {error.start}: "
            "no UTF-8 store can keep it; decode the source with errors='replace'"
        ) from None
    return value


def check_json(value: JsonValue, *, what: str = "JSON value") -> JsonValue:
    """``value`` if its numbers are finite and its strings (keys too) encode as UTF-8.

    NUL inside a JSON string is fine: every backend stores it escaped (PostgreSQL's ``json``).

    Raises :class:`InvalidArgumentError` naming the offending value otherwise.
    """
    # One C-speed pass decides the common case (every value is fine); the walk below only
    # runs to find and name the offender.
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, TypeError):
        _walk_json(value, what=what)
    return value


def check_json_depth(value: object, *, what: str, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`InvalidArgumentError` when ``value`` nests objects or arrays deeper than
    ``limit`` (a scalar has depth 0, ``{"a": 1}`` depth 1). Walks without recursion, so any
    depth is measured safely."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[object]
        if isinstance(item, Mapping):
            children = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth + 1 > limit:
            raise InvalidArgumentError(
                f"{what} nests objects and arrays more than {limit} levels deep; flatten it"
            )
        stack.extend((child, depth + 1) for child in children)


def _walk_json(value: JsonValue, *, what: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidArgumentError(
            f"{what} holds {value!r}: JSON has no NaN or infinity; store null or a string"
        )
    if isinstance(value, str):
        _check_json_string(value, what=what)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_json_string(key, what=f"{what} key")
            _walk_json(item, what=what)
    elif isinstance(value, list):
        for item in value:
            _walk_json(item, what=what)


def _check_json_string(value: str, *, what: str) -> None:
    check_unicode(value, what=what)


def _check_json_object(value: dict[str, JsonValue]) -> dict[str, JsonValue]:
    check_json(value)
    return value


JsonObject = Annotated[dict[str, JsonValue], AfterValidator(_check_json_object)]
"""A JSON object every backend stores as written: finite numbers, UTF-8 strings."""


def json_copy(value: object) -> object:
    """A deep copy of a JSON value (dicts, lists, strings, numbers, ``None``), several times
    cheaper than ``copy.deepcopy``; anything else is deep-copied the slow way."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return copy.deepcopy(value)  # only reachable by mutating a model past its validation
