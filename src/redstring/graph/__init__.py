"""Graph storage: adapters of the GraphStore port live in ``redstring.graph.adapters``."""
