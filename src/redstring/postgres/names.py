"""The SQL names a PostgreSQL adapter interpolates, each checked once when it is built.

Parameters cannot name a table, so schema and table names are written into the SQL text.
Only names that need no quoting rules at all are accepted: lowercase letters, digits and
``_``, starting with a letter or ``_``, short enough that every name derived from them fits
PostgreSQL's 63 characters (longer names are truncated silently, and two indexes could then
collide).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from redstring.domain.errors import InvalidArgumentError

__all__ = ["TableNames", "identifier"]

_PLAIN = re.compile(r"[a-z_][a-z0-9_]*")
_LONGEST = 63
"""PostgreSQL keeps the first NAMEDATALEN - 1 bytes of an identifier and drops the rest."""


def identifier(value: str, *, what: str, room: int = 0) -> str:
    """``value`` if it is a plain lowercase identifier that fits beside ``room`` characters.

    Raises :class:`InvalidArgumentError` naming ``what``, the value and the rule otherwise.
    """
    limit = _LONGEST - room
    if not _PLAIN.fullmatch(value) or len(value) > limit:
        raise InvalidArgumentError(
            f"invalid {what} {value!r}: use lowercase letters, digits and '_', starting with a "
            f"letter or '_', at most {limit} characters"
        )
    return value


@dataclass(frozen=True)
class TableNames:
    """A schema and a table prefix, both validated: every name an adapter derives from them."""

    schema: str
    prefix: str

    @classmethod
    def checked(cls, *, schema: str, prefix: str, longest_suffix: str) -> TableNames:
        """Validate both names; the prefix must leave room for ``longest_suffix``.

        ``longest_suffix`` is the longest name the adapter appends to its prefix (usually an
        index name). Raises :class:`InvalidArgumentError` for either name.
        """
        return cls(
            schema=identifier(schema, what="schema name"),
            prefix=identifier(prefix, what="table prefix", room=len(longest_suffix)),
        )

    def table(self, name: str) -> str:
        """The quoted, schema-qualified name of the table ``{prefix}{name}``."""
        return f'"{self.schema}"."{self.prefix}{name}"'

    def index(self, name: str) -> str:
        """The quoted name of the index ``{prefix}{name}`` (indexes live beside their table)."""
        return f'"{self.prefix}{name}"'

    @property
    def quoted_schema(self) -> str:
        """The quoted schema name, for ``CREATE SCHEMA``."""
        return f'"{self.schema}"'
