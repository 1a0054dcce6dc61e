"""LangChainLlmProvider driven through a scripted transport: a real chat model, canned replies.

``ScriptedChatModel`` is a LangChain ``BaseChatModel`` that answers from a script and records
what it received, so every test runs the adapter's own request building and parsing. The
openai errors raised here are the SDK's real classes, constructed without a network.
"""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import openai
import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.exceptions import ModelRateLimitError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, Field

from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.llm.adapters.langchain import LangChainLlmProvider
from redstring.ports.errors import (
    EmptyCompletionError,
    LlmProviderError,
    MalformedCompletionError,
    RefusedCompletionError,
    TransientLlmError,
)
from redstring.ports.llm_provider import LlmProvider

MODEL = "ollama/qwen3-8b"
ADA = '{"people": ["Ada Lovelace", "Charles Babbage"]}'


class People(BaseModel):
    """The schema every test asks for."""

    people: list[str]


@dataclass(frozen=True)
class Call:
    """What the scripted model received in one call."""

    messages: list[BaseMessage]
    kwargs: dict[str, Any]


class ScriptedChatModel(BaseChatModel):
    """Answers each call with the next scripted reply (or raises it) and records the call."""

    replies: list[Any]
    calls: list[Call] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _answer(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> ChatResult:
        self.calls.append(Call(messages=list(messages), kwargs=dict(kwargs)))
        assert self.replies, "the script has no reply left for this call"
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        assert isinstance(reply, AIMessage)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._answer(messages, kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._answer(messages, kwargs)


def scripted(*replies: Any) -> tuple[LangChainLlmProvider, ScriptedChatModel]:
    chat_model = ScriptedChatModel(replies=list(replies))
    return LangChainLlmProvider(chat_model, model=MODEL), chat_model


_REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def _status(cls: type[openai.APIStatusError], code: int) -> openai.APIStatusError:
    return cls(f"status {code}", response=httpx.Response(code, request=_REQUEST), body=None)


def _completion(finish_reason: str) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "qwen3-8b",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish_reason,
                    "message": {"role": "assistant", "content": '{"people": ["Ada'},
                }
            ],
        }
    )


def test_the_provider_satisfies_the_port() -> None:
    """Structural conformance, the cheap first check."""
    provider, _ = scripted()
    assert isinstance(provider, LlmProvider)
    assert provider.model == MODEL


class TestWhatReachesTheModel:
    async def test_the_schema_goes_out_as_a_json_schema_response_format(self) -> None:
        """The caller's schema is sent as an OpenAI json_schema response format."""
        provider, chat_model = scripted(AIMessage(content=ADA))
        await provider.extract("Ada worked with Babbage.", People)
        assert chat_model.calls[0].kwargs["response_format"] == {
            "type": "json_schema",
            "json_schema": {
                "name": "People",
                "schema": People.model_json_schema(),
                "strict": False,
            },
        }

    async def test_strict_is_passed_through_when_asked_for(self) -> None:
        """``strict=True`` reaches the response format unchanged."""
        chat_model = ScriptedChatModel(replies=[AIMessage(content=ADA)])
        provider = LangChainLlmProvider(chat_model, model=MODEL, strict=True)
        await provider.extract("Ada worked with Babbage.", People)
        assert chat_model.calls[0].kwargs["response_format"]["json_schema"]["strict"] is True

    async def test_a_system_prompt_is_a_separate_turn_before_the_text(self) -> None:
        """The instructions and the text arrive as two turns, system first, each verbatim."""
        provider, chat_model = scripted(AIMessage(content=ADA))
        await provider.extract("Ada worked with Babbage.", People, system_prompt="List people.")
        messages = chat_model.calls[0].messages
        assert [type(m) for m in messages] == [SystemMessage, HumanMessage]
        assert [m.content for m in messages] == ["List people.", "Ada worked with Babbage."]

    async def test_without_a_system_prompt_only_the_text_is_sent(self) -> None:
        """No default system prompt of the adapter's own is added."""
        provider, chat_model = scripted(AIMessage(content=ADA))
        await provider.extract("Ada worked with Babbage.", People)
        messages = chat_model.calls[0].messages
        assert [type(m) for m in messages] == [HumanMessage]
        assert messages[0].content == "Ada worked with Babbage."

    @pytest.mark.parametrize("text", ["", "   ", "\n\t"])
    async def test_blank_text_is_refused_before_any_call(self, text: str) -> None:
        """A blank text raises EmptyTextError and the model is never called."""
        provider, chat_model = scripted(AIMessage(content=ADA))
        with pytest.raises(EmptyTextError):
            await provider.extract(text, People)
        assert chat_model.calls == []

    async def test_a_blank_system_prompt_is_refused_before_any_call(self) -> None:
        """An empty system turn is a caller mistake; None is how to send none."""
        provider, chat_model = scripted(AIMessage(content=ADA))
        with pytest.raises(InvalidArgumentError, match="system_prompt"):
            await provider.extract("Ada.", People, system_prompt="  ")
        assert chat_model.calls == []


