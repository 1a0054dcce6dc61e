"""One counter every server process watches: raised by each tenant erasure and revocation.

A process keeps some state in memory: the folded history of each tenant it served, which
secrets it has verified, a rate limiter per key, the jobs it runs. Requests never trust that
state alone (each reads its key's row, each read of a tenant checks its log), but an idle
process would go on holding an erased tenant's history until it next served that tenant. So
an erasure or revocation raises this counter, and every process that sees it move drops what
it holds of tenants and keys that are gone (:meth:`redstring.serve.Service.forget_gone`). The
counter names no tenant and no key (ADR 0042).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["InMemorySignal", "Signal"]


class Signal(ABC):
    """A shared, only-growing counter."""

    @abstractmethod
    async def bump(self) -> int:
        """Raise the counter by one; returns the new value."""

    @abstractmethod
    async def current(self) -> int:
        """The counter's value (0 before the first bump)."""


class InMemorySignal(Signal):
    """The counter of one process (for the in-memory graph, where one process serves)."""

    def __init__(self) -> None:
        self._value = 0

    async def bump(self) -> int:
        self._value += 1
        return self._value

    async def current(self) -> int:
        return self._value
