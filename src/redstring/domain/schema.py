"""The caller's schema: which entity and relationship types a graph may hold.

A :class:`Schema` is what ``KnowledgeGraph.ingest`` extracts to and what it enforces: an
entity whose type is not declared, or a relationship whose type or endpoint types break the
declared patterns, is dropped and counted, never stored. Build one in Python or from a
mapping (``Schema.model_validate``; ``redstring.composition.load_schema`` reads JSON or YAML
files).

Extraction hints live beside the types they describe, so one file configures both an LLM
extractor (names and descriptions) and the offline extractor (``ner_labels``, ``triggers``).
The schema's :attr:`~Schema.fingerprint` is part of the extraction identity: changing the
schema re-extracts, nothing else does.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from redstring.domain.models import TypeName


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


AttributeKind = Literal[
    "name", "date", "identifier", "email", "phone", "address", "postcode", "locality", "code",
    "text",
]  # fmt: skip
"""How resolution compares an attribute's values (``redstring.domain.resolution.kinds``):

* ``name``: as a name (word order, nicknames, initials, typos);
* ``date``: a date in any common spelling; a different one is strong evidence against;
* ``identifier``: a code that names one thing (a national id, a company number); a different
  one is strong evidence against;
* ``email`` and ``phone``: contact details, normalised (case; digits only);
* ``address``, ``postcode``, ``locality``: where a thing is, street words abbreviated; only the
  most specific agreeing one counts, and none counts for two clearly different names;