class TestReadingTheAnswer:
    async def test_a_string_answer_is_validated_into_the_schema(self) -> None:
        """A plain JSON string becomes an instance of the caller's schema."""
        provider, _ = scripted(AIMessage(content=ADA))
        found = await provider.extract("Ada worked with Babbage.", People)
        assert found == People(people=["Ada Lovelace", "Charles Babbage"])

    async def test_text_blocks_are_joined_and_reasoning_is_ignored(self) -> None:
        """Only text blocks form the answer; reasoning blocks and reasoning_content do not."""
        reply = AIMessage(
            content=[
                {"type": "reasoning", "reasoning": '{"people": ["Thought"]}'},
                {"type": "text", "text": '{"people": ["Ada '},
                {"type": "text", "text": 'Lovelace"]}'},
            ],
            additional_kwargs={"reasoning_content": '{"people": ["Reasoned"]}'},
        )
        provider, _ = scripted(reply)
        found = await provider.extract("Ada.", People)
        assert found == People(people=["Ada Lovelace"])

    async def test_an_answer_of_only_reasoning_is_empty(self) -> None:
        """A reasoning model that thought but never answered gave no usable content."""
        reply = AIMessage(
            content=[{"type": "reasoning", "reasoning": "hmm"}],
            additional_kwargs={"reasoning_content": ADA},
        )
        provider, _ = scripted(reply)
        with pytest.raises(EmptyCompletionError):
            await provider.extract("Ada.", People)

    @pytest.mark.parametrize("content", ["", "   \n"])
    async def test_an_empty_answer_is_an_empty_completion(self, content: str) -> None:
        """No content is an error, never an empty result."""
        provider, _ = scripted(AIMessage(content=content))
        with pytest.raises(EmptyCompletionError):
            await provider.extract("Ada.", People)

    async def test_a_parsed_answer_holding_nothing_is_the_empty_result(self) -> None:
        """Only a validated instance with nothing in it means "nothing found"."""
        provider, _ = scripted(AIMessage(content='{"people": []}'))
        assert await provider.extract("The weather was fine.", People) == People(people=[])

    @pytest.mark.parametrize(
        "content", ['{"people": ["Ada"', "Ada and Babbage", '["Ada"]', '{"persons": ["Ada"]}']
    )
    async def test_output_that_does_not_validate_is_malformed(self, content: str) -> None:
        """Not JSON, not an object, or not the schema: MalformedCompletionError."""
        provider, _ = scripted(AIMessage(content=content))
        with pytest.raises(MalformedCompletionError):
            await provider.extract("Ada.", People)


class TestTruncationAndRefusal:
    @pytest.mark.parametrize(
        "metadata",
        [
            {"finish_reason": "length"},
            {"done_reason": "length"},
            {"incomplete_details": {"reason": "max_output_tokens"}},
        ],
    )
    async def test_a_reply_cut_at_the_token_limit_is_empty_not_malformed(
        self, metadata: dict[str, Any]
    ) -> None:
        """A truncated answer is EmptyCompletionError (retry with a budget), not malformed."""
        reply = AIMessage(content='{"people": ["Ada', response_metadata=metadata)
        provider, _ = scripted(reply)
        with pytest.raises(EmptyCompletionError, match="token limit"):
            await provider.extract("Ada.", People)

    async def test_truncation_wins_even_when_the_cut_text_parses(self) -> None:
        """A cut-off list can still be valid JSON; the stop reason decides, not the parse."""
        reply = AIMessage(content='{"people": []}', response_metadata={"finish_reason": "length"})
        provider, _ = scripted(reply)
        with pytest.raises(EmptyCompletionError):
            await provider.extract("Ada.", People)

    async def test_the_openai_length_error_is_an_empty_completion(self) -> None:
        """The SDK's parse path raises LengthFinishReasonError; openai must not leak out."""
        error = openai.LengthFinishReasonError(completion=_completion("length"))
        provider, _ = scripted(error)
        with pytest.raises(EmptyCompletionError) as caught:
            await provider.extract("Ada.", People)
        assert caught.value.__cause__ is error

    async def test_a_refusal_field_is_a_refused_completion(self) -> None:
        """OpenAI's refusal (additional_kwargs["refusal"]) is RefusedCompletionError."""
        reply = AIMessage(content="", additional_kwargs={"refusal": "I cannot help with that."})
        provider, _ = scripted(reply)
        with pytest.raises(RefusedCompletionError, match="cannot help"):
            await provider.extract("Ada.", People)

    async def test_a_refusal_block_is_a_refused_completion(self) -> None:
        """A refusal content block is a refusal even beside a parseable text block."""
        reply = AIMessage(
            content=[
                {"type": "text", "text": '{"people": []}'},
                {"type": "refusal", "refusal": "Not this one."},
            ]
        )
        provider, _ = scripted(reply)
        with pytest.raises(RefusedCompletionError, match="Not this one"):
            await provider.extract("Ada.", People)

    async def test_a_content_filter_stop_is_a_refused_completion(self) -> None:
        """finish_reason content_filter, as a reply or as the SDK's error, is a refusal."""
        reply = AIMessage(content="", response_metadata={"finish_reason": "content_filter"})
        error = openai.ContentFilterFinishReasonError()
        provider, _ = scripted(reply, error)
        with pytest.raises(RefusedCompletionError):
            await provider.extract("Ada.", People)
        with pytest.raises(RefusedCompletionError):
            await provider.extract("Ada.", People)

    def test_refused_and_empty_are_siblings_not_one_kind(self) -> None:
        """A truncation is worth retrying and a refusal is not, so neither may catch the other."""
        assert not issubclass(RefusedCompletionError, EmptyCompletionError)
        assert not issubclass(EmptyCompletionError, RefusedCompletionError)
        assert issubclass(RefusedCompletionError, LlmProviderError)
        assert issubclass(EmptyCompletionError, LlmProviderError)


