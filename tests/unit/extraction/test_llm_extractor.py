"""LlmExtractor through FakeLlmProvider and the scripted LangChain transport.

Every answer below is what a model would send: a dict (or JSON text) validated by the
provider's own gate, so the tests exercise the generated response model, the grounding and
the drop accounting exactly as a real server's answer would.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, SystemMessage

from redstring.corpus import load_corpus
from redstring.domain.chunking import chunk_text
from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.extraction import DROP_REASONS, Extraction
from redstring.domain.ids import source_id
from redstring.domain.schema import DEFAULT_SCHEMA, EntityTypeSpec, Schema
from redstring.extraction.llm import PROMPT_VERSION, PROMPTS, LlmExtractor
from redstring.llm.adapters.fake import EMPTY, FakeLlmProvider
from redstring.llm.adapters.langchain import LangChainLlmProvider
from redstring.ports.errors import (
    EmptyCompletionError,
    MalformedCompletionError,
    RefusedCompletionError,
    TransientLlmError,
)
from redstring.ports.extractor import Extractor
from tests.unit.llm.test_langchain_adapter import ScriptedChatModel

PASSAGE = (
    "Adaeze Okafor founded Okafor Laboratories Ltd. in Port Harlow in 2009. "
    "Her colleague Tomas Veil later joined the company as chief engineer."
)
VALID: dict[str, Any] = {
    "entities": [
        {"name": "Adaeze Okafor", "type": "Person", "description": "founder"},
        {"name": "Okafor Laboratories Ltd.", "type": "Organization"},
        {"name": "Port Harlow", "type": "Location"},
        {"name": "Tomas Veil", "type": "Person"},
    ],
    "relationships": [
        {"subject": "Adaeze Okafor", "type": "FOUNDED", "object": "Okafor Laboratories Ltd."},
        {"subject": "Tomas Veil", "type": "WORKS_FOR", "object": "Okafor Laboratories Ltd."},
        {"subject": "Okafor Laboratories Ltd.", "type": "LOCATED_IN", "object": "Port Harlow"},
    ],
}


def extractor_answering(payload: Any) -> tuple[LlmExtractor, FakeLlmProvider]:
    provider = FakeLlmProvider("fake/scripted", by_substring={"Adaeze": payload})
    return LlmExtractor(provider), provider


def triples(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(r.subject, r.type, r.object) for r in extraction.relationships}


async def test_a_valid_answer_comes_back_whole_with_nothing_dropped() -> None:
    """Grounded entities and allowed relationships are returned as the model named them."""
    extractor, provider = extractor_answering(VALID)
    extraction = await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
    assert [(e.name, e.type) for e in extraction.entities] == [
        ("Adaeze Okafor", "Person"),
        ("Okafor Laboratories Ltd.", "Organization"),
        ("Port Harlow", "Location"),
        ("Tomas Veil", "Person"),
    ]
    assert extraction.entities[0].description == "founder"
    assert triples(extraction) == {
        ("Adaeze Okafor", "FOUNDED", "Okafor Laboratories Ltd."),
        ("Tomas Veil", "WORKS_FOR", "Okafor Laboratories Ltd."),
        ("Okafor Laboratories Ltd.", "LOCATED_IN", "Port Harlow"),
    }
    assert extraction.dropped == {}
    assert len(provider.calls) == 1


async def test_one_call_per_passage_with_our_versioned_system_prompt() -> None:
    """The system turn is the versioned prompt rendered with the schema's types."""
    extractor, provider = extractor_answering(VALID)
    await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
    [call] = provider.calls
    assert call.text == PASSAGE
    assert call.system_prompt == extractor.system_prompt(DEFAULT_SCHEMA)
    assert call.system_prompt is not None
    assert "WORKS_FOR (Person -> Organization)" in call.system_prompt
    assert "- Person: A named human being." in call.system_prompt
    assert call.schema is extractor.response_model(DEFAULT_SCHEMA)


