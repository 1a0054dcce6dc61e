"""How long the exported graph view takes to be ready in headless Chromium, by tenant size.

``python -m benchmarks.graph_view [--quick]``: pages of generated tenants (tests/view_world.py)
from demo size up to 2,000 entities and 10,000 relationships (``--quick``: the smallest and
the largest), each loaded ``--runs`` times from a file; "ready" is ``performance.now()`` at
the moment the view has drawn (from the start of navigation: reading the page, the library
and the data, laying out and drawing the top entities). The smallest tenant is the baseline
of the same run. Needs chromium and chromium-driver (Debian packages).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from tests.browser import chromium, missing, wait_until
from tests.view_world import synthetic_snapshot

from benchmarks.support import print_table
from redstring.export import to_html

SIZES = ((75, 45), (500, 2_500), (2_000, 10_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the smallest and largest only")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    why = missing()
    if why is not None:
        raise SystemExit(f"benchmarks.graph_view needs chromium: {why}")
    sizes = (SIZES[0], SIZES[-1]) if args.quick else SIZES
    rows = []
    baseline = None
    with tempfile.TemporaryDirectory() as folder, chromium() as browser:
        for entities, relationships in sizes:
            path = Path(folder) / f"view-{entities}.html"
            path.write_text(to_html(synthetic_snapshot(entities, relationships)), "utf-8")
            times = []
            for _ in range(args.runs):
                browser.get(path.as_uri())
                times.append(float(wait_until(browser, "window.redstringView.readyAt")))
            shown = browser.execute_script("return window.redstringView.shown().length")
            drawn = browser.execute_script("return window.redstringView.cy.edges().length")
            median = statistics.median(times)
            baseline = baseline or median
            rows.append(
                [
                    f"{entities:,} / {relationships:,}",
                    f"{path.stat().st_size / 1e6:.2f}",
                    f"{median:.0f}",
                    f"{max(times):.0f}",
                    f"{median / baseline:.2f}x",
                    f"{shown} / {drawn}",
                ]
            )
    print_table(
        [
            "entities / relationships",
            "page MB",
            "ready ms (median)",
            "ready ms (max)",
            "vs smallest",
            "drawn nodes / edges",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
