"""Run every case of a compliance suite in process and report which failed, for mutant tests.

A mutant test plants one defect in an adapter and shows the suite catches it: it builds the
fixtures a suite's cases ask for (``cache``, ``provider``, ``embed``, ``store``) from the
broken adapter, runs every ``test_*`` through :func:`failing_cases` and asserts the case
written for that defect is among the failures. The same call against the intact adapter
must report none, which is what makes a failure evidence about the mutant rather than about
this runner.

Example-based cases run concurrently, each on its own event loop in a worker thread, so the
expiry cases' sleeps overlap. A hypothesis case runs alone on a fresh thread with its async
inner test swapped, for the duration of the call, for one that runs each example on the
case's loop (what pytest-asyncio does for it under pytest), derandomised and without the
shrink phase. :func:`run_suite_test` runs one named case of a store suite the same way.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from hypothesis import Phase, settings
from hypothesis.errors import FailedHealthCheck, InvalidArgument

Fixtures = Mapping[str, Mapping[str, Callable[[], Any]]]
"""Fixture name -> {parameter id: factory}; a factory may return an awaitable."""

# Errors about how a case was run rather than about the adapter: counting one as "caught"
# would make every mutant look caught, so they propagate instead.
_HARNESS_ERRORS = (FailedHealthCheck, InvalidArgument, NotImplementedError)


@dataclass(frozen=True, eq=False)
class _Case:
    label: str
    name: str
    factories: dict[str, Callable[[], Any]]


def failing_cases(suite: object, fixtures: Fixtures) -> dict[str, BaseException]:
    """Run every ``test_*`` of ``suite`` once per fixture combination; return the failures.

    Keys are the case names, with ``[id-id]`` appended when a fixture has several
    parameters. A case asking for a fixture missing from ``fixtures`` raises ``KeyError``.
    """
    cases = list(_cases(suite, fixtures))
    properties = [case for case in cases if _is_property(suite, case.name)]
    examples = [case for case in cases if case not in properties]
    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = dict(zip(examples, pool.map(lambda c: _run(suite, c), examples), strict=True))
    outcomes |= {case: _on_a_fresh_thread(suite, case) for case in properties}
    return {case.label: failure for case, failure in outcomes.items() if failure is not None}


def run_suite_test(suite: Any, name: str) -> BaseException | None:
    """Run ``suite.<name>`` once; return what it raised, or ``None`` when it passed.

    A case asking for ``store`` gets one from the suite's ``new_store()``; property cases
    build their own per example. Harness errors propagate rather than count as a catch.
    """
    wanted = inspect.signature(getattr(suite, name)).parameters
    factories: dict[str, Callable[[], Any]] = {}
    if "store" in wanted:
        factories["store"] = suite.new_store
    case = _Case(label=name, name=name, factories=factories)
    return _on_a_fresh_thread(suite, case) if _is_property(suite, name) else _run(suite, case)


def _cases(suite: object, fixtures: Fixtures) -> list[_Case]:
    found = []
    for name in sorted(n for n in dir(suite) if n.startswith("test_")):
        wanted = list(inspect.signature(getattr(suite, name)).parameters)
        choices = [list(fixtures[fixture].items()) for fixture in wanted]
        for combination in itertools.product(*choices):
            ids = [identifier for identifier, _ in combination if identifier]
            label = f"{name}[{'-'.join(ids)}]" if ids else name
            factories = {f: factory for f, (_, factory) in zip(wanted, combination, strict=True)}
            found.append(_Case(label=label, name=name, factories=factories))
    return found


def _on_a_fresh_thread(suite: object, case: _Case) -> BaseException | None:
    # Hypothesis remembers, per thread, the instance that first ran a @given method and fails
    # a health check when another instance runs it. Under pytest the adapter's own subclass
    # runs the same method in this process; a thread of its own keeps the two apart either
    # way round, without suppressing the check for anyone.
    with ThreadPoolExecutor(max_workers=1) as one:
        return one.submit(_run, suite, case).result()


def _is_property(suite: object, name: str) -> bool:
    return getattr(getattr(suite, name), "hypothesis", None) is not None


def _run(suite: object, case: _Case) -> BaseException | None:
    method = getattr(suite, case.name)
    with asyncio.Runner() as runner:
        try:
            arguments = runner.run(_build(case.factories))
            hypothesis = getattr(method, "hypothesis", None)
            if hypothesis is not None:
                _run_property(runner, method, hypothesis, arguments)
            elif inspect.iscoroutinefunction(method):
                runner.run(method(**arguments))
            else:
                method(**arguments)
        except (KeyboardInterrupt, SystemExit):
            raise
        except _HARNESS_ERRORS:
            raise
        except BaseException as failure:  # pytest.fail and pytest.raises raise BaseException
            return failure
    return None


async def _build(factories: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    built = {}
    for name, factory in factories.items():
        value = factory()
        built[name] = await value if inspect.isawaitable(value) else value
    return built


def _run_property(
    runner: asyncio.Runner, method: Callable[..., None], hypothesis: Any, arguments: dict[str, Any]
) -> None:
    inner: Callable[..., Coroutine[Any, Any, None]] = hypothesis.inner_test
    test = getattr(method, "__func__", method)
    configured = test._hypothesis_internal_use_settings

    def synchronous(*args: Any, **kwargs: Any) -> None:
        runner.run(inner(*args, **kwargs))

    hypothesis.inner_test = synchronous
    # A mutant needs one counterexample, not the smallest: shrinking a broken adapter's
    # failures took over a minute per case. Hypothesis reads these settings at call time.
    test._hypothesis_internal_use_settings = settings(
        configured,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),
        report_multiple_bugs=False,
        # Derandomised, so "caught" is the same answer on every run.
        derandomize=True,
    )
    try:
        method(**arguments)
    finally:
        hypothesis.inner_test = inner
        test._hypothesis_internal_use_settings = configured