* ``code``: a value from a small set (a state, a category): equal or not;
* ``text``: anything else, equal, close (a typo) or different.
"""


class AttributeSpec(_Spec):
    """One attribute of an entity type: what it means and, optionally, how to compare it.

    Without a ``kind`` resolution reads the attribute by its key's name when it knows it
    ("date_of_birth", "email", "postcode"...) and otherwise by its values (dates that parse,
    codes that rarely repeat, short place names...). A declared ``kind`` always wins.
    """

    description: str = ""
    kind: AttributeKind | None = None


class EntityTypeSpec(_Spec):
    """One entity type: its name, what it means, and the attributes an extractor may fill.

    ``attributes`` maps an attribute name to its description, or to an :class:`AttributeSpec`
    (``{"description": ..., "kind": "identifier"}``) that also says how resolution compares
    it. ``ner_labels`` are the named-entity labels (spaCy's, e.g. ``PERSON``) an offline
    extractor maps to this type; empty means the defaults for well-known type names.
    ``noun_chunks`` asks the offline extractor to propose noun phrases as candidates of this
    type when no recogniser label fits.
    """

    name: TypeName
    description: str = ""
    attributes: dict[str, str | AttributeSpec] = Field(default_factory=dict)
    ner_labels: tuple[str, ...] = ()
    noun_chunks: bool = False

    def attribute_descriptions(self) -> dict[str, str]:
        """Each attribute's description, in declaration order."""
        return {
            key: spec if isinstance(spec, str) else spec.description
            for key, spec in self.attributes.items()
        }

    def attribute_kinds(self) -> dict[str, AttributeKind]:
        """The attributes whose kind is declared, and that kind."""
        return {
            key: spec.kind
            for key, spec in self.attributes.items()
            if isinstance(spec, AttributeSpec) and spec.kind is not None
        }


class RelationshipTypeSpec(_Spec):
    """One relationship type and the entity types it may join.

    Empty ``subject_types``/``object_types`` allow any declared entity type on that side.
    ``triggers`` are verb lemmas or short lemma phrases ("work for", "join") that express the
    relationship with the subject first; ``inverse_triggers`` express it with the object first
    ("hire", "employ" for ``WORKS_FOR``). Both guide the offline extractor only.
    """

    name: TypeName
    description: str = ""
    subject_types: tuple[TypeName, ...] = ()
    object_types: tuple[TypeName, ...] = ()
    triggers: tuple[str, ...] = ()
    inverse_triggers: tuple[str, ...] = ()


class Schema(_Spec):
    """Entity and relationship types; names are unique within each list.

    Raises ``ValueError`` (pydantic's ``ValidationError``) for a duplicate name or a
    relationship naming an entity type the schema does not declare.
    """

    entity_types: tuple[EntityTypeSpec, ...] = Field(min_length=1)
    relationship_types: tuple[RelationshipTypeSpec, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        names = [spec.name for spec in self.entity_types]
        _refuse_duplicates("entity type", names)
        _refuse_duplicates("relationship type", [spec.name for spec in self.relationship_types])
        declared = set(names)
        for spec in self.relationship_types:
            unknown = sorted(set(spec.subject_types + spec.object_types) - declared)
            if unknown:
                raise ValueError(
                    f"relationship type {spec.name!r} names undeclared entity type(s) "
                    f"{unknown}; declared entity types are {sorted(declared)}"
                )
        return self

    @property
    def fingerprint(self) -> str:
        """A stable hash of the whole schema: equal schemas have equal fingerprints."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    def entity_type(self, name: str) -> EntityTypeSpec | None:
        """The declared entity type ``name`` names, or ``None``.

        An exact name wins; otherwise the name matches loosely (:func:`type_key`: case,
        spaces, underscores and "-isation" against "-ization" do not matter), so records
        typed "person" or "Organisation" land on "Person" and "Organization". Callers store
        the returned spec's ``name``.
        """
        return _lookup(self.entity_types, name)

    def relationship_type(self, name: str) -> RelationshipTypeSpec | None:
        """The declared relationship type ``name`` names, or ``None``; loosely matched like
        :meth:`entity_type` ("works_for" and "WorksFor" are ``WORKS_FOR``)."""
        return _lookup(self.relationship_types, name)

    def allows(self, relationship_type: str, subject_type: str, object_type: str) -> bool:
        """True when the schema declares ``relationship_type`` between these entity types."""
        spec = self.relationship_type(relationship_type)
        if spec is None:
            return False
        return (not spec.subject_types or subject_type in spec.subject_types) and (
            not spec.object_types or object_type in spec.object_types
        )


_SpecT = TypeVar("_SpecT", EntityTypeSpec, RelationshipTypeSpec)

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def type_key(name: str) -> str:
    """The loose form of a type name: casefolded, only letters and digits, "-isation"
    spelled "-ization" ("Organisation", "ORGANIZATION" -> "organization")."""
    return _NOT_ALNUM.sub("", name.casefold()).replace("isation", "ization")


def _lookup(specs: tuple[_SpecT, ...], name: str) -> _SpecT | None:
    exact = next((spec for spec in specs if spec.name == name), None)
    if exact is not None:
        return exact
    key = type_key(name)
    return next((spec for spec in specs if type_key(spec.name) == key), None)


def _refuse_duplicates(kind: str, names: list[str]) -> None:
    seen: dict[str, str] = {}
    for name in names:
        other = seen.get(type_key(name))
        if other is None:
            seen[type_key(name)] = name
            continue
        if other == name:
            raise ValueError(f"{kind} {name!r} is declared twice; names must be unique")
        raise ValueError(
            f"{kind}s {other!r} and {name!r} differ only in case, spacing or spelling, "
            "and a type is looked up loosely; rename one"
        )


DEFAULT_SCHEMA = Schema(
    entity_types=(
        EntityTypeSpec(name="Person", description="A named human being."),
        EntityTypeSpec(
            name="Organization",
            description="A company, institution, agency, team or other organised group.",
        ),
        EntityTypeSpec(name="Location", description="A place: a city, country, region, site."),
        EntityTypeSpec(name="Product", description="A named product, system or service."),
        EntityTypeSpec(
            name="Technology",
            description="A named piece of software, programming language, library, tool, "
            "protocol, standard or file format.",
        ),
        EntityTypeSpec(name="Event", description="A named event: a meeting, launch, incident."),
        EntityTypeSpec(name="Work", description="A named document, book, report or artwork."),
    ),
    relationship_types=(
        RelationshipTypeSpec(
            name="WORKS_FOR",
            description="The person is employed by or works for the organisation.",
            subject_types=("Person",),
            object_types=("Organization",),
            triggers=("work", "join", "serve"),
            inverse_triggers=("hire", "employ", "recruit", "appoint"),
        ),
        RelationshipTypeSpec(
            name="FOUNDED",
            description="The person or organisation founded the organisation.",
            subject_types=("Person", "Organization"),
            object_types=("Organization",),
            triggers=("found", "establish", "start", "create", "launch", "co-found", "cofound"),
        ),
        RelationshipTypeSpec(
            name="LOCATED_IN",
            description="The organisation, event or place is located in the place.",
            subject_types=("Organization", "Event", "Location"),
            object_types=("Location",),
            triggers=("base", "headquarter", "locate", "hold", "situate"),
        ),
        RelationshipTypeSpec(
            name="LIVES_IN",
            description="The person lives in the place.",
            subject_types=("Person",),
            object_types=("Location",),
            triggers=("live", "reside", "move", "settle", "relocate"),
        ),
        RelationshipTypeSpec(
            name="PRODUCES",
            description="The organisation makes or sells the product.",
            subject_types=("Organization",),
            object_types=("Product",),
            triggers=("make", "produce", "manufacture", "sell", "release", "develop", "build"),
        ),
        RelationshipTypeSpec(
            name="ACQUIRED",
            description="The organisation acquired the other organisation.",
            subject_types=("Organization",),
            object_types=("Organization",),
            triggers=("acquire", "buy", "purchase", "take over"),
        ),
        RelationshipTypeSpec(
            name="PARTICIPATED_IN",
            description="The person or organisation took part in the event.",
            subject_types=("Person", "Organization"),
            object_types=("Event",),
            triggers=("attend", "participate", "speak", "present", "organise", "organize"),
        ),
        RelationshipTypeSpec(
            name="DEVELOPED",
            description="The person or organisation created, developed, wrote or maintains "
            "the software, technology or product.",
            subject_types=("Person", "Organization"),
            object_types=("Technology", "Product"),
            triggers=("create", "develop", "design", "write", "maintain", "implement", "invent"),
        ),
        RelationshipTypeSpec(
            name="USES",
            description="The software or product uses, requires, or is written in or built on "
            "the software or technology.",
            subject_types=("Technology", "Product"),
            object_types=("Technology",),
            triggers=(
                "use",
                "require",
                "depend on",
                "rely on",
                "build on",
                "base on",
                "write in",
                "implement in",
            ),
        ),
        RelationshipTypeSpec(
            name="PART_OF",
            description="The software or technology is a part, component or module of the other.",
            subject_types=("Technology",),
            object_types=("Technology",),
            triggers=("part of", "component of", "module of"),
            inverse_triggers=("include", "contain", "bundle"),
        ),
        RelationshipTypeSpec(
            name="AUTHORED",
            description="The person wrote the work.",
            subject_types=("Person",),
            object_types=("Work",),
            triggers=("write", "author", "publish", "co-author"),
        ),
    ),
)
"""The schema used when a caller states none: people, organisations, places, products,
technologies (software, languages, protocols, formats: what manuals name), events and works,
and their links."""
