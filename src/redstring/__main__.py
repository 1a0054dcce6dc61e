"""``python -m redstring``: the same command as ``redstring`` (needs the ``cli`` extra)."""

from __future__ import annotations

from redstring.cli.app import main

raise SystemExit(main())
