"""Retrieval: vector, lexical and graph evidence fused into one cited context."""
