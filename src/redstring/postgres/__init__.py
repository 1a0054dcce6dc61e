"""What the PostgreSQL adapters share: table names, pool ownership and transaction locks.

Not a port and not an adapter. It sits in its own layer between the adapters and the ports
(ADR 0009), so the four PostgreSQL adapters can share it while staying independent of each
other. Nothing here knows what a store holds; an adapter's SQL stays in the adapter.
"""
