"""An extractor that runs another in a bounded pool of worker processes.

The offline extractor is CPU work in Python (a spaCy parse, then rules over it). In a server
it held the event loop: while a 1 MB document was extracted, ``/v1/health`` waited seconds
(issue 26, finding 4). ``ProcessPoolExtractor`` runs each ``extract`` call in one of
``processes`` worker processes, so the serving process only waits on a pipe; CPU for
extraction is bounded by ``processes``, whatever the number of ingests in flight (ADR 0054).

Each worker builds its own extractor from ``factory`` (a picklable callable: a class, a
module-level function or a ``functools.partial`` of one) and keeps it, so a pipeline loads
once per worker. Workers run ``nice`` (10 by default, as far as the system allows): a
parse is batch work and a request is not, so on a busy machine the serving process and the
other tenants' queries get the CPU first. Workers start with ``spawn``: a fork of a process
running an event loop and threads is unsafe. An extractor's errors reach the caller
unchanged; a worker that dies is an :class:`~redstring.ports.errors.ExtractionError` for the
calls it held, and the pool is started again for the next call.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.extraction import Extraction
from redstring.domain.schema import Schema
from redstring.ports.errors import ExtractionError
from redstring.ports.extractor import Extractor

__all__ = ["ProcessPoolExtractor"]

_WORKER: Extractor | None = None


def _start_worker(factory: Callable[[], Extractor], nice: int) -> None:
    global _WORKER
    if nice:
        with contextlib.suppress(OSError):  # a system may refuse it; extraction still runs
            os.nice(nice)
    _WORKER = factory()


def _extract_here(text: str, schema: Schema) -> Extraction:
    if _WORKER is None:  # pragma: no cover - the initializer always ran first
        raise ExtractionError("the extraction worker has no extractor")
    return asyncio.run(_WORKER.extract(text, schema))


class ProcessPoolExtractor:
    """``factory()``'s extractor, run in ``processes`` worker processes.

    ``model`` is the wrapped extractor's (built once here to read it), so extractions
    recorded through the pool and without it are the same to the log. ``nice`` is added to
    the workers' niceness. Call :meth:`close` (or leave ``async with``) to stop the workers.
    Raises :class:`InvalidArgumentError` for fewer than one process or a niceness outside
    0-19.
    """

    def __init__(
        self, factory: Callable[[], Extractor], *, processes: int = 1, nice: int = 10
    ) -> None:
        if processes < 1:
            raise InvalidArgumentError(
                f"processes={processes}: a pool needs at least one worker process"
            )
        if not 0 <= nice <= 19:
            raise InvalidArgumentError(f"nice={nice}: pass 0 (same priority) to 19 (lowest)")
        self._factory = factory
        self._processes = processes
        self._nice = nice
        self._model = factory().model
        self._executor: ProcessPoolExecutor | None = None
        self._slots = asyncio.Semaphore(processes * 2)

    @property
    def model(self) -> str:
        """The wrapped extractor's identity."""
        return self._model

    @property
    def processes(self) -> int:
        """How many worker processes extract at most at once."""
        return self._processes

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self._processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(self._factory, self._nice),
            )
        return self._executor

    async def extract(self, text: str, schema: Schema) -> Extraction:
        """What the wrapped extractor finds in ``text``, computed in a worker process."""
        async with self._slots:
            pool = self._pool()
            try:
                return await asyncio.get_running_loop().run_in_executor(
                    pool, _extract_here, text, schema
                )
            except BrokenProcessPool as error:
                if self._executor is pool:
                    self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
                raise ExtractionError(
                    f"an extraction worker process died ({error}); the passage can be retried"
                ) from None

    async def close(self) -> None:
        """Stop the worker processes (running calls finish first); safe to call twice."""
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)

    async def __aenter__(self) -> ProcessPoolExtractor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
