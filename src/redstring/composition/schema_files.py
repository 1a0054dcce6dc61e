"""Reading a :class:`~redstring.domain.schema.Schema` from a JSON or YAML file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.schema import Schema


class InvalidSchemaError(InvalidArgumentError):
    """A schema file cannot be read or does not describe a valid schema."""


def load_schema(path: str | Path) -> Schema:
    """The schema in ``path`` (``.json``, ``.yaml`` or ``.yml``); raises ``InvalidSchemaError``."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidSchemaError(f"cannot read schema file {str(file)!r}: {error}") from None
    data: Any
    if file.suffix.lower() in {".yaml", ".yml"}:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise InvalidSchemaError(
                f"schema file {str(file)!r} is not valid YAML: {error}"
            ) from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidSchemaError(
                f"schema file {str(file)!r} is not valid JSON: {error.msg} at line {error.lineno}"
            ) from None
    try:
        return Schema.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise InvalidSchemaError(
            f"schema file {str(file)!r}: {where}: {first['msg']} (a schema has entity_types: "
            "[{name, description, attributes}] and relationship_types: [{name, description, "
            "subject_types, object_types}])"
        ) from None
