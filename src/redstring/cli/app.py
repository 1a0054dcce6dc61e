"""Entry point of the ``redstring`` command (and ``python -m redstring``).

The commands live in :mod:`redstring.cli.commands`, imported here on first use, so a
``redstring`` script installed without the ``cli`` extra fails with one line naming the
extra instead of a traceback.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    try:
        from redstring.cli.commands import app
    except ImportError as error:
        sys.stderr.write(
            f"error: the redstring command needs the 'cli' extra ({error}); "
            "install it with: pip install 'redstring[cli]'\n"
        )
        return 1
    try:
        app(args=argv, prog_name="redstring")
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
