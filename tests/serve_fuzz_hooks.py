"""Schemathesis hooks for fuzzing the HTTP API (loaded by tests/unit/serve/test_fuzzing.py).

JSON Lines are text: strings generated for ``application/x-ndjson`` go out as they are.
"""

from __future__ import annotations

import schemathesis

schemathesis.serializer.alias("application/x-ndjson", "text/plain")
