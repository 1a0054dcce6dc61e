"""LlmExtractor: one structured-output model call per passage, grounded in the passage.

``LlmExtractor(provider)`` asks any :class:`~redstring.ports.llm_provider.LlmProvider` for a
response model generated from the caller's :class:`~redstring.domain.schema.Schema`, then keeps
only what the passage supports. What a caller may rely on:

* Exactly one ``provider.extract`` call per ``extract`` (none for blank text, which raises
  :class:`~redstring.domain.errors.EmptyTextError`): no gleaning, no per-entity or per-pair
  follow-up calls.
* The answer's shape is ``{"entities": [{"name", "type", "description"?, "attributes"?}],
  "relationships": [{"subject", "type", "object", "description"?}]}``; ``type`` is advertised in
  the JSON schema as an enumeration of the schema's names with their descriptions, so a server
  with structured output constrains it. Validation is per item rather than all-or-nothing: an
  item with a type the schema does not declare is dropped and counted, not a failed passage.
* Grounding: an entity whose name does not occur in the passage (after ``normalise_name``,
  exactly, as a set of words, or fuzzily at ``grounding_threshold``) is dropped as
  ``ungrounded_entity``. A relationship whose endpoint is not a kept entity of the same answer
  is ``dangling_relationship``; one whose endpoint types the schema does not allow is
  ``relationship_pattern``. The counts are in ``Extraction.dropped``.
* Attributes a type does not declare are left out; repeated entities and relationships of one
  answer are returned once.
* ``model`` is ``f"{provider.model}+prompt-{prompt_version}"``: the system prompt is ours and
  versioned, so changing it re-extracts. Model failures propagate as the provider's
  :class:`~redstring.ports.errors.LlmProviderError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, JsonValue, WithJsonSchema, create_model
from rapidfuzz import fuzz

from redstring.domain.blocking import normalise_name
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.extraction import ExtractedEntity, ExtractedRelationship, Extraction
from redstring.domain.schema import Schema
from redstring.ports.llm_provider import LlmProvider

_PROMPT_1: Final = """\
You read one passage of a document and list the entities and relationships it states.
Answer with JSON in the response format: "entities" and "relationships".

Entities
- List every specific, named thing in the passage whose type appears under "Entity types".
- "name": the name as the passage writes it (its fullest form in this passage). Never invent,
  translate or complete a name the passage does not write. Leave out pronouns and generic
  phrases such as "the company" or "she".
- "type": exactly one of the entity type names below. If none fits, leave the thing out.
- "description": optional, one short clause the passage says about it.
- "attributes": optional, only attributes listed for that type, with values the passage states.

Relationships
- Only relationships the passage states, between entities you listed.
- "subject" and "object": the exact "name" you gave those entities.
- "type": one of the relationship type names below, whose subject and object types fit.
- "description": optional, one short clause.

If the passage holds nothing of these types, answer with two empty lists.

