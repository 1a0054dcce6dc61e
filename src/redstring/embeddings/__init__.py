"""Embedding providers live in ``redstring.embeddings.adapters``."""
