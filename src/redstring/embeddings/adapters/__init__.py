"""EmbeddingProvider adapters. Each model library stays inside its own module."""
