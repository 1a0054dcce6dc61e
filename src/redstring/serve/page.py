"""The live page of ``redstring serve``: the graph view at ``/``, its data at ``/v1/view``.

``/`` is the same page ``export --format html`` writes (:func:`redstring.export.live_page`),
without data: it asks for an API key, loads ``/v1/view`` with it and draws that tenant, and
its question box calls ``/v1/ask`` and ``/v1/query``. The page itself holds nothing of any
tenant, so it needs no key; everything it shows comes through the key-scoped API, so a
tenant key sees its own tenant only (an admin key names one with ``X-Redstring-Tenant``).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from redstring import export as exporting
from redstring.serve.guards import Served, Tenant
from redstring.serve.problems import documented

__all__ = ["add_page"]


def add_page(app: FastAPI) -> None:
    """Add ``GET /`` (the page) and ``GET /v1/view`` (its data) to ``app``."""
    page = exporting.live_page()

    @app.get("/", response_class=HTMLResponse, tags=["page"], include_in_schema=False)
    async def live() -> HTMLResponse:
        """The graph view over this server's API (enter an API key on the page)."""
        return HTMLResponse(page)

    @app.get(
        "/v1/view",
        tags=["reading"],
        responses=documented(400, 401, 403, 413, 422, 429, 500),
    )
    async def view(tenant: Tenant, service: Served) -> dict[str, Any]:
        """What the graph view draws for this tenant (``redstring.export.view_data``): the
        entities most connected first, the relationships, each cited passage once."""
        snapshot = await service.graph.export(tenant)
        return exporting.view_data(snapshot)
