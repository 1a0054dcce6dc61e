"""Cache adapters: the shared state behind rate limits and the circuit breaker."""
