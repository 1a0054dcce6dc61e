"""The compliance suites: the executable definition of every port (install ``redstring[test]``).

An adapter proves itself by subclassing its port's suite in its own test module and
supplying exactly one thing: ``new_store()`` for the store ports and the event log, a
``cache`` fixture for Cache, a ``provider`` fixture for EmbeddingProvider::

    from redstring.testing import GraphStoreCompliance

    class TestMyGraphStore(GraphStoreCompliance):
        async def new_store(self) -> GraphStore:
            return MyGraphStore()

**First step in a consuming project: set ``asyncio_mode = "auto"``** for pytest-asyncio,
and ``asyncio_default_fixture_loop_scope = "function"`` so it raises no deprecation warning
(both under ``[tool.pytest.ini_options]``). Every case is a bare ``async def``; under the
default strict mode pytest does not await them (older pytest versions skip them, which reads
as a pass; pytest 8.4 and later fail them).

The ``cache`` fixture of :class:`CacheCompliance` may be defined at module level or on the
subclass; the ``provider`` fixture of :class:`EmbeddingProviderCompliance` only on the
subclass. Every store suite also runs ``redstring.testing.lifecycle.LifecycleCases``.

Nothing here is collected on its own: no module matches ``test_*.py`` and no class matches
``Test*``. Set ``KG_COMPLIANCE_MAX_EXAMPLES`` to change how many hypothesis examples each
property test draws (default 50); it is the one environment variable the library reads, once,
when this package is imported.
"""

from __future__ import annotations

# First, so that pytest rewrites the asserts of every suite imported below.
from redstring.testing import _rewrite  # noqa: F401
from redstring.testing.cache import CacheCompliance
from redstring.testing.chunk_store import ChunkStoreCompliance
from redstring.testing.embedding_provider import EmbeddingProviderCompliance
from redstring.testing.event_log import EventLogCompliance
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.vector_store import VectorStoreCompliance

__all__ = [
    "CacheCompliance",
    "ChunkStoreCompliance",
    "EmbeddingProviderCompliance",
    "EventLogCompliance",
    "GraphStoreCompliance",
    "VectorStoreCompliance",
]
