"""Wiring: builds a ``KnowledgeGraph`` from explicit ports or settings; top of the library."""

from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.composition.schema_files import load_schema

__all__ = ["KnowledgeGraph", "load_schema"]
