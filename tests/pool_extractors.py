"""Extractors for the process-pool tests, importable by name in a spawned worker."""

from __future__ import annotations

import os

from redstring.domain.extraction import ExtractedEntity, Extraction
from redstring.domain.schema import Schema


class WhereAmI:
    """Names the process it ran in, and fails or dies on request."""

    @property
    def model(self) -> str:
        return "test/where-am-i-1"

    async def extract(self, text: str, schema: Schema) -> Extraction:
        if text == "die":
            os._exit(3)
        if text == "fail":
            from redstring.ports.errors import ExtractionError

            raise ExtractionError("scripted failure")
        return Extraction(
            entities=[
                ExtractedEntity(name=f"Process {os.getpid()}", type="Person"),
                ExtractedEntity(name=f"Niceness {os.nice(0)}", type="Person"),
            ]
        )