async def test_model_names_the_provider_and_the_prompt_version() -> None:
    """The extractor's identity changes with the prompt, so a new prompt re-extracts."""
    extractor, _ = extractor_answering(VALID)
    assert extractor.model == f"fake/scripted+prompt-{PROMPT_VERSION}"
    assert isinstance(extractor, Extractor)


def test_an_unknown_prompt_version_or_threshold_is_refused() -> None:
    """Bad construction arguments name the value and what is valid."""
    provider = FakeLlmProvider(by_substring={"x": VALID})
    with pytest.raises(InvalidArgumentError, match=r"prompt_version=99 .*\[1\]"):
        LlmExtractor(provider, prompt_version=99)
    with pytest.raises(InvalidArgumentError, match="grounding_threshold=101"):
        LlmExtractor(provider, grounding_threshold=101)
    assert set(PROMPTS) == {1}


def test_the_response_model_enumerates_the_schema_types_with_descriptions() -> None:
    """A server constraining output by the JSON schema can only emit declared types."""
    extractor, _ = extractor_answering(VALID)
    json_schema = extractor.response_model(DEFAULT_SCHEMA).model_json_schema()
    defs = json_schema["$defs"]
    entity_type = defs["ExtractedEntityAnswer"]["properties"]["type"]
    relationship_type = defs["ExtractedRelationshipAnswer"]["properties"]["type"]
    assert entity_type["enum"] == [spec.name for spec in DEFAULT_SCHEMA.entity_types]
    assert "Person (A named human being)" in entity_type["description"]
    assert relationship_type["enum"] == [s.name for s in DEFAULT_SCHEMA.relationship_types]
    assert set(json_schema["required"]) == {"entities", "relationships"}
    assert set(defs["ExtractedEntityAnswer"]["required"]) == {"name", "type"}


def test_the_response_model_is_cached_per_schema_fingerprint() -> None:
    """Equal schemas share one generated model; a different schema gets its own."""
    extractor, _ = extractor_answering(VALID)
    same = Schema.model_validate(DEFAULT_SCHEMA.model_dump())
    other = Schema(entity_types=(EntityTypeSpec(name="Gene"),))
    first = extractor.response_model(DEFAULT_SCHEMA)
    assert extractor.response_model(same) is first
    assert extractor.response_model(other) is not first
    gene = extractor.response_model(other).model_json_schema()["$defs"]
    assert gene["ExtractedEntityAnswer"]["properties"]["type"]["enum"] == ["Gene"]


async def test_an_ungrounded_entity_is_dropped_with_its_relationships() -> None:
    """A name the passage never writes is counted; an edge to it dangles and is counted."""
    answer = {
        "entities": [*VALID["entities"], {"name": "Miriam Castellanos", "type": "Person"}],
        "relationships": [
            {
                "subject": "Miriam Castellanos",
                "type": "WORKS_FOR",
                "object": "Okafor Laboratories Ltd.",
            }
        ],
    }
    extractor, _ = extractor_answering(answer)
    extraction = await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
    assert "Miriam Castellanos" not in {e.name for e in extraction.entities}
    assert extraction.relationships == []
    assert extraction.dropped == {"ungrounded_entity": 1, "dangling_relationship": 1}


@pytest.mark.parametrize(
    ("name", "grounded"),
    [
        ("okafor laboratories ltd", True),  # case and punctuation
        ("Okafor, Adaeze", True),  # the same words in another order
        ("Okafor Laboratries Ltd", True),  # a one-letter slip
        ("Tomas  Veil", True),  # spacing
        ("Okafor Industries", False),
        ("Port Harlowe Bay", False),
    ],
)
async def test_grounding_folds_case_order_and_small_slips_only(name: str, grounded: bool) -> None:
    """Normalised, word-set and fuzzy matches ground a name; a different name does not."""
    extractor, _ = extractor_answering(
        {"entities": [{"name": name, "type": "Organization"}], "relationships": []}
    )
    extraction = await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
    assert bool(extraction.entities) is grounded
    assert extraction.dropped == ({} if grounded else {"ungrounded_entity": 1})


