"""How many hypothesis examples each property test draws, from ``KG_COMPLIANCE_MAX_EXAMPLES``.

This is the one library module that reads the environment, exempted in
``tests/unit/test_library_reads_no_environment.py``: the caller configuring it is a pytest
invocation, and a variable set for one run is how such a caller configures things.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

DEFAULT_MAX_EXAMPLES = 50
ENVIRONMENT_VARIABLE = "KG_COMPLIANCE_MAX_EXAMPLES"


def max_examples() -> int:
    """The configured example budget; a value that is not a positive integer is an error."""
    raw = os.environ.get(ENVIRONMENT_VARIABLE)
    if raw is None or raw == "":
        return DEFAULT_MAX_EXAMPLES
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(
            f"{ENVIRONMENT_VARIABLE}={raw!r} is not an integer; set a positive number of "
            "examples such as 50"
        ) from None
    if value < 1:
        raise ValueError(f"{ENVIRONMENT_VARIABLE}={raw!r} must be at least 1")
    return value


def compliance_settings() -> settings:
    """Hypothesis settings for every property test of the suites.

    No deadline (a real backend's first query may be slow) and the function-scoped fixture
    health check suppressed, because each example builds its own store through
    ``new_store()`` rather than reusing the fixture.

    ``differing_executors`` is suppressed too: one suite test runs from several subclasses in
    one process (the in-memory and a real-backend adapter, the mutant tests), and the hazard
    that check guards, state carried between executors or replayed from a database, cannot
    arise when every example builds its own store and there is no database.
    """
    return settings(
        max_examples=max_examples(),
        deadline=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.differing_executors,
        ],
        database=None,
    )
