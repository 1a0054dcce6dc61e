"""The pure core of redstring: ids, models and algorithms with no I/O and no clients.

Nothing in this package touches the network, the filesystem, the clock or the environment,
and nothing here imports a third-party client. Every other layer may import it.
"""