async def test_wrong_types_are_dropped_per_item_and_counted_by_reason() -> None:
    """Undeclared types and broken patterns cost one item each, never the whole passage."""
    answer = {
        "entities": [
            *VALID["entities"],
            {"name": "2009", "type": "Date"},
        ],
        "relationships": [
            {"subject": "Adaeze Okafor", "type": "MENTORED", "object": "Tomas Veil"},
            {"subject": "Okafor Laboratories Ltd.", "type": "WORKS_FOR", "object": "Adaeze Okafor"},
            {"subject": "Adaeze Okafor", "type": "FOUNDED", "object": "Okafor Laboratories Ltd."},
        ],
    }
    extractor, _ = extractor_answering(answer)
    extraction = await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
    assert len(extraction.entities) == 4
    assert triples(extraction) == {("Adaeze Okafor", "FOUNDED", "Okafor Laboratories Ltd.")}
    assert extraction.dropped == {
        "unknown_entity_type": 1,
        "unknown_relationship_type": 1,
        "relationship_pattern": 1,
    }
    assert set(extraction.dropped) <= set(DROP_REASONS)


async def test_repeats_are_returned_once_and_undeclared_attributes_left_out() -> None:
    """Two mentions of one entity merge; only attributes the type declares survive."""
    schema = Schema(
        entity_types=(EntityTypeSpec(name="Person", attributes={"role": "job title"}),),
    )
    answer = {
        "entities": [
            {"name": "Tomas Veil", "type": "Person", "attributes": {"role": "chief engineer"}},
            {"name": "tomas veil", "type": "Person", "attributes": {"shoe_size": 44}},
        ],
        "relationships": [],
    }
    extractor, _ = extractor_answering(answer)
    extraction = await extractor.extract(PASSAGE, schema)
    [entity] = extraction.entities
    assert entity.name == "Tomas Veil"
    assert entity.attributes == {"role": "chief engineer"}
    assert extraction.dropped == {}


async def test_relationship_endpoints_resolve_by_normalised_name() -> None:
    """An endpoint written with other case or punctuation names the kept entity."""
    answer = {
        "entities": VALID["entities"][:2],
        "relationships": [
            {"subject": "adaeze okafor", "type": "FOUNDED", "object": "Okafor Laboratories Ltd"}
        ],
    }
    extractor, _ = extractor_answering(answer)
    extraction = await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
    assert triples(extraction) == {("Adaeze Okafor", "FOUNDED", "Okafor Laboratories Ltd.")}


async def test_an_empty_answer_means_nothing_found() -> None:
    """Two empty lists are a valid answer: an empty extraction, nothing dropped."""
    extractor, _ = extractor_answering({"entities": [], "relationships": []})
    assert await extractor.extract(PASSAGE, DEFAULT_SCHEMA) == Extraction()


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ({"entities": "Adaeze Okafor"}, MalformedCompletionError),
        ({"relationships": []}, MalformedCompletionError),
        ({"entities": [{"type": "Person"}], "relationships": []}, MalformedCompletionError),
        (EMPTY, EmptyCompletionError),
        (RefusedCompletionError, RefusedCompletionError),
        (TransientLlmError, TransientLlmError),
    ],
)
async def test_failed_calls_propagate_as_provider_errors(payload: Any, error: type) -> None:
    """Malformed, empty and refused answers raise the provider's typed error, unwrapped."""
    extractor, provider = extractor_answering(payload)
    with pytest.raises(error):
        await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
    assert len(provider.calls) == 1


async def test_blank_text_raises_before_any_call() -> None:
    """A blank passage is a caller error and costs no model call."""
    extractor, provider = extractor_answering(VALID)
    with pytest.raises(EmptyTextError):
        await extractor.extract("  \n", DEFAULT_SCHEMA)
    assert provider.calls == ()


