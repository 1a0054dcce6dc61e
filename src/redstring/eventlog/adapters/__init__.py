"""EventLog adapters. Each backend's client stays inside its own module."""
