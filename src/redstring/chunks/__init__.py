"""Passage storage: adapters of the ChunkStore port live in ``redstring.chunks.adapters``."""
