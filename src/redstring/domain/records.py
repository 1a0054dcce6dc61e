"""Already-extracted records for ``KnowledgeGraph.import_records``: one JSON object per line.

Two kinds, told apart by ``kind``::

    {"kind": "entity", "ref": "p1", "type": "Person", "name": "Ada Lovelace",
     "attributes": {"born": "1815-12-10"}, "source": "crm-export"}
    {"kind": "relationship", "subject": "p1", "type": "WORKS_FOR", "object": "o1",
     "source": "crm-export"}

``ref`` is the caller's own identifier, unique within one import; relationships name their
endpoints by ``ref``. ``source`` groups records as a source of the graph, so a whole import
can later be deleted with ``delete_source``; it defaults to ``"import"``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from redstring.domain.models import Text, TypeName

DEFAULT_IMPORT_SOURCE = "import"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EntityRecord(_Record):
    """An entity the caller already knows: resolved against the graph like an extracted one."""

    kind: Literal["entity"] = "entity"
    ref: Annotated[str, Field(min_length=1, max_length=512)]
    type: TypeName
    name: Text
    attributes: dict[str, JsonValue] = Field(default_factory=dict)
    description: str | None = None
    source: Text = DEFAULT_IMPORT_SOURCE


class RelationshipRecord(_Record):
    """A relationship between two entity records of the same import, named by ``ref``."""

    kind: Literal["relationship"] = "relationship"
    subject: Annotated[str, Field(min_length=1, max_length=512)]
    type: TypeName
    object: Annotated[str, Field(min_length=1, max_length=512)]
    attributes: dict[str, JsonValue] = Field(default_factory=dict)
    source: Text = DEFAULT_IMPORT_SOURCE


Record = Annotated[EntityRecord | RelationshipRecord, Field(discriminator="kind")]
"""One import record, either kind."""
