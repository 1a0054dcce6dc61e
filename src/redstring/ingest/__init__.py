"""Ingestion: chunk, extract, resolve, record events, project (application layer)."""