{types}"""

PROMPTS: Final[dict[int, str]] = {1: _PROMPT_1}
"""Every system prompt this module has shipped, by version; an old version stays reproducible."""

PROMPT_VERSION: Final = max(PROMPTS)
"""The prompt version a new ``LlmExtractor`` uses unless told otherwise."""

_ANY: Final = "any entity type"


class LlmExtractor:
    """Extracts a schema's entities and relationships with one call to ``provider``.

    ``prompt_version`` picks one of :data:`PROMPTS`; ``grounding_threshold`` (0-100) is the
    ``rapidfuzz`` partial-ratio a name must reach when it occurs neither verbatim nor word for
    word. Raises :class:`InvalidArgumentError` for an unknown version or a threshold outside
    0-100. Safe to share between concurrent ingests: the per-schema cache only ever grows by
    values that are equal for equal schemas.
    """

    def __init__(
        self,
        provider: LlmProvider,
        *,
        prompt_version: int = PROMPT_VERSION,
        grounding_threshold: float = 90.0,
    ) -> None:
        if prompt_version not in PROMPTS:
            raise InvalidArgumentError(
                f"prompt_version={prompt_version!r} is unknown; known versions are "
                f"{sorted(PROMPTS)}"
            )
        if not 0.0 <= grounding_threshold <= 100.0:
            raise InvalidArgumentError(
                f"grounding_threshold={grounding_threshold!r} is outside 0-100 (a rapidfuzz "
                "partial ratio); 90 accepts small spelling differences"
            )
        self._provider = provider
        self._prompt_version = prompt_version
        self._threshold = grounding_threshold
        self._compiled: dict[str, tuple[type[BaseModel], str]] = {}

    @property
    def model(self) -> str:
        """The provider's model qualified by this extractor's prompt version."""
        return f"{self._provider.model}+prompt-{self._prompt_version}"

    @property
    def provider(self) -> LlmProvider:
        """The provider every ``extract`` calls once."""
        return self._provider

    def response_model(self, schema: Schema) -> type[BaseModel]:
        """The pydantic model the provider is asked to fill for ``schema`` (cached per
        fingerprint); its ``model_json_schema()`` is what a server constrains output with."""
        return self._compile(schema)[0]

    def system_prompt(self, schema: Schema) -> str:
        """The system turn sent with every passage extracted to ``schema``."""
        return self._compile(schema)[1]

    async def extract(self, text: str, schema: Schema) -> Extraction:
        """One model call for ``text``; what the passage grounds, with the rest counted."""
        if not text.strip():
            raise EmptyTextError(
                f"text {text[:40]!r} is blank: pass a passage with at least one "
                "non-whitespace character"
            )
        response_model, prompt = self._compile(schema)
        answer = await self._provider.extract(text, response_model, system_prompt=prompt)
        payload = answer.model_dump(mode="json")
        return _Grounder(text, schema, self._threshold).extraction(
            payload.get("entities") or [], payload.get("relationships") or []
        )

    def _compile(self, schema: Schema) -> tuple[type[BaseModel], str]:
        key = schema.fingerprint
        compiled = self._compiled.get(key)
        if compiled is None:
            prompt = PROMPTS[self._prompt_version].format(types=_describe_types(schema))
            compiled = (_build_response_model(schema), prompt)
            self._compiled[key] = compiled
        return compiled


class _Answer(BaseModel):
    # Models add keys of their own; ignoring them keeps one stray key from failing a passage.
    model_config = ConfigDict(extra="ignore")


def _enumerated(kind: str, names: list[str], descriptions: list[str]) -> Any:
    listed = "; ".join(
        f"{name} ({description.rstrip('.')})" if description else name
        for name, description in zip(names, descriptions, strict=True)
    )
    json_schema: dict[str, JsonValue] = {"type": "string", "description": f"The {kind}: {listed}."}
    if names:
        json_schema["enum"] = list(names)
    # Advertised as an enumeration, validated as any string: an undeclared type then costs one
    # counted item instead of the whole passage.
    return Annotated[str, WithJsonSchema(json_schema)]


def _build_response_model(schema: Schema) -> type[BaseModel]:
    entity_type = _enumerated(
        "entity type",
        [spec.name for spec in schema.entity_types],
        [spec.description for spec in schema.entity_types],
    )
    attributes = "; ".join(
        f"{spec.name}: "
        + ", ".join(f"{key} ({text})" for key, text in spec.attribute_descriptions().items())
        for spec in schema.entity_types
        if spec.attributes
    )
    entity = create_model(
        "ExtractedEntityAnswer",
        __base__=_Answer,
        name=(str, Field(description="The name exactly as the passage writes it.")),
        type=(entity_type, ...),
        description=(str | None, Field(default=None, description="What the passage says.")),
        attributes=(
            dict[str, JsonValue],
            Field(
                default_factory=dict,
                description=f"Only attributes declared for the type. {attributes or 'None.'}",
            ),
        ),
    )
    relationship_type = _enumerated(
        "relationship type",
        [spec.name for spec in schema.relationship_types],
        [spec.description for spec in schema.relationship_types],
    )
    relationship = create_model(
        "ExtractedRelationshipAnswer",
        __base__=_Answer,
        subject=(str, Field(description="The subject entity's name, as listed in entities.")),
        type=(relationship_type, ...),
        object=(str, Field(description="The object entity's name, as listed in entities.")),
        description=(str | None, Field(default=None, description="What the passage says.")),
    )
    return create_model(
        f"Extraction_{schema.fingerprint}",
        __base__=_Answer,
        entities=(list[entity], Field(description="Named entities of the schema's types.")),
        relationships=(
            list[relationship],
            Field(description="Relationships the passage states between listed entities."),
        ),
    )


def _describe_types(schema: Schema) -> str:
    lines = ["Entity types:"]
    for spec in schema.entity_types:
        line = f"- {spec.name}: {spec.description}".rstrip(": ")
        if spec.attributes:
            line += " Attributes: " + ", ".join(
                f"{key} ({text})" for key, text in spec.attribute_descriptions().items()
            )
        lines.append(line)
    lines.append("Relationship types:")
    if not schema.relationship_types:
        lines.append("- none: answer with an empty relationships list.")
    for rel in schema.relationship_types:
        subjects = " or ".join(rel.subject_types) or _ANY
        objects = " or ".join(rel.object_types) or _ANY
        lines.append(f"- {rel.name} ({subjects} -> {objects}): {rel.description}".rstrip(": "))
    return "\n".join(lines)


class _Grounder:
    """Turns one decoded answer into an Extraction of what ``text`` grounds."""

    def __init__(self, text: str, schema: Schema, threshold: float) -> None:
        self._schema = schema
        self._threshold = threshold
        self._text = _normalised(text) or ""
        self._padded = f" {self._text} "
        self._words = set(self._text.split())
        self._dropped: dict[str, int] = {}

    def extraction(
        self, entities: Iterable[dict[str, Any]], relationships: Iterable[dict[str, Any]]
    ) -> Extraction:
        kept = self._entities(entities)
        edges = self._relationships(relationships, kept)
        return Extraction(
            entities=list(kept.values()), relationships=edges, dropped=dict(self._dropped)
        )

    def _drop(self, reason: str) -> None:
        self._dropped[reason] = self._dropped.get(reason, 0) + 1

    def _entities(
        self, answers: Iterable[dict[str, Any]]
    ) -> dict[tuple[str, str], ExtractedEntity]:
        kept: dict[tuple[str, str], ExtractedEntity] = {}
        for answer in answers:
            spec = self._schema.entity_type(answer["type"])
            if spec is None:
                self._drop("unknown_entity_type")
                continue
            name = " ".join(answer["name"].split())
            folded = _normalised(name)
            if folded is None or not self._grounded(folded):
                self._drop("ungrounded_entity")
                continue
            attributes = {
                key: value for key, value in answer["attributes"].items() if key in spec.attributes
            }
            previous = kept.get((folded, spec.name))
            if previous is not None:
                previous.attributes = {**attributes, **previous.attributes}
                previous.description = previous.description or answer["description"]
                continue
            kept[(folded, spec.name)] = ExtractedEntity(
                name=name, type=spec.name, description=answer["description"], attributes=attributes
            )
        return kept

    def _grounded(self, folded: str) -> bool:
        if f" {folded} " in self._padded:
            return True
        if set(folded.split()) <= self._words:
            return True
        return fuzz.partial_ratio(folded, self._text) >= self._threshold

    def _relationships(
        self,
        answers: Iterable[dict[str, Any]],
        kept: dict[tuple[str, str], ExtractedEntity],
    ) -> list[ExtractedRelationship]:
        by_name: dict[str, list[ExtractedEntity]] = {}
        for (folded, _), entity in kept.items():
            by_name.setdefault(folded, []).append(entity)
        edges: dict[tuple[str, str, str], ExtractedRelationship] = {}
        for answer in answers:
            declared = self._schema.relationship_type(answer["type"])
            if declared is None:
                self._drop("unknown_relationship_type")
                continue
            kind = declared.name
            subjects = by_name.get(_normalised(answer["subject"]) or "", [])
            objects = by_name.get(_normalised(answer["object"]) or "", [])
            if not subjects or not objects:
                self._drop("dangling_relationship")
                continue
            pair = next(
                (
                    (subject, obj)
                    for subject in subjects
                    for obj in objects
                    if self._schema.allows(kind, subject.type, obj.type)
                ),
                None,
            )
            if pair is None:
                self._drop("relationship_pattern")
                continue
            subject, obj = pair
            edges.setdefault(
                (subject.name, kind, obj.name),
                ExtractedRelationship(
                    subject=subject.name,
                    type=kind,
                    object=obj.name,
                    description=answer["description"],
                ),
            )
        return list(edges.values())


def _normalised(name: str) -> str | None:
    try:
        return normalise_name(name)
    except EmptyTextError:
        return None
