"""The ports: every boundary between redstring and the outside world, as Protocols.

Each port is ``runtime_checkable`` and composed from small capability Protocols, so a caller
can depend on just the slice it uses. The executable definition of each port is its
compliance suite in ``redstring.testing``; where the prose here and a suite disagree, the
suite wins and the prose is a bug.
"""
