"""The process-pool extractor: the same answers, computed elsewhere (issue 26, finding 4).

What it is for, that a server's event loop does not wait on a parse, is measured in
``benchmarks/serve_stall.py``; here: the work happens in a worker process, the identity is
the wrapped extractor's, errors come through, and a dead worker costs only its calls.
"""

from __future__ import annotations

import os

import pytest

from redstring import InvalidArgumentError
from redstring.domain.schema import DEFAULT_SCHEMA
from redstring.extraction.pool import ProcessPoolExtractor
from redstring.ports.errors import ExtractionError
from tests.pool_extractors import WhereAmI


async def test_extraction_runs_in_a_worker_process_under_the_wrapped_identity() -> None:
    """The answer comes from another process; the model is the wrapped extractor's."""
    async with ProcessPoolExtractor(WhereAmI, processes=1) as pooled:
        assert pooled.model == WhereAmI().model
        first = await pooled.extract("anything", DEFAULT_SCHEMA)
        second = await pooled.extract("again", DEFAULT_SCHEMA)
    names = {entity.name for entity in (*first.entities, *second.entities)}
    processes = {name for name in names if name.startswith("Process ")}
    assert len(processes) == 1  # one worker, kept
    assert processes != {f"Process {os.getpid()}"}


async def test_workers_run_at_a_lower_priority_than_the_server() -> None:
    """Workers are ``nice`` (10 by default; capped at 19), so requests get the CPU first."""
    here = os.nice(0)
    for asked, expected in ((10, min(19, here + 10)), (0, here)):
        async with ProcessPoolExtractor(WhereAmI, processes=1, nice=asked) as pooled:
            found = await pooled.extract("anything", DEFAULT_SCHEMA)
        assert f"Niceness {expected}" in {entity.name for entity in found.entities}


async def test_errors_come_through_and_a_dead_worker_is_replaced() -> None:
    """An extractor's error is raised as it is; a worker that dies is an ExtractionError
    for its call, and the next call gets a new worker."""
    async with ProcessPoolExtractor(WhereAmI, processes=1) as pooled:
        with pytest.raises(ExtractionError, match="scripted failure"):
            await pooled.extract("fail", DEFAULT_SCHEMA)
        with pytest.raises(ExtractionError, match="worker process died"):
            await pooled.extract("die", DEFAULT_SCHEMA)
        after = await pooled.extract("anything", DEFAULT_SCHEMA)
    assert after.entities


def test_a_pool_needs_a_worker_and_a_niceness_the_system_knows() -> None:
    """Zero processes, or a niceness outside 0-19, is a typed error naming the value."""
    with pytest.raises(InvalidArgumentError, match="processes=0"):
        ProcessPoolExtractor(WhereAmI, processes=0)
    with pytest.raises(InvalidArgumentError, match="nice=20"):
        ProcessPoolExtractor(WhereAmI, nice=20)
