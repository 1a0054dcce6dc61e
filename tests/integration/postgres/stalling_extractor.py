"""An extractor that hangs on a passage containing STALL: the server "dies" mid-job there.

Passed to ``redstring serve`` as ``--extractor
tests.integration.postgres.stalling_extractor:StallOnMarker``; every other passage is
extracted by the command tests' ``CapitalisedNames``.
"""

from __future__ import annotations

import asyncio

from redstring.domain.extraction import Extraction
from redstring.domain.schema import Schema
from tests.unit.cli.names_extractor import CapitalisedNames


class StallOnMarker(CapitalisedNames):
    """``CapitalisedNames``, except that a passage containing STALL never finishes."""

    async def extract(self, text: str, schema: Schema) -> Extraction:
        if "STALL" in text:
            await asyncio.Event().wait()
        return await super().extract(text, schema)
