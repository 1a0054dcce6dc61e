"""A crash after any store call, then a rerun, ends where an uninterrupted run ends.

Every port the core writes through is wrapped so that the N-th call completes and then the
"process dies" (an exception nobody catches). A fresh KnowledgeGraph over the same stores
(a new process: no cached history) then runs the whole scenario again. For every N, the final
state equals the uninterrupted run's: nothing duplicated, nothing lost, no model re-asked for
a passage whose extraction was recorded.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from redstring import KnowledgeGraph
from tests.ingest_cases import DOC_A, DOC_B
from tests.ingest_support import SharedStores, VocabularyExtractor, store_state

TENANT = "acme"


class Crash(BaseException):
    """The process died (BaseException, so no ``except Exception`` can swallow it)."""


class Fuse:
    """Counts calls across every wrapped port and blows after the N-th completes."""

    def __init__(self, after: int | None) -> None:
        self.after = after
        self.calls = 0

    def tick(self) -> None:
        self.calls += 1
        if self.after is not None and self.calls == self.after:
            raise Crash(f"crash after call {self.calls}")


class Faulty:
    """Wraps a port: each coroutine method call goes through the fuse once it has completed."""

    def __init__(self, target: Any, fuse: Fuse) -> None:
        self._target = target
        self._fuse = fuse

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not inspect.iscoroutinefunction(value):
            return value

        async def call(*args: Any, **kwargs: Any) -> Any:
            result = await value(*args, **kwargs)
            self._fuse.tick()
            return result

        return call


class Stores(SharedStores):
    def graph_over(self, fuse: Fuse | None, extractor: VocabularyExtractor) -> KnowledgeGraph:
        def wrap(port: Any) -> Any:
            return port if fuse is None else Faulty(port, fuse)

        return self.process(extractor, wrap=wrap)


async def scenario(kg: KnowledgeGraph) -> None:
    await kg.ingest(TENANT, "a.md", DOC_A)
    await kg.ingest(TENANT, "b.md", DOC_B)
    await kg.import_records(
        TENANT, [{"kind": "entity", "ref": "p", "type": "Person", "name": "Dana Ivers"}]
    )
    await kg.ingest(TENANT, "a.md", DOC_A.replace("Chen Wei works", "Eli Stone works"))
    await kg.delete_source(TENANT, "b.md")


async def test_a_crash_after_any_store_call_then_a_rerun_ends_like_an_uninterrupted_run() -> None:
    """Every crash point is tried; the rerun's final state equals the reference state."""
    reference = Stores()
    counting = Fuse(None)
    await scenario(reference.graph_over(counting, VocabularyExtractor()))
    expected = await store_state(reference.graph_over(None, VocabularyExtractor()), TENANT)
    total = counting.calls
    assert total > 50, "the scenario should exercise many store calls"
    for crash_at in range(1, total + 1):
        stores = Stores()
        extractor = VocabularyExtractor()
        with pytest.raises(Crash):
            await scenario(stores.graph_over(Fuse(crash_at), extractor))
        rerun = stores.graph_over(None, extractor)
        await scenario(rerun)
        assert await store_state(rerun, TENANT) == expected, f"crash after call {crash_at}"
        history = await rerun.history(TENANT)
        names = [h.entity.name for h in history.entities.values()]
        assert len(names) == len(set(names)), f"duplicate entities after crash {crash_at}"