class TestTransportErrors:
    @pytest.mark.parametrize(
        "error",
        [
            openai.APITimeoutError(request=_REQUEST),
            openai.APIConnectionError(request=_REQUEST),
            _status(openai.RateLimitError, 429),
            _status(openai.InternalServerError, 503),
            ModelRateLimitError("langchain's own 429"),
            TimeoutError("read timed out"),
        ],
        ids=lambda error: type(error).__name__,
    )
    async def test_a_transient_failure_is_a_transient_llm_error(self, error: Exception) -> None:
        """Timeouts, 429, 5xx and dropped connections say "retry", with the cause chained."""
        provider, _ = scripted(error)
        with pytest.raises(TransientLlmError) as caught:
            await provider.extract("Ada.", People)
        assert caught.value.__cause__ is error

    async def test_a_bare_5xx_status_code_is_transient_without_knowing_the_class(self) -> None:
        """A transport's own error carrying status_code 502 is recognised by the attribute."""

        class GatewayError(Exception):
            status_code = 502

        provider, _ = scripted(GatewayError("bad gateway"))
        with pytest.raises(TransientLlmError):
            await provider.extract("Ada.", People)

    @pytest.mark.parametrize(
        "error",
        [_status(openai.AuthenticationError, 401), _status(openai.BadRequestError, 400)],
        ids=lambda error: type(error).__name__,
    )
    async def test_a_permanent_failure_is_a_provider_error_but_not_transient(
        self, error: Exception
    ) -> None:
        """A bad key or request is still one ``except LlmProviderError``, never "retry"."""
        provider, _ = scripted(error)
        with pytest.raises(LlmProviderError) as caught:
            await provider.extract("Ada.", People)
        assert not isinstance(caught.value, TransientLlmError)
        assert caught.value.__cause__ is error


class TestConstruction:
    @pytest.mark.parametrize("model", ["qwen3-8b", "/qwen3-8b", "ollama/", " /x"])
    def test_model_must_be_provider_qualified(self, model: str) -> None:
        """Provenance names the provider and the model, or it is refused."""
        with pytest.raises(InvalidArgumentError, match="provider-qualified"):
            LangChainLlmProvider(ScriptedChatModel(replies=[]), model=model)

    def test_from_openai_compatible_builds_a_chat_openai_for_the_server(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """base_url and model reach ChatOpenAI; ``model`` is provider-qualified; no env key."""
        from langchain_openai import ChatOpenAI

        monkeypatch.setenv("OPENAI_API_KEY", "key-from-the-environment")
        provider = LangChainLlmProvider.from_openai_compatible(
            "http://127.0.0.1:11434/v1", "qwen3-8b", provider="ollama"
        )
        chat_model = provider.chat_model
        assert isinstance(chat_model, ChatOpenAI)
        assert chat_model.openai_api_base == "http://127.0.0.1:11434/v1"
        assert chat_model.model_name == "qwen3-8b"
        assert provider.model == "ollama/qwen3-8b"
        assert chat_model.max_retries == 0
        assert chat_model.openai_api_key is not None
        assert chat_model.openai_api_key.get_secret_value() != "key-from-the-environment"  # type: ignore[union-attr]

    def test_from_openai_compatible_passes_an_explicit_key(self) -> None:
        """A real key given by the caller is the one the client holds."""
        provider = LangChainLlmProvider.from_openai_compatible(
            "https://api.openai.com/v1", "gpt-4o-2024-08-06", provider="openai", api_key="sk-x"
        )
        assert provider.chat_model.openai_api_key.get_secret_value() == "sk-x"  # type: ignore[attr-defined]
        assert provider.model == "openai/gpt-4o-2024-08-06"

    @pytest.mark.parametrize("provider_name", ["", "  ", "ollama/local"])
    def test_from_openai_compatible_refuses_a_bad_provider_name(self, provider_name: str) -> None:
        """A blank provider, or one that would make the model string ambiguous, is refused."""
        with pytest.raises(InvalidArgumentError, match="provider"):
            LangChainLlmProvider.from_openai_compatible(
                "http://127.0.0.1:11434/v1", "qwen3-8b", provider=provider_name
            )

    def test_importing_the_adapter_loads_no_transport_library(self) -> None:
        """LangChain and openai load only when a provider is built, not on import."""
        probe = (
            "import sys, redstring.llm.adapters.langchain\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'langchain_core', 'langchain_openai', 'openai'}))"
        )
        result = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        )
        assert result.stdout.strip() == "[]"


