"""Entry point of the ``redstring`` command.

The full command set (ingest, import, query, ask, sources, delete-source, stats, export,
rebuild, demo) arrives with the CLI issue; until then this says plainly what exists.
"""

from __future__ import annotations

import sys

import redstring

_NOT_YET = """\
redstring {version}: the command line is not built yet.

Built so far: the domain (ids, models, chunking, BM25, blocking keys, vector math), the
seven ports, the shipped compliance suites (redstring.testing) and the adapters they prove.
Coming: ingest, import, query, ask, sources, delete-source, stats, export, rebuild, demo.
"""


def main(argv: list[str] | None = None) -> int:
    """Print what the command line offers today and exit 0."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in {"--version", "-V"}:
        print(redstring.__version__)
        return 0
    print(_NOT_YET.format(version=redstring.__version__))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
