"""FakeLlmProvider answers from a script through the real validation gate, and records calls."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from redstring.domain.errors import EmptyTextError
from redstring.llm.adapters.fake import EMPTY, FakeLlmProvider, LlmCall, UnscriptedCallError
from redstring.ports.errors import (
    EmptyCompletionError,
    LlmProviderError,
    MalformedCompletionError,
    RefusedCompletionError,
    TransientLlmError,
)
from redstring.ports.llm_provider import LlmProvider


class Extraction(BaseModel):
    entities: list[str] = []


class Strict(BaseModel):
    name: str


ADA = {"entities": ["Ada Lovelace"]}
BABBAGE = {"entities": ["Charles Babbage"]}


class TestTheErrorFamily:
    def test_refused_and_empty_are_siblings_not_subclasses(self) -> None:
        """A refusal is permanent and a truncation is retryable: neither may catch the other."""
        assert not issubclass(RefusedCompletionError, EmptyCompletionError)
        assert not issubclass(EmptyCompletionError, RefusedCompletionError)

    @pytest.mark.parametrize(
        "error", [EmptyCompletionError, MalformedCompletionError, RefusedCompletionError]
    )
    def test_every_completion_failure_is_an_llm_provider_error(
        self, error: type[Exception]
    ) -> None:
        """One ``except LlmProviderError`` holds every way a completion can fail."""
        assert issubclass(error, LlmProviderError)

    async def test_a_scripted_refusal_is_not_caught_as_an_empty_completion(self) -> None:
        """The distinction holds at runtime, through the fake, not only in the class tree."""
        fake = FakeLlmProvider(script=[RefusedCompletionError])
        with pytest.raises(LlmProviderError) as raised:
            await fake.extract("Ada", Extraction)
        assert isinstance(raised.value, RefusedCompletionError)
        assert not isinstance(raised.value, EmptyCompletionError)


class TestFakeLlmProvider:
    def test_the_fake_is_an_llm_provider(self) -> None:
        """The method and property names line up with the port."""
        assert isinstance(FakeLlmProvider(script=[]), LlmProvider)

    def test_model_is_provider_qualified_provenance(self) -> None:
        """The default names the fake as its provider; a bare name is refused."""
        assert FakeLlmProvider(script=[]).model == "fake/scripted"
        assert FakeLlmProvider("fake/v2", script=[]).model == "fake/v2"
        with pytest.raises(ValueError, match="is not provider-qualified"):
            FakeLlmProvider("scripted", script=[])

    async def test_a_script_answers_calls_in_order_validated_as_the_schema(self) -> None:
        """Each call takes the next payload, returned as an instance of the caller's schema."""
        fake = FakeLlmProvider(script=[ADA, BABBAGE])
        first = await fake.extract("one", Extraction)
        second = await fake.extract("two", Extraction)
        assert isinstance(first, Extraction)
        assert (first.entities, second.entities) == (["Ada Lovelace"], ["Charles Babbage"])

    async def test_an_exhausted_script_raises_a_clear_error(self) -> None:
        """Running past the script says so, naming the call and the text."""
        fake = FakeLlmProvider(script=[ADA])
        await fake.extract("one", Extraction)
        with pytest.raises(UnscriptedCallError, match=r"all were used; call 2 was for text 'two'"):
            await fake.extract("two", Extraction)

    async def test_by_substring_answers_whatever_the_order_of_calls(self) -> None:
        """The answer follows the text, so permuting the calls permutes nothing else."""
        texts = ["chunk about Ada.", "chunk about Babbage.", "more on Ada."]

        async def answers(order: list[str]) -> dict[str, list[str]]:
            fake = FakeLlmProvider(by_substring={"Ada": ADA, "Babbage": BABBAGE})
            return {text: (await fake.extract(text, Extraction)).entities for text in order}

        assert await answers(texts) == await answers(list(reversed(texts)))
        assert (await answers(texts))["more on Ada."] == ["Ada Lovelace"]

    async def test_by_substring_does_not_depend_on_the_mappings_order(self) -> None:
        """A text matching two keys is an error whichever key was inserted first."""
        for mapping in ({"Ada": ADA, "Lovelace": BABBAGE}, {"Lovelace": BABBAGE, "Ada": ADA}):
            fake = FakeLlmProvider(by_substring=mapping)
            with pytest.raises(UnscriptedCallError, match=r"several keys \['Ada', 'Lovelace'\]"):
                await fake.extract("Ada Lovelace", Extraction)

    async def test_a_text_matching_no_substring_raises_a_clear_error(self) -> None:
        """The message names the text and the keys that were available."""
        fake = FakeLlmProvider(by_substring={"Ada": ADA})
        with pytest.raises(UnscriptedCallError, match=r"'Grace Hopper' matches no key.*\['Ada'\]"):
            await fake.extract("Grace Hopper", Extraction)

    def test_an_unscripted_call_is_not_an_llm_provider_error(self) -> None:
        """A pipeline skipping failed chunks must not swallow a broken test script."""
        assert not issubclass(UnscriptedCallError, LlmProviderError)

    async def test_empty_raises_while_an_empty_result_is_an_answer(self) -> None:
        """EMPTY and a payload validating to an instance holding nothing are distinguishable."""
        fake = FakeLlmProvider(script=[EMPTY, {}])
        with pytest.raises(EmptyCompletionError, match="Extraction"):
            await fake.extract("one", Extraction)
        nothing_found = await fake.extract("two", Extraction)
        assert nothing_found == Extraction(entities=[])

    async def test_a_payload_that_does_not_validate_raises_malformed(self) -> None:
        """The dict goes through the real gate: a missing required field is malformed output."""
        fake = FakeLlmProvider(script=[{"nickname": "Ada"}])
        with pytest.raises(MalformedCompletionError, match="does not validate against Strict"):
            await fake.extract("Ada", Strict)

    @pytest.mark.parametrize("where", ["script", "by_substring"])
    def test_a_prebuilt_schema_instance_cannot_be_scripted(self, where: str) -> None:
        """A ready-made instance would skip validation, so it is refused up front."""
        prebuilt = Extraction(entities=["Ada"])
        scripted = [prebuilt]
        arguments = {"script": scripted} if where == "script" else {"by_substring": {"A": prebuilt}}
        with pytest.raises(ValueError, match="pre-built Extraction instance cannot be scripted"):
            FakeLlmProvider(**arguments)  # type: ignore[arg-type]

    def test_a_payload_of_another_kind_is_refused(self) -> None:
        """Only dicts, EMPTY and LlmProviderErrors are payloads."""
        with pytest.raises(ValueError, match=r"payload 'Ada' is not scriptable"):
            FakeLlmProvider(script=["Ada"])  # type: ignore[list-item]
        with pytest.raises(ValueError, match="is not scriptable"):
            FakeLlmProvider(script=[RuntimeError])  # type: ignore[list-item]

    async def test_a_scripted_error_instance_is_raised(self) -> None:
        """The very failure scripted reaches the caller, on every call that draws it."""
        failure = TransientLlmError("HTTP 503 from the server")
        fake = FakeLlmProvider(by_substring={"Ada": failure})
        for _ in range(2):
            with pytest.raises(TransientLlmError) as raised:
                await fake.extract("Ada", Extraction)
            assert raised.value is failure

    async def test_a_scripted_error_class_is_raised_with_a_message(self) -> None:
        """A class is instantiated with a message naming it and the text."""
        fake = FakeLlmProvider(script=[RefusedCompletionError])
        with pytest.raises(RefusedCompletionError, match=r"scripted RefusedCompletionError.*'Ada'"):
            await fake.extract("Ada", Extraction)

    @pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
    async def test_blank_text_raises_before_any_call(self, blank: str) -> None:
        """No call is recorded and no payload is consumed for blank text."""
        fake = FakeLlmProvider(script=[ADA])
        with pytest.raises(EmptyTextError):
            await fake.extract(blank, Extraction)
        assert fake.calls == ()
        assert (await fake.extract("Ada", Extraction)).entities == ["Ada Lovelace"]

    async def test_calls_are_recorded_with_text_schema_and_system_prompt(self) -> None:
        """Assertions can see exactly what reached the model; no default prompt is invented."""
        fake = FakeLlmProvider(script=[ADA, {"name": "Ada"}])
        await fake.extract("first text", Extraction)
        await fake.extract("second text", Strict, system_prompt="Extract people.")
        assert fake.calls == (
            LlmCall(text="first text", schema=Extraction, system_prompt=None),
            LlmCall(text="second text", schema=Strict, system_prompt="Extract people."),
        )

    async def test_each_answer_is_a_fresh_instance(self) -> None:
        """Mutating one answer changes neither the script nor the next answer."""
        fake = FakeLlmProvider(by_substring={"Ada": ADA})
        first = await fake.extract("Ada", Extraction)
        first.entities.append("Mallory")
        second = await fake.extract("Ada", Extraction)
        assert second.entities == ["Ada Lovelace"]
        assert ADA == {"entities": ["Ada Lovelace"]}

    @pytest.mark.parametrize(
        "arguments",
        [{}, {"script": [ADA], "by_substring": {"Ada": ADA}}],
        ids=["neither", "both"],
    )
    def test_exactly_one_way_of_scripting_is_given(self, arguments: dict[str, object]) -> None:
        """Neither or both would leave it unclear which answer a call gets."""
        with pytest.raises(ValueError, match="exactly one of"):
            FakeLlmProvider(**arguments)  # type: ignore[arg-type]

    def test_a_blank_substring_key_is_refused(self) -> None:
        """An empty key occurs in every text and would shadow every other key."""
        with pytest.raises(ValueError, match="is blank and would match every text"):
            FakeLlmProvider(by_substring={"": ADA})
