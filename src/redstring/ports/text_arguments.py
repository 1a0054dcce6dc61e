"""Text arguments every backend can hold, checked the same way by every adapter (ADR 0023).

PostgreSQL cannot hold NUL in text and no UTF-8 backend can hold a lone surrogate, so a
tenant id, key, type or id carrying one raised a driver error on PostgreSQL while the
in-memory store matched nothing or stored it. Every store adapter applies
:func:`checks_text_arguments` to its class: each public coroutine method then refuses such a
``str`` argument (or one inside a list, tuple or set argument) with
:class:`~redstring.domain.errors.InvalidArgumentError` naming the parameter, before touching
its backend. Models are not looked into: they validate their own text.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

from redstring.domain.errors import InvalidArgumentError

_Class = TypeVar("_Class", bound=type)


def check_text_argument(value: str, *, what: str) -> str:
    """``value`` if it is UTF-8 text without NUL; :class:`InvalidArgumentError` otherwise."""
    if "\x00" in value:
        raise InvalidArgumentError(
            f"{what}={value[:40]!r} holds a NUL character, which no store can hold or match"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(
            f"{what}={value[:40]!r} holds a lone surrogate at index {error.start}, which no "
            "UTF-8 store can hold or match"
        ) from None
    return value


def checks_text_arguments(*, skip: Collection[str] = ()) -> Callable[[_Class], _Class]:
    """A class decorator: every public coroutine method checks its text arguments first.

    Parameters named in ``skip`` are left to the method, for names it validates with a rule
    of its own (an event stream's name). Methods a subclass overrides are not wrapped, but
    reach the check when they call ``super()``.
    """

    def decorate(cls: _Class) -> _Class:
        for name, member in list(vars(cls).items()):
            if not name.startswith("_") and inspect.iscoroutinefunction(member):
                setattr(cls, name, _checking(member, frozenset(skip)))
        return cls

    return decorate


def _checking(
    method: Callable[..., Awaitable[Any]], skip: frozenset[str]
) -> Callable[..., Awaitable[Any]]:
    signature = inspect.signature(method)

    @functools.wraps(method)
    async def checked(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        for parameter, value in bound.arguments.items():
            if parameter not in skip:
                _check(value, parameter)
        return await method(*args, **kwargs)

    return checked


def _check(value: object, parameter: str) -> None:
    if isinstance(value, str):
        check_text_argument(value, what=parameter)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            if isinstance(item, str):
                check_text_argument(item, what=parameter)
