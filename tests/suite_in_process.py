"""Running one compliance-suite test in process, for the tests that plant defects in adapters.

A mutant test proves that a suite test can fail: it subclasses the suite with a
``new_store()`` returning a deliberately broken adapter and runs a named test through
:func:`run_suite_test`, outside pytest's collection. A hypothesis test gets what
pytest-asyncio gives it: its async inner test is swapped, for the duration of the call, for
a synchronous one that runs each example on an event loop.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Coroutine
from typing import Any

from hypothesis import Phase, settings
from hypothesis.errors import FailedHealthCheck, InvalidArgument

from redstring.testing.harness import StoreSuite

# Errors about how a test was run rather than about the store: counting one as "the mutant
# was caught" would make every mutant look caught. (TypeError is not among them: "raises
# TypeError on a list-valued entity_type" is a defect a mutant legitimately has.)
_HARNESS_ERRORS = (FailedHealthCheck, InvalidArgument, NotImplementedError)


def run_suite_test(suite: StoreSuite[Any], name: str) -> BaseException | None:
    """Run ``suite.<name>`` once; return what it raised, or ``None`` when it passed.

    Example-based tests receive a store from ``suite.fresh_store()``; property tests build
    their own per example. Raises instead of returning when the failure is the harness's
    (a failed health check, an invalid hypothesis argument, a missing ``new_store``).
    """
    method = getattr(suite, name)
    with asyncio.Runner() as runner:
        try:
            hypothesis = getattr(method, "hypothesis", None)
            if hypothesis is not None:
                _run_property(runner, method, hypothesis)
            else:
                runner.run(_run_example(suite, method))
        except (KeyboardInterrupt, SystemExit):
            raise
        except _HARNESS_ERRORS:
            raise
        except BaseException as failure:  # pytest.fail and pytest.raises raise BaseException
            return failure
    return None


def _run_property(runner: asyncio.Runner, method: Any, hypothesis: Any) -> None:
    inner: Callable[..., Coroutine[Any, Any, None]] = hypothesis.inner_test
    function = method.__func__
    configured: settings = function._hypothesis_internal_use_settings

    def synchronous(*args: Any, **kwargs: Any) -> None:
        runner.run(inner(*args, **kwargs))

    hypothesis.inner_test = synchronous
    # Whether a mutant fails is the question, not its smallest counterexample: shrinking
    # one can take a minute per test. Derandomised, so "caught" is the same answer every run.
    function._hypothesis_internal_use_settings = settings(
        configured,
        phases=[phase for phase in configured.phases if phase is not Phase.shrink],
        derandomize=True,
    )
    try:
        method()
    finally:
        hypothesis.inner_test = inner
        function._hypothesis_internal_use_settings = configured


async def _run_example(suite: StoreSuite[Any], method: Callable[..., Any]) -> None:
    if "store" in inspect.signature(method).parameters:
        async with suite.fresh_store() as store:
            await method(store)
    else:
        await method()
