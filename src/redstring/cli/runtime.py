"""Settings to a running ``KnowledgeGraph``: the command's composition, done once.

The embedded default is PostgreSQL under the data directory (:mod:`redstring.cli.embedded`),
the offline MiniLM embedding model (``--embedding-model`` chooses another) and the offline
extractor. ``--llm-base-url`` swaps the
extractor for one model call per passage through the resilient provider; ``--postgres-dsn``,
``--neo4j-uri`` and ``--redis-url`` name other stores; ``--backend memory`` keeps everything
in this process. Optional parts are imported only when a command needs them, so a missing
extra fails that command with one line saying what to install.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from redstring.cli import embedded
from redstring.cli.errors import ConfigError, UnavailableError, UnknownTenantError
from redstring.cli.model_calls import CountedModel, ModelCalls, StopWhenDown
from redstring.cli.progress import CountingExtractor
from redstring.cli.settings import Settings
from redstring.composition.knowledge_graph import KnowledgeGraph
from redstring.composition.schema_files import load_schema
from redstring.domain.ids import tenant_id
from redstring.domain.schema import DEFAULT_SCHEMA, Schema
from redstring.ingest.service import IngestSettings
from redstring.ports.cache import Cache
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.extractor import Extractor
from redstring.ports.llm_provider import LlmProvider

__all__ = [
    "Runtime",
    "build_embeddings",
    "describe_extractor",
    "open_graph",
    "open_tenant",
    "require_tenant",
]

OFFLINE_EXTRACTOR = ("redstring.extraction.adapters.spacy", "SpacyExtractor")
SWITCH_TO_LLM = (
    "for model extraction pass --llm-base-url URL --llm-model NAME (Ollama: "
    "http://localhost:11434/v1), or set REDSTRING_LLM_BASE_URL / REDSTRING_LLM_MODEL"
)


@dataclass
class Runtime:
    """What a command holds while it runs: the graph and how it was built."""

    graph: KnowledgeGraph
    extractor: Extractor | None
    llm: LlmProvider | None
    where: str
    cache: Cache | None = None
    pool: Any = None
    """The PostgreSQL pool the stores share (``None`` on the memory backend)."""
    model_calls: ModelCalls | None = None
    """What this run asked of the model server (``None`` without one)."""
    schema: Schema = DEFAULT_SCHEMA
    counting: CountingExtractor | None = None

    def on_extractor_run(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after every extractor run (for progress by passage)."""
        if self.counting is not None:
            self.counting.hook.on_run = callback


