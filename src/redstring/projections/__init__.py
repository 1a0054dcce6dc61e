"""The application layer over the event log: projecting events into the stores."""
