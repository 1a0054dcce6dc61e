"""Wiring: builds a knowledge graph from explicit settings. The top layer of the library."""