class ScriptedServer:
    """An OpenAI-compatible endpoint on loopback: canned (status, body) replies, requests kept."""

    def __init__(self, replies: list[tuple[int, dict[str, Any]]]) -> None:
        self.replies = replies
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                server.requests.append(json.loads(self.rfile.read(length)))
                status, body = server.replies.pop(0)
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def completion(message: dict[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "qwen3-8b",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": message}],
    }


@pytest.fixture
def server_with() -> Iterator[Callable[..., ScriptedServer]]:
    started: list[ScriptedServer] = []

    def start(*replies: tuple[int, dict[str, Any]]) -> ScriptedServer:
        started.append(ScriptedServer(list(replies)))
        return started[-1]

    yield start
    for server in started:
        server.close()


class TestOverAnOpenAICompatibleServer:
    """The real ChatOpenAI and openai SDK against a loopback server: what the wire carries
    and what the SDK raises are checked, not assumed."""

    def provider(self, server: ScriptedServer) -> LangChainLlmProvider:
        return LangChainLlmProvider.from_openai_compatible(
            server.base_url, "qwen3-8b", provider="ollama", timeout=10.0
        )

    async def test_the_request_carries_the_schema_and_two_turns(
        self, server_with: Callable[..., ScriptedServer]
    ) -> None:
        """response_format, the system turn and the text reach the server as sent."""
        server = server_with((200, completion({"role": "assistant", "content": ADA})))
        found = await self.provider(server).extract("Ada.", People, system_prompt="List people.")
        assert found == People(people=["Ada Lovelace", "Charles Babbage"])
        [request] = server.requests
        assert request["model"] == "qwen3-8b"
        assert request["response_format"] == {
            "type": "json_schema",
            "json_schema": {
                "name": "People",
                "schema": People.model_json_schema(),
                "strict": False,
            },
        }
        assert request["messages"] == [
            {"role": "system", "content": "List people."},
            {"role": "user", "content": "Ada."},
        ]

    async def test_a_length_stop_from_the_server_is_an_empty_completion(
        self, server_with: Callable[..., ScriptedServer]
    ) -> None:
        """The SDK's parse path raises on finish_reason length; it arrives as ours."""
        reply = completion({"role": "assistant", "content": '{"people": ["Ada'}, "length")
        server = server_with((200, reply))
        with pytest.raises(EmptyCompletionError):
            await self.provider(server).extract("Ada.", People)

    async def test_a_refusal_from_the_server_is_a_refused_completion(
        self, server_with: Callable[..., ScriptedServer]
    ) -> None:
        """OpenAI's refusal field survives ChatOpenAI and is recognised."""
        reply = completion({"role": "assistant", "content": None, "refusal": "I can't do that."})
        server = server_with((200, reply))
        with pytest.raises(RefusedCompletionError, match="can't do that"):
            await self.provider(server).extract("Ada.", People)

    @pytest.mark.parametrize("status", [429, 503])
    async def test_a_throttled_or_failing_server_is_transient_and_not_retried(
        self, server_with: Callable[..., ScriptedServer], status: int
    ) -> None:
        """429 and 5xx are TransientLlmError after exactly one request (max_retries=0)."""
        server = server_with((status, {"error": {"message": "busy", "type": "server_error"}}))
        with pytest.raises(TransientLlmError):
            await self.provider(server).extract("Ada.", People)
        assert len(server.requests) == 1
