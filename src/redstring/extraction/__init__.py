"""Extractors: the LLM extractor over any LlmProvider, and offline adapters.

``LlmExtractor`` (one structured-output call per passage, grounded) is importable from here;
the offline ``SpacyExtractor`` lives in ``redstring.extraction.adapters.spacy`` and needs the
``nlp`` extra. Both implement :class:`redstring.ports.extractor.Extractor`.
"""

from __future__ import annotations

from redstring.extraction.llm import PROMPT_VERSION, PROMPTS, LlmExtractor

__all__ = ["PROMPTS", "PROMPT_VERSION", "LlmExtractor"]
