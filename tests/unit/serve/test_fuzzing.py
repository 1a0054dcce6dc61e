"""Schemathesis fuzzes the live OpenAPI schema of a running server, as an outside probe
would: every operation, every phase (examples, coverage, fuzzing and the stateful phase,
which chains calls along the links it infers), and every check. It fails on any 5xx and
on any conformance failure (an undocumented status, a response off its schema, a wrong
``Allow``, a schema-invalid request accepted, a schema-valid one refused...).

One exemption, stated here so it is not hidden: ``positive_data_acceptance`` is off for the
three bodies whose meaning OpenAPI cannot state (the bytes of an uploaded file, a JSON Lines
text). A schema-valid "file" of random bytes is rightly refused; the other checks still run
on those operations.

The server is real (uvicorn on a free port over the in-memory graph), the requests carry a
tenant key (an admin key for ``DELETE /v1/tenants/{tenant}``), so generated input reaches
the handlers. ``KG_FUZZ_EXAMPLES`` sets the examples per operation (default 15);
``KG_FUZZ_SEED`` sets the seed (default 26, so CI is repeatable; ``random`` draws a new one
each run and prints it: use that to search wider).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from redstring.serve import Limits
from tests.serve_world import TENANT_A, running_server

EXAMPLES = int(os.environ.get("KG_FUZZ_EXAMPLES", "15"))
ROOT = Path(__file__).resolve().parents[3]
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
NOT_STATEABLE_IN_OPENAPI = ("/v1/documents/file", "/v1/documents/files", "/v1/import")


def _config(url: str, key: str, admin: str) -> str:
    exempt = "\n".join(
        f"""
[[operations]]
include-path = "{path}"
checks.positive_data_acceptance.enabled = false
"""
        for path in NOT_STATEABLE_IN_OPENAPI
    )
    return f"""
base-url = "{url}"
headers = {{ Authorization = "Bearer {key}" }}
hooks = "tests.serve_fuzz_hooks"
generation.max-examples = {EXAMPLES}
cache.enabled = false
{exempt}
[[operations]]
include-path = "/v1/tenants/{{tenant}}"
headers = {{ Authorization = "Bearer {admin}" }}
"""


def test_the_live_schema_survives_schemathesis_with_every_check(tmp_path: Path) -> None:
    """No 5xx and no conformance failure, in any phase, for any operation."""
    limits = Limits(requests_per_window=1_000_000)
    with running_server(limits=limits) as (url, world):
        config = tmp_path / "schemathesis.toml"
        config.write_text(_config(url, world.keys[TENANT_A], world.keys["admin"]))
        seed = os.environ.get("KG_FUZZ_SEED", "26")
        seed = None if seed == "random" else seed
        ran = subprocess.run(
            [
                str(SCHEMATHESIS), "--no-color", "--config-file", str(config), "run",
                f"{url}/openapi.json",
                "--phases", "examples,coverage,fuzzing,stateful",
                *(["--seed", seed] if seed else []),
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=1200,
        )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-20_000:] + ran.stderr[-5_000:]
    assert "Stateful" in ran.stdout, ran.stdout[-5_000:]
