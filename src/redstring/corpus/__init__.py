"""The Velmar corpus: twenty short documents about one fictional harbour town, and their gold.

It ships inside the package so the demo, the retrieval tests and the extraction benchmark all
read the same text. ``load_corpus()`` returns a :class:`Corpus`: the documents (Markdown text,
mixed genres: news, memos, email, biographies, minutes, press releases, a report excerpt),
the schema they are annotated to (``schema.json``, the default schema's types), and the gold:

* every entity with its type, canonical name, every surface name the documents use for it
  (full names, surnames, initials, nicknames, titles: "Dr. Okafor", "Okafor Labs" /
  "Okafor Laboratories Ltd") and the documents that mention it by one of those names;
* every relationship the prose states, with the documents that state it.

Entities are annotated per document as a human reader would, nested names excepted ("Port
Harlow" inside "Port Harlow City Council" is not a mention of the town). The corpus is an
evaluation set: nothing in redstring is tuned to it. Pure: reading the package's own files is
its only I/O, and the result is cached.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

from pydantic import BaseModel, ConfigDict

from redstring.domain.schema import Schema

__all__ = ["Corpus", "Document", "GoldEntity", "GoldRelationship", "load_corpus"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Document(_Frozen):
    """One document: its id (the file name without ``.md``), genre and full text."""

    id: str
    genre: str
    text: str


class GoldEntity(_Frozen):
    """An entity of the fictional world and every name the corpus calls it."""

    id: str
    type: str
    name: str
    aliases: tuple[str, ...] = ()
    documents: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical name followed by every alias."""
        return (self.name, *self.aliases)


class GoldRelationship(_Frozen):
    """A relationship between two gold entities (by id) and the documents that state it."""

    subject: str
    type: str
    object: str
    documents: tuple[str, ...]


@dataclass(frozen=True)
class Corpus:
    """The documents, the schema the gold is annotated to, and the gold, in document order."""

    documents: tuple[Document, ...]
    schema: Schema
    entities: tuple[GoldEntity, ...]
    relationships: tuple[GoldRelationship, ...]

    def document(self, document_id: str) -> Document:
        """The document ``document_id``; ``KeyError`` naming the known ids otherwise."""
        for document in self.documents:
            if document.id == document_id:
                return document
        raise KeyError(f"no document {document_id!r}; known: {[d.id for d in self.documents]}")

    def entity(self, entity_id: str) -> GoldEntity:
        """The gold entity ``entity_id``; ``KeyError`` otherwise."""
        for entity in self.entities:
            if entity.id == entity_id:
                return entity
        raise KeyError(f"no gold entity {entity_id!r}")

    def entities_in(self, document_id: str) -> tuple[GoldEntity, ...]:
        """The gold entities ``document_id`` mentions by name."""
        return tuple(e for e in self.entities if document_id in e.documents)

    def relationships_in(self, document_id: str) -> tuple[GoldRelationship, ...]:
        """The gold relationships ``document_id`` states."""
        return tuple(r for r in self.relationships if document_id in r.documents)


@functools.cache
def load_corpus() -> Corpus:
    """Read the corpus shipped with the package (once per process)."""
    root = resources.files(__name__)
    gold = json.loads((root / "gold.json").read_text(encoding="utf-8"))
    schema = Schema.model_validate_json((root / gold["schema"]).read_text(encoding="utf-8"))
    documents = tuple(
        Document(
            id=entry["id"],
            genre=entry["genre"],
            text=(root / "documents" / f"{entry['id']}.md").read_text(encoding="utf-8"),
        )
        for entry in gold["documents"]
    )
    return Corpus(
        documents=documents,
        schema=schema,
        entities=tuple(GoldEntity.model_validate(e) for e in gold["entities"]),
        relationships=tuple(GoldRelationship.model_validate(r) for r in gold["relationships"]),
    )
