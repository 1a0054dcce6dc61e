"""Model calls: LlmProvider adapters and the resilience around them.

Cache adapters, the shared state the resilience keeps, live in ``redstring.cache``.
"""
