"""The root of redstring's error family and the domain's own argument errors.

Every error redstring raises on purpose derives from :class:`RedstringError`, so a caller can
keep one ``except``. Argument errors also derive from :class:`ValueError`, because that is what
a Python caller already expects from bad input.
"""

from __future__ import annotations


class RedstringError(Exception):
    """Base class of every error redstring raises deliberately."""


class InvalidArgumentError(RedstringError, ValueError):
    """An argument is outside what the function accepts; the message names it and what is valid."""


class EmptyTextError(InvalidArgumentError):
    """Text that must hold at least one non-whitespace character was blank."""


class ZeroVectorError(InvalidArgumentError):
    """A vector has no direction (zero norm, or a norm that underflows in float32)."""


class DimensionMismatchError(InvalidArgumentError):
    """A vector's length differs from the dimension its store or provider was built with."""

    def __init__(self, *, expected: int, actual: int) -> None:
        super().__init__(
            f"vector has {actual} components but this store holds vectors of dimension {expected}"
        )
        self.expected = expected
        self.actual = actual
