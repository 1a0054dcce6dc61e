"""Model calls: LlmProvider adapters, Cache adapters and the resilience around them."""
