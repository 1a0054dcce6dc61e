"""Event storage: adapters of the EventLog port live in ``redstring.eventlog.adapters``."""
