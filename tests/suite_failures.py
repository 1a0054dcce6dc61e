"""Run every case of a compliance suite in process and report which failed, for mutant tests.

A mutant test plants one defect in an adapter and shows the suite catches it: it builds the
fixtures a suite's cases ask for (``cache``, ``provider``, ``embed``, ``store``) from the
broken adapter, runs every ``test_*`` through :func:`failing_cases` and asserts the case
written for that defect is among the failures. The same call against the intact adapter
must report none, which is what makes a failure evidence about the mutant rather than about
this runner.

Example-based cases run concurrently, each on its own event loop in a worker thread, so the
expiry cases' sleeps overlap. A hypothesis case runs alone on a fresh thread, through public
hypothesis API only, so an upgrade cannot change what "caught" means without a loud error:

* ``execute_example`` (hypothesis's documented executor hook, looked up on the instance
  running the test) runs each example's coroutine on the case's loop, which is what
  pytest-asyncio does for it under pytest;
* the first failing example stops the run: the executor re-raises it wrapped in a
  ``BaseException`` that hypothesis does not treat as a test failure, so it propagates at
  once instead of being shrunk (shrinking a broken adapter's failures took over a minute
  per case, and a mutant needs one counterexample, not the smallest);
* ``hypothesis.seed`` fixes the examples for the call and is lifted afterwards with
  ``seed(None)``, so "caught" is the same answer on every run.

:func:`run_suite_test` runs one named case of a store suite the same way.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import is_hypothesis_test, seed
from hypothesis.errors import FailedHealthCheck, HypothesisException, InvalidArgument

Fixtures = Mapping[str, Mapping[str, Callable[[], Any]]]
"""Fixture name -> {parameter id: factory}; a factory may return an awaitable."""

# Errors about how a case was run rather than about the adapter: counting one as "caught"
# would make every mutant look caught, so they propagate instead.
_HARNESS_ERRORS = (FailedHealthCheck, InvalidArgument, NotImplementedError)

# The examples every property case draws in a mutant run (any fixed value would do; set
# REDSTRING_MUTANT_SEED to check that a mutant is caught under other examples too).
_SEED = int(os.environ.get("REDSTRING_MUTANT_SEED", "20240601"))

# What a failing example raises: an assertion, a pytest.fail or pytest.raises outcome, or
# any other error of the adapter. Hypothesis's own control flow (assume, StopTest) is not.
_FAILURES = (Exception, pytest.fail.Exception)


class _FirstFailure(BaseException):
    """Carries an example's failure out of hypothesis, which lets it through unshrunk."""

    def __init__(self, failure: BaseException) -> None:
        super().__init__(repr(failure))
        self.failure = failure


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
    return is_hypothesis_test(getattr(suite, name))


def _run(suite: object, case: _Case) -> BaseException | None:
    method = getattr(suite, case.name)
    with asyncio.Runner() as runner:
        try:
            arguments = runner.run(_build(case.factories))
            if _is_property(suite, case.name):
                return _run_property(runner, suite, method, arguments)
            if inspect.iscoroutinefunction(method):
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
    runner: asyncio.Runner, suite: object, method: Callable[..., None], arguments: dict[str, Any]
) -> BaseException | None:
    test = getattr(method, "__func__", method)

    def execute_example(function: Callable[[], object]) -> object:
        try:
            result = function()
            return runner.run(result) if inspect.isawaitable(result) else result  # type: ignore[arg-type]
        except _HARNESS_ERRORS:
            raise
        except HypothesisException:
            raise
        except _FAILURES as failure:
            raise _FirstFailure(failure) from failure

    suite.execute_example = execute_example  # type: ignore[attr-defined]
    seed(_SEED)(test)
    try:
        method(**arguments)
    except _FirstFailure as first:
        return first.failure
    finally:
        seed(None)(test)
        del suite.execute_example  # type: ignore[attr-defined]
    return None
