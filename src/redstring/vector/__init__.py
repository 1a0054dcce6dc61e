"""Vector storage: adapters of the VectorStore port live in ``redstring.vector.adapters``."""
