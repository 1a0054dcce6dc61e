"""In-memory adapters that check their own indexes after every call, for the unit tests.

An in-memory adapter keeps secondary indexes (postings, entity lists, endpoint sets, stream
lists) beside its rows, and ``index_problems()`` rebuilds them from the rows and names every
difference. :func:`checking_indexes` derives a subclass whose every public coroutine runs
that check when it returns or raises, so the compliance suites (their property cases
included) and the generated histories fail at the first call that leaves an index out of
step, instead of at some later read that happens to look.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast


class _Indexed(Protocol):
    def index_problems(self) -> list[str]: ...


AdapterT = TypeVar("AdapterT", bound=type[Any])


class IndexDisagreementError(AssertionError):
    """An adapter's indexes no longer describe its rows after the call named."""


def checking_indexes(adapter: AdapterT) -> AdapterT:
    """A subclass of ``adapter`` that checks ``index_problems()`` after each public call.

    The check runs when the call returns and when it raises: a call that fails must leave
    the indexes as consistent as one that succeeds. A disagreement raises
    :class:`IndexDisagreementError` naming the call and every problem.
    """
    if not callable(getattr(adapter, "index_problems", None)):
        raise TypeError(f"{adapter.__name__} has no index_problems() to check")
    checked = {
        name: _checked(name, method)
        for name, method in inspect.getmembers(adapter, inspect.iscoroutinefunction)
        if not name.startswith("_")
    }
    return cast(AdapterT, type(f"IndexChecked{adapter.__name__}", (adapter,), checked))


def _checked(
    name: str, method: Callable[..., Awaitable[object]]
) -> Callable[..., Awaitable[object]]:
    @functools.wraps(method)
    async def call_then_check(self: _Indexed, *args: object, **kwargs: object) -> object:
        try:
            return await method(self, *args, **kwargs)
        finally:
            problems = self.index_problems()
            if problems:
                raise IndexDisagreementError(
                    f"after {name}{_shown(args, kwargs)}: " + "; ".join(problems)
                )

    return call_then_check


def _shown(args: tuple[object, ...], kwargs: dict[str, object]) -> str:
    parts = [repr(arg)[:200] for arg in args] + [f"{k}={v!r}"[:200] for k, v in kwargs.items()]
    return f"({', '.join(parts)})"