def _load(module: str, name: str, purpose: str, hint: str = "") -> Any:
    """``module.name``, or :class:`UnavailableError` saying what is missing (and ``hint``)."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        suffix = f"; {hint}" if hint else ""
        raise UnavailableError(
            f"{purpose} is not available ({module}.{name}: {error}){suffix}"
        ) from error


def _llm_provider(settings: Settings, cache: Cache) -> tuple[LlmProvider, ModelCalls]:
    if not settings.llm_model:
        raise ConfigError(
            "--llm-base-url needs --llm-model (or REDSTRING_LLM_MODEL): the model name the "
            "server knows, e.g. qwen3:8b for Ollama or gpt-4o-mini for OpenAI"
        )
    assert settings.llm_base_url is not None
    try:
        from redstring.llm.adapters.langchain import LangChainLlmProvider
        from redstring.llm.resilience import (
            CircuitBreakerPolicy,
            ResilientLlmProvider,
            RetryPolicy,
        )

        inner = LangChainLlmProvider.from_openai_compatible(
            settings.llm_base_url,
            settings.llm_model,
            provider=provider_name(settings.llm_base_url),
            api_key=settings.llm_api_key,
            timeout=settings.llm_timeout,
        )
    except ImportError as error:
        raise UnavailableError(
            f"--llm-base-url needs the 'llm' extra (langchain-openai): {error}; install "
            "redstring[cli], which brings it"
        ) from error
    calls = ModelCalls(base_url=settings.llm_base_url, model=settings.llm_model)
    resilient = ResilientLlmProvider(
        CountedModel(inner, calls),
        cache,
        retry=RetryPolicy(attempts=3),
        circuit_breaker=CircuitBreakerPolicy(
            failures=5, within_seconds=60.0, cooldown_seconds=30.0
        ),
        timeout_seconds=settings.llm_timeout,
    )
    return StopWhenDown(resilient, calls), calls


def provider_name(base_url: str) -> str:
    """The provider part of the model's provenance, guessed from the server's address."""
    host = urlsplit(base_url).netloc.lower()
    if host.endswith("openai.com"):
        return "openai"
    if host.endswith(":11434"):
        return "ollama"
    if host.endswith(":8000"):
        return "vllm"
    return "openai-compatible"


def build_extractor(settings: Settings, llm: LlmProvider | None) -> Extractor:
    """The extractor the settings choose.

    ``extractor`` unset or ``auto``: the LLM extractor when a model server is configured,
    else the offline one; ``offline`` or ``llm`` force one; ``package.module:factory`` calls
    ``factory()`` from your own code (an adapter of the Extractor port).
    """
    choice = settings.extractor or "auto"
    if ":" in choice:
        module, _, name = choice.partition(":")
        factory = _load(module, name, purpose=f"the extractor {choice}")
        built = factory()
        if not isinstance(built, Extractor):
            raise ConfigError(
                f"--extractor {choice} returned {type(built).__name__}, which is not an "
                "Extractor (a `model` property and `async extract(text, schema)`)"
            )
        return built
    if choice not in {"auto", "offline", "llm"}:
        raise ConfigError(
            f"--extractor {choice!r} is not one of: auto, offline, llm, or package.module:factory"
        )
    if choice == "llm" and llm is None:
        raise ConfigError("--extractor llm needs --llm-base-url and --llm-model")
    if llm is not None and choice != "offline":
        from redstring.extraction.llm import LlmExtractor

        return LlmExtractor(llm)
    return offline_extractor()


def offline_extractor() -> Extractor:
    """A new offline extractor (picklable by name, for worker processes)."""
    cls = _load(
        *OFFLINE_EXTRACTOR,
        purpose="the offline extractor (the 'nlp' extra)",
        hint=SWITCH_TO_LLM,
    )
    offline: Extractor = cls()
    return offline


def is_offline(extractor: Extractor) -> bool:
    """True for the offline extractor the settings chose (not a model's, not a factory's)."""
    return type(extractor).__name__ == OFFLINE_EXTRACTOR[1] and (
        type(extractor).__module__.startswith(OFFLINE_EXTRACTOR[0])
    )


def describe_extractor(extractor: Extractor | None) -> str:
    """One line naming the extractor that ran, for summaries and ``demo``."""
    if extractor is None:
        return "no extractor"
    return f"{type(extractor).__name__} ({extractor.model})"


EMBEDDING_MODELS = ("minilm", "static")
"""The embedding models ``--embedding-model`` names (besides a file path or a factory)."""


def build_embeddings(settings: Settings) -> EmbeddingProvider:
    """The embedding model the settings choose (ADR 0047).

    ``embedding_model`` unset or ``minilm``: all-MiniLM-L6-v2 from its wheel; ``static``: the
    64-dimension static model (about fifty times faster to embed, much weaker); a path to
    MiniLM's ``model.onnx`` (its hash is checked); ``package.module:factory`` calls
    ``factory()`` from your own code (an adapter of the EmbeddingProvider port).
    """
    choice = settings.embedding_model or "minilm"
    if choice not in EMBEDDING_MODELS and ":" in choice and not Path(choice).exists():
        module, _, name = choice.partition(":")
        built = _load(module, name, purpose=f"the embedding model {choice}")()
        if not isinstance(built, EmbeddingProvider):
            raise ConfigError(
                f"--embedding-model {choice} returned {type(built).__name__}, which is not an "
                "EmbeddingProvider (model, dimension, async embed and embed_query)"
            )
        return built
    if choice not in EMBEDDING_MODELS and not choice.endswith(".onnx"):
        raise ConfigError(
            f"--embedding-model {choice!r} is not one of: {', '.join(EMBEDDING_MODELS)}, a "
            "path to MiniLM's model.onnx, or package.module:factory"
        )
    try:
        if choice == "static":
            from redstring.embeddings.adapters.local import LocalStaticEmbeddingProvider

            return LocalStaticEmbeddingProvider.bundled()
        from redstring.embeddings.adapters.onnx import OnnxEmbeddingProvider

        if choice == "minilm":
            return OnnxEmbeddingProvider.minilm()
        return OnnxEmbeddingProvider.minilm_from(Path(choice).expanduser())
    except ImportError as error:
        raise UnavailableError(
            f"the embedding model {choice!r} needs the 'embeddings' extra "
            f"(pip install 'redstring[embeddings]'): {error}"
        ) from error


def _neo4j_target(uri: str) -> tuple[str, tuple[str, str] | None]:
    """Split ``neo4j://user:password@host:7687`` into a URI without credentials and auth."""
    parts = urlsplit(uri)
    if parts.username is None:
        return uri, None
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    auth = (unquote(parts.username), unquote(parts.password or ""))
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)), auth


