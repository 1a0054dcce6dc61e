"""The command's own errors: each is one line for a person, and an exit status."""

from __future__ import annotations


class CliError(Exception):
    """A failure the command reports in one line; ``exit_code`` 1 means input or config."""

    exit_code = 1


class ConfigError(CliError):
    """A setting (flag, ``REDSTRING_*`` variable or config file) cannot be used."""


class InputError(CliError):
    """A path, file or value given on the command line cannot be used."""


class UnavailableError(CliError):
    """The feature needs a component this installation or build does not have."""


class UnknownTenantError(CliError):
    """The tenant holds nothing: no such tenant, or an empty one (exit 3)."""

    exit_code = 3
