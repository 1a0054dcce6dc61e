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
    assert len(names) == 1  # one worker, kept
    assert names != {f"Process {os.getpid()}"}


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


def test_a_pool_needs_a_worker() -> None:
    """Zero processes is a typed error naming the value."""
    with pytest.raises(InvalidArgumentError, match="processes=0"):
        ProcessPoolExtractor(WhereAmI, processes=0)
