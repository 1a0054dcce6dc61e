"""Extractors: the LLM extractor over any LlmProvider, and offline adapters."""
