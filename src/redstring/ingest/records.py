"""Reading import records: JSON Lines or mappings in, validated records out, or a precise error.

A batch is validated whole before anything is written: the first bad record raises
:class:`InvalidRecordError` naming its line (or position) and field, and nothing of the batch
reaches the graph.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.portable import MAX_JSON_DEPTH
from redstring.domain.records import EntityRecord, Record, RelationshipRecord

_RECORD: TypeAdapter[EntityRecord | RelationshipRecord] = TypeAdapter(Record)


class InvalidRecordError(InvalidArgumentError):
    """An import record is malformed; ``line`` (1-based) and ``field`` say where."""

    def __init__(self, message: str, *, line: int, field: str | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.field = field


def parse_record(value: object, *, line: int) -> EntityRecord | RelationshipRecord:
    """Validate one record (a mapping or an already-built record)."""
    if isinstance(value, EntityRecord | RelationshipRecord):
        return value
    if not isinstance(value, Mapping):
        raise InvalidRecordError(
            f"record {line}: expected a JSON object with a 'kind' of 'entity' or "
            f"'relationship', got {type(value).__name__}",
            line=line,
        )
    try:
        return _RECORD.validate_python(dict(value))
    except ValidationError as error:
        first = error.errors()[0]
        location = ".".join(
            str(part) for part in first["loc"] if part not in {"entity", "relationship"}
        )
        field = location or None
        raise InvalidRecordError(
            f"record {line}: field {field or '(record)'!r}: {first['msg']} "
            f"(an entity needs kind, ref, type, name; a relationship kind, subject, type, object)",
            line=line,
            field=field,
        ) from None


def parse_jsonl(lines: Iterable[str]) -> list[tuple[int, EntityRecord | RelationshipRecord]]:
    """Every non-blank line parsed as one record, with its line number; raises on a bad line."""
    records: list[tuple[int, EntityRecord | RelationshipRecord]] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError as error:
            raise InvalidRecordError(
                f"line {number}: not valid JSON ({error.msg} at column {error.colno})",
                line=number,
            ) from None
        except RecursionError:
            raise InvalidRecordError(
                f"line {number}: nests objects and arrays too deeply to read; a record's "
                f"attributes may nest at most {MAX_JSON_DEPTH} levels",
                line=number,
            ) from None
        records.append((number, parse_record(value, line=number)))
    return records


def split_and_check(
    numbered: Iterable[tuple[int, object]],
) -> tuple[list[EntityRecord], list[RelationshipRecord]]:
    """Validate a batch of ``(line, record)``: refs unique, endpoints naming refs of the batch."""
    entities: list[EntityRecord] = []
    relationships: list[tuple[int, RelationshipRecord]] = []
    seen: dict[str, int] = {}
    for line, value in numbered:
        record = parse_record(value, line=line)
        if isinstance(record, EntityRecord):
            if record.ref in seen:
                raise InvalidRecordError(
                    f"record {line}: field 'ref': {record.ref!r} was already used by record "
                    f"{seen[record.ref]}; refs must be unique within one import",
                    line=line,
                    field="ref",
                )
            seen[record.ref] = line
            entities.append(record)
        else:
            relationships.append((line, record))
    for line, relationship in relationships:
        for field in ("subject", "object"):
            ref = getattr(relationship, field)
            if ref not in seen:
                raise InvalidRecordError(
                    f"record {line}: field {field!r}: no entity record with ref {ref!r} in "
                    "this import",
                    line=line,
                    field=field,
                )
    return entities, [relationship for _, relationship in relationships]
