"""Extractor: what turns one passage into entity mentions and relationships.

Rules (no compliance suite: an extractor stores nothing; each adapter has its own tests):

* ``model`` is the extractor's identity as provenance: provider-qualified and versioned, and
  covering everything that changes its output except the schema (an LLM extractor includes
  its prompt version: ``"ollama/qwen3-8b+prompt-1"``; the offline one its pipeline:
  ``"spacy/en_core_web_sm-3.8.0+rules-5"``). ``KnowledgeGraph`` records each passage's
  extraction under ``(model, schema.fingerprint)`` and never asks again for that pair.
* ``extract`` returns what it found in ``text`` (possibly nothing) restricted to the schema's
  types, or raises: an :class:`~redstring.ports.errors.LlmProviderError` for a failed model
  call, :class:`~redstring.ports.errors.ExtractionError` for any other failure. An ingest
  with ``skip_failed_chunks`` records the failure and carries on.
* Blank ``text`` raises :class:`~redstring.domain.errors.EmptyTextError`.

Not closable: an extractor that holds a client releases it with the client's owner.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from redstring.domain.extraction import Extraction
from redstring.domain.schema import Schema


@runtime_checkable
class Extractor(Protocol):
    """Extracts a schema's entities and relationships from one passage."""

    @property
    def model(self) -> str:
        """Provider-qualified, versioned identity of everything that shapes the output."""
        ...

    async def extract(self, text: str, schema: Schema) -> Extraction:
        """Entities and relationships of ``schema``'s types found in ``text``."""
        ...
