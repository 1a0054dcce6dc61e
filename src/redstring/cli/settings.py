"""Where the command's settings come from: flags, then ``REDSTRING_*`` variables, then a file.

Every setting has one name, used three ways: ``--postgres-dsn`` on the command line,
``REDSTRING_POSTGRES_DSN`` in the environment and ``postgres_dsn`` in the TOML config file
(``config.toml`` in the platformdirs user config directory, or the file named by
``--config`` / ``REDSTRING_CONFIG``). The first that is set wins. The library itself never
reads any of them: this module turns them into explicit arguments.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

import platformdirs

from redstring.cli.errors import ConfigError

Backend = Literal["postgres", "memory"]
BACKENDS: tuple[str, ...] = get_args(Backend)

APP_NAME = "redstring"
ENV_PREFIX = "REDSTRING_"

# name -> is it a secret (masked when printed)
SETTING_NAMES: dict[str, bool] = {
    "backend": False,
    "postgres_dsn": True,
    "neo4j_uri": True,
    "redis_url": True,
    "llm_base_url": False,
    "llm_model": False,
    "llm_api_key": True,
    "llm_timeout": False,
    "data_dir": False,
    "extractor": False,
    "embedding_model": False,
    "schema": False,
    "chunk_chars": False,
    "max_document_chars": False,
    "db_idle_minutes": False,
}
# The settings that are numbers: name -> (type, smallest allowed value, default).
NUMBERS: dict[str, tuple[type[int] | type[float], float, float]] = {
    "llm_timeout": (float, 0.1, 120.0),
    "chunk_chars": (int, 100, 1200),
    "max_document_chars": (int, 1, 10_000_000),
    "db_idle_minutes": (float, 0, 30.0),
}


def default_config_file() -> Path:
    """``config.toml`` in the platformdirs user config directory (may not exist)."""
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_data_dir() -> Path:
    """The platformdirs user data directory: the embedded PostgreSQL lives beneath it."""
    return Path(platformdirs.user_data_dir(APP_NAME))


@dataclass(frozen=True)
class Settings:
    """The effective settings of one command, each with where it came from.

    ``backend`` is ``postgres`` (the default: the embedded server under ``data_dir`` unless
    ``postgres_dsn`` names one) or ``memory`` (in-process; nothing persists). ``schema`` is a
    schema file for ``ingest`` (None: the built-in schema); ``chunk_chars`` and
    ``max_document_chars`` size passages and refuse larger documents; ``llm_timeout`` bounds
    one model call; ``db_idle_minutes`` stops the embedded PostgreSQL after that long without
    a command (0: never).
    """

    backend: Backend = "postgres"
    postgres_dsn: str | None = None
    neo4j_uri: str | None = None
    redis_url: str | None = None
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    data_dir: Path = field(default_factory=default_data_dir)
    extractor: str | None = None
    llm_timeout: float = 120.0
    schema: Path | None = None
    chunk_chars: int = 1200
    max_document_chars: int = 10_000_000
    db_idle_minutes: float = 30.0
    embedding_model: str | None = None
    config_file: Path = field(default_factory=default_config_file)
    origins: Mapping[str, str] = field(default_factory=dict)

    @property
    def embedded(self) -> bool:
        """True when the command runs its own PostgreSQL under ``data_dir``."""
        return self.backend == "postgres" and self.postgres_dsn is None

    def masked(self) -> dict[str, str | None]:
        """Every setting as text, secrets reduced to a hint, for ``redstring config``."""
        shown: dict[str, str | None] = {}
        for name, secret in SETTING_NAMES.items():
            value = getattr(self, name)
            text = None if value is None else str(value)
            shown[name] = mask(text) if secret and text is not None else text
        shown["config_file"] = str(self.config_file)
        return shown


def mask(value: str) -> str:
    """Hide a secret: the URL scheme and host stay visible (without any password), a bare
    key shows only its last four characters."""
    if "://" in value:
        scheme, rest = value.split("://", 1)
        host = rest.rsplit("@", 1)[-1].split("/", 1)[0].split("?", 1)[0]
        return f"{scheme}://***@{host}/…" if host else f"{scheme}://***"
    return "****" + value[-4:] if len(value) > 8 else "****"


def resolve(
    flags: Mapping[str, object | None],
    environ: Mapping[str, str] | None = None,
    config_file: Path | None = None,
) -> Settings:
    """Settings from ``flags`` (None = not given), then the environment, then the file.

    Raises :class:`ConfigError` naming the file and key for an unreadable file, an unknown
    key or a value of the wrong kind, and for a backend that is not ``postgres`` or ``memory``.
    """
    env = os.environ if environ is None else environ
    path = config_file or _env_path(env, "CONFIG") or default_config_file()
    from_file = _read_file(path, explicit=config_file is not None or "REDSTRING_CONFIG" in env)
    values: dict[str, object] = {}
    origins: dict[str, str] = {}
    for name in SETTING_NAMES:
        flag = flags.get(name)
        env_value = env.get(ENV_PREFIX + name.upper())
        if flag is not None:
            values[name], origins[name] = flag, "flag"
        elif env_value:
            values[name], origins[name] = env_value, f"env {ENV_PREFIX}{name.upper()}"
        elif name in from_file:
            values[name], origins[name] = from_file[name], f"file {path}"
        else:
            origins[name] = "default"
    backend = str(values.get("backend", "postgres"))
    if backend not in BACKENDS:
        raise ConfigError(
            f"backend {backend!r} (from {origins['backend']}) is not one of: {', '.join(BACKENDS)}"
        )
    if backend == "memory" and values.get("postgres_dsn") is not None:
        raise ConfigError("--postgres-dsn was given with --backend memory: choose one")
    data_dir = values.get("data_dir")
    numbers = {name: _number(name, values.get(name), origins[name]) for name in NUMBERS}
    schema = values.get("schema")
    return Settings(
        backend=backend,  # type: ignore[arg-type]  # checked against BACKENDS above
        postgres_dsn=_text(values.get("postgres_dsn")),
        neo4j_uri=_text(values.get("neo4j_uri")),
        redis_url=_text(values.get("redis_url")),
        llm_base_url=_text(values.get("llm_base_url")),
        llm_model=_text(values.get("llm_model")),
        llm_api_key=_text(values.get("llm_api_key")),
        data_dir=Path(str(data_dir)).expanduser() if data_dir else default_data_dir(),
        extractor=_text(values.get("extractor")),
        schema=Path(str(schema)).expanduser() if schema else None,
        llm_timeout=float(numbers["llm_timeout"]),
        chunk_chars=int(numbers["chunk_chars"]),
        max_document_chars=int(numbers["max_document_chars"]),
        db_idle_minutes=float(numbers["db_idle_minutes"]),
        embedding_model=_text(values.get("embedding_model")),
        config_file=path,
        origins=origins,
    )


def _number(name: str, value: object, origin: str) -> float:
    """The number a setting holds (its default when unset); ConfigError naming it otherwise."""
    kind, smallest, default = NUMBERS[name]
    if value is None:
        return default
    number: float | None = None
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        try:
            number = kind(value)
        except ValueError:
            number = None
    if number is None or number < smallest:
        wanted = "a whole number" if kind is int else "a number"
        raise ConfigError(
            f"{name} {value!r} (from {origin}) is not {wanted} of at least {smallest:g}"
        )
    return number


def _env_path(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(ENV_PREFIX + name)
    return Path(value).expanduser() if value else None


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _read_file(path: Path, *, explicit: bool) -> dict[str, object]:
    if not path.is_file():
        if explicit:
            raise ConfigError(f"config file {path} does not exist")
        return {}
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"config file {path} is not readable TOML: {error}") from error
    unknown = sorted(set(data) - set(SETTING_NAMES))
    if unknown:
        raise ConfigError(
            f"config file {path}: unknown key(s) {', '.join(unknown)}; "
            f"valid keys: {', '.join(SETTING_NAMES)}"
        )
    for key, value in data.items():
        if key in NUMBERS:
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                raise ConfigError(f"config file {path}: {key} must be a number, got {value!r}")
        elif not isinstance(value, str):
            raise ConfigError(f"config file {path}: {key} must be a string, got {value!r}")
    return dict(data)


WORKER_VARIABLE = ENV_PREFIX + "SERVE_WORKER"
"""How ``redstring serve --workers N`` hands its effective settings to each worker process."""


def hand_to_workers(settings: Settings, options: Mapping[str, object]) -> None:
    """Put the settings and server ``options`` where each worker process reads them back."""
    values = {name: getattr(settings, name) for name in SETTING_NAMES}
    values["data_dir"] = str(settings.data_dir)
    values["schema"] = None if settings.schema is None else str(settings.schema)
    os.environ[WORKER_VARIABLE] = json.dumps({"settings": values, "options": dict(options)})


def from_worker_environment() -> tuple[Settings, dict[str, object]]:
    """What :func:`hand_to_workers` wrote, read back in a worker process."""
    raw = os.environ.get(WORKER_VARIABLE)
    if not raw:
        raise ConfigError(f"{WORKER_VARIABLE} is not set: start workers with `redstring serve`")
    data = json.loads(raw)
    values = data["settings"]
    return (
        Settings(
            **{name: values[name] for name in SETTING_NAMES if name not in {"data_dir", "schema"}},
            data_dir=Path(values["data_dir"]),
            schema=None if values["schema"] is None else Path(values["schema"]),
            origins={"all": "the serving parent process"},
        ),
        dict(data["options"]),
    )