def scripted(*replies: Any) -> tuple[LlmExtractor, ScriptedChatModel]:
    chat_model = ScriptedChatModel(replies=list(replies))
    return LlmExtractor(LangChainLlmProvider(chat_model, model="ollama/qwen3-8b")), chat_model


class TestThroughTheLangChainTransport:
    """The same extractor over LangChainLlmProvider and a scripted chat model."""

    async def test_a_json_answer_is_grounded_and_the_schema_sent(self) -> None:
        """The request carries the generated JSON schema; the JSON reply is grounded."""
        answer = dict(VALID)
        answer["entities"] = [*VALID["entities"], {"name": "Lagos", "type": "Location"}]
        extractor, chat_model = scripted(AIMessage(content=json.dumps(answer)))
        extraction = await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
        assert len(extraction.entities) == 4
        assert extraction.dropped == {"ungrounded_entity": 1}
        [call] = chat_model.calls
        assert isinstance(call.messages[0], SystemMessage)
        sent = call.kwargs["response_format"]["json_schema"]["schema"]
        assert sent == extractor.response_model(DEFAULT_SCHEMA).model_json_schema()
        assert extractor.model == "ollama/qwen3-8b+prompt-1"

    async def test_a_fenced_answer_with_extra_keys_is_accepted(self) -> None:
        """Keys the schema does not name are ignored rather than failing the passage."""
        answer = {"entities": [{"name": "Tomas Veil", "type": "Person", "confidence": 0.9}]}
        answer["relationships"] = []
        answer["notes"] = "none"
        extractor, _ = scripted(AIMessage(content=f"```json\n{json.dumps(answer)}\n```"))
        extraction = await extractor.extract(PASSAGE, DEFAULT_SCHEMA)
        assert [e.name for e in extraction.entities] == ["Tomas Veil"]

    @pytest.mark.parametrize(
        ("reply", "error"),
        [
            (AIMessage(content='{"entities": [{"name": "Ada'), MalformedCompletionError),
            (AIMessage(content="   "), EmptyCompletionError),
            (AIMessage(content="", additional_kwargs={"refusal": "no"}), RefusedCompletionError),
            (
                AIMessage(content="{}", response_metadata={"finish_reason": "length"}),
                EmptyCompletionError,
            ),
        ],
    )
    async def test_malformed_empty_refused_and_truncated_answers_raise(
        self, reply: AIMessage, error: type
    ) -> None:
        """Each failure surfaces as the provider's typed error."""
        extractor, _ = scripted(reply)
        with pytest.raises(error):
            await extractor.extract(PASSAGE, DEFAULT_SCHEMA)


async def test_grounding_keeps_every_name_a_corpus_passage_really_contains() -> None:
    """Over all 26 passages of the shipped corpus, an answer naming exactly the gold entities
    as each passage writes them loses nothing to grounding, and costs one call a passage."""
    corpus = load_corpus()
    answers: dict[str, Any] = {}
    expected = 0
    for document in corpus.documents:
        for chunk in chunk_text(source_id(document.id), document.text):
            entities = []
            for entity in corpus.entities_in(document.id):
                for name in sorted(entity.names, key=len, reverse=True):
                    match = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", chunk.text)
                    if match:
                        entities.append({"name": match.group(0), "type": entity.type})
                        break
            answers[chunk.text] = {"entities": entities, "relationships": []}
            expected += len(entities)
    provider = FakeLlmProvider(by_substring=answers)
    extractor = LlmExtractor(provider)
    kept = 0
    for text in answers:
        extraction = await extractor.extract(text, corpus.schema)
        assert extraction.dropped == {}, text[:60]
        kept += len(extraction.entities)
    assert kept == expected > 200
    assert len(provider.calls) == len(answers)