@asynccontextmanager
async def open_graph(
    settings: Settings, *, extract: bool = False, extract_processes: int = 0
) -> AsyncIterator[Runtime]:
    """The ``KnowledgeGraph`` the settings describe, closed (with every store) on exit.

    ``extract`` builds the extractor (only ``ingest``, ``demo`` and ``serve`` need one;
    building the offline pipeline costs about a second). ``extract_processes`` above 0 runs
    the offline extractor in that many worker processes (``serve``: the event loop never
    waits on a parse); a model server's extractor is I/O and stays in-process.
    """
    async with AsyncExitStack() as stack:
        pool: Any = None
        cache: Cache
        if settings.redis_url:
            from redstring.cache.adapters.redis import RedisCache

            cache = RedisCache.from_url(settings.redis_url)
            stack.push_async_callback(cache.close)
        else:
            from redstring.cache.adapters.memory import MemoryCache

            cache = MemoryCache()
        llm, calls = _llm_provider(settings, cache) if settings.llm_base_url else (None, None)
        extractor = build_extractor(settings, llm) if extract else None
        if extractor is not None and extract_processes > 0 and is_offline(extractor):
            from redstring.extraction.pool import ProcessPoolExtractor

            pooled = ProcessPoolExtractor(offline_extractor, processes=extract_processes)
            stack.push_async_callback(pooled.close)
            extractor = pooled
        counting = CountingExtractor(extractor) if extractor is not None else None
        embeddings = build_embeddings(settings)
        schema = load_schema(settings.schema) if settings.schema is not None else DEFAULT_SCHEMA
        options: dict[str, Any] = {
            "extractor": counting,
            "cache": cache,
            "llm": llm,
            "schema": schema,
            "settings": IngestSettings(
                chunk_chars=settings.chunk_chars,
                chunk_overlap=min(150, settings.chunk_chars // 8),
                max_document_chars=settings.max_document_chars,
            ),
        }
        if settings.backend == "memory":
            if settings.neo4j_uri:
                raise ConfigError("--neo4j-uri needs --backend postgres (the default)")
            graph = KnowledgeGraph.in_memory(embeddings=embeddings, **options)
            where = "memory (this process only; nothing is kept)"
        else:
            dsn = settings.postgres_dsn or embedded.start(
                settings.data_dir, idle_minutes=settings.db_idle_minutes
            )
            where = (
                f"embedded PostgreSQL in {embedded.pgdata_of(settings.data_dir)}"
                if settings.embedded
                else "PostgreSQL at " + _safe_dsn(dsn)
            )
            from redstring.postgres.pool import create_pool

            pool = await create_pool(dsn, min_size=1, max_size=10)
            stack.push_async_callback(pool.close)
            if settings.neo4j_uri:
                graph = await _with_neo4j(stack, pool, settings.neo4j_uri, embeddings, options)
                where += " + Neo4j graph"
            else:
                graph = await KnowledgeGraph.on_postgres(pool, embeddings=embeddings, **options)
        stack.push_async_callback(graph.close)
        yield Runtime(
            graph=graph,
            extractor=extractor,
            llm=llm,
            where=where,
            cache=cache,
            pool=pool if settings.backend != "memory" else None,
            model_calls=calls,
            schema=schema,
            counting=counting,
        )


async def _with_neo4j(
    stack: AsyncExitStack,
    pool: Any,
    neo4j_uri: str,
    embeddings: EmbeddingProvider,
    options: dict[str, Any],
) -> KnowledgeGraph:
    """The PostgreSQL stores of ``on_postgres`` with the graph in Neo4j instead."""
    from redstring.graph.adapters.neo4j import Neo4jGraphStore

    on_postgres = await KnowledgeGraph.on_postgres(pool, embeddings=embeddings, **options)
    stack.push_async_callback(on_postgres.close)
    uri, auth = _neo4j_target(neo4j_uri)
    graph_store = await Neo4jGraphStore.connect(uri, auth)
    stack.push_async_callback(graph_store.close)
    # Every store but the graph comes from on_postgres, so the two compositions cannot
    # drift apart.
    return KnowledgeGraph(
        graph=graph_store,
        vectors=on_postgres.vectors,
        chunks=on_postgres.chunks,
        events=on_postgres.events,
        passage_vectors=on_postgres.passage_vectors,
        retired_vectors=on_postgres.retired_vectors,
        embeddings=embeddings,
        **options,
    )


async def require_tenant(graph: KnowledgeGraph, tenant: str) -> None:
    """Raise :class:`UnknownTenantError` when ``tenant`` holds nothing, naming the tenants
    that do (and the one it most likely meant)."""
    tenant_id(tenant)  # an invalid name is its own error, first
    known = await graph.tenants()
    if tenant in known:
        return
    if not known:
        raise UnknownTenantError(
            f"tenant {tenant!r} holds nothing, and neither does any other here yet: "
            "ingest or import into it first (redstring ingest PATH --tenant NAME)"
        )
    near = [name for name in known if name.casefold() == tenant.casefold()]
    hint = f"; did you mean {near[0]!r}?" if near else ""
    shown = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
    raise UnknownTenantError(
        f"tenant {tenant!r} holds nothing (no such tenant, or it is empty){hint} Tenants "
        f"with data: {shown}"
    )


@asynccontextmanager
async def open_tenant(settings: Settings, tenant: str) -> AsyncIterator[Runtime]:
    """:func:`open_graph`, for a command that reads ``tenant``: one that holds nothing is
    :class:`UnknownTenantError` (exit 3) rather than an empty answer."""
    async with open_graph(settings) as runtime:
        await require_tenant(runtime.graph, tenant)
        yield runtime


def _safe_dsn(dsn: str) -> str:
    from redstring.cli.settings import mask

    return mask(dsn)
