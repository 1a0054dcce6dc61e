"""The ``redstring`` command. The one place besides ``redstring.testing`` that reads env."""
