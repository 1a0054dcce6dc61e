"""A small deterministic Extractor for the command's tests: the CLI is under test, not NLP.

Runs of two or more capitalised words are entities: ``Person`` when the first word is a
known given name, else ``Organization``; "X works for Y" between two such runs in one
sentence is a WORKS_FOR relationship. Passed to the command as
``--extractor tests.unit.cli.names_extractor:CapitalisedNames``.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal

from redstring.domain.extraction import ExtractedEntity, ExtractedRelationship, Extraction
from redstring.domain.schema import Schema
from redstring.ports.errors import ExtractionError

GIVEN_NAMES = {"Ada", "Charles", "Grace", "Alan", "Mary"}
_RUN = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")
_WORKS_FOR = re.compile(
    r"([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+) works for ([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)"
)


class CapitalisedNames:
    """Extracts capitalised name runs; never calls a model."""

    @property
    def model(self) -> str:
        return "tests/capitalised-names@1"

    async def extract(self, text: str, schema: Schema) -> Extraction:
        names = dict.fromkeys(match[1] for match in _RUN.finditer(text))
        entities = [
            ExtractedEntity(
                name=name,
                type="Person" if name.split()[0] in GIVEN_NAMES else "Organization",
            )
            for name in names
        ]
        relationships = [
            ExtractedRelationship(subject=m[1], type="WORKS_FOR", object=m[2])
            for m in _WORKS_FOR.finditer(text)
        ]
        return Extraction(entities=entities, relationships=relationships)


class InterruptedOnMarker(CapitalisedNames):
    """Like :class:`CapitalisedNames`, but a passage holding ``INTERRUPT`` sends this process
    SIGINT, as a person pressing Ctrl-C mid-ingest would."""

    async def extract(self, text: str, schema: Schema) -> Extraction:
        if "INTERRUPT" in text:
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(30)
        return await super().extract(text, schema)


class FailsOnMarker(CapitalisedNames):
    """Like :class:`CapitalisedNames`, but a passage holding ``FLAKY`` fails to extract."""

    async def extract(self, text: str, schema: Schema) -> Extraction:
        if "FLAKY" in text:
            raise ExtractionError("the test extractor fails on FLAKY passages")
        return await super().extract(text, schema)
