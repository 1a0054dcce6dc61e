"""Settings come from flags, then REDSTRING_* variables, then the TOML file; secrets are masked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redstring.cli.errors import ConfigError
from redstring.cli.settings import mask, resolve
from tests.unit.cli.conftest import RunCli


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(text)
    return path


def test_a_flag_beats_the_environment_which_beats_the_file(tmp_path: Path) -> None:
    """Each setting is taken from the first place that sets it, and says where."""
    config = _file(
        tmp_path,
        'llm_model = "from-file"\nllm_base_url = "http://file/v1"\nredis_url = "redis://f"\n',
    )
    settings = resolve(
        {"llm_model": "from-flag"},
        environ={"REDSTRING_LLM_MODEL": "from-env", "REDSTRING_LLM_BASE_URL": "http://env/v1"},
        config_file=config,
    )
    assert settings.llm_model == "from-flag"
    assert settings.llm_base_url == "http://env/v1"
    assert settings.redis_url == "redis://f"
    assert settings.origins["llm_model"] == "flag"
    assert settings.origins["llm_base_url"] == "env REDSTRING_LLM_BASE_URL"
    assert settings.origins["redis_url"] == f"file {config}"
    assert settings.origins["neo4j_uri"] == "default"


def test_no_configuration_means_the_embedded_default(tmp_path: Path) -> None:
    """Nothing set: PostgreSQL, embedded, under the data directory."""
    settings = resolve({}, environ={}, config_file=_file(tmp_path, ""))
    assert settings.backend == "postgres"
    assert settings.embedded
    assert settings.postgres_dsn is None


def test_the_config_file_may_be_named_by_the_environment(tmp_path: Path) -> None:
    """REDSTRING_CONFIG names the file when --config does not."""
    config = _file(tmp_path, 'backend = "memory"\n')
    settings = resolve({}, environ={"REDSTRING_CONFIG": str(config)})
    assert settings.backend == "memory"
    assert settings.config_file == config


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('colour = "red"\n', r"unknown key\(s\) colour"),
        ("backend = 3\n", "backend must be a string"),
        ("backend = \n", "not readable TOML"),
        ('backend = "sqlite"\n', "backend 'sqlite'"),
    ],
)
def test_a_bad_config_file_is_named_with_its_problem(
    tmp_path: Path, text: str, expected: str
) -> None:
    """Unknown keys, wrong kinds, broken TOML and unknown backends are refused by name."""
    config = _file(tmp_path, text)
    with pytest.raises(ConfigError, match=expected):
        resolve({}, environ={}, config_file=config)


def test_a_named_config_file_must_exist(tmp_path: Path) -> None:
    """An explicitly named file that is missing is an error, not a silent default."""
    with pytest.raises(ConfigError, match="does not exist"):
        resolve({}, environ={}, config_file=tmp_path / "missing.toml")


def test_memory_and_a_postgres_dsn_contradict_each_other(tmp_path: Path) -> None:
    """Both at once would leave one silently ignored."""
    with pytest.raises(ConfigError, match="choose one"):
        resolve(
            {"backend": "memory", "postgres_dsn": "postgresql://x"},
            environ={},
            config_file=_file(tmp_path, ""),
        )


def test_mask_hides_passwords_and_keys() -> None:
    """A URL keeps its scheme and host; a key keeps its last four characters."""
    assert (
        mask("postgresql://user:hunter2@db.example:5432/x") == "postgresql://***@db.example:5432/…"
    )
    assert "hunter2" not in mask("redis://:hunter2@cache:6379/0")
    assert mask("sk-abcdefghijkl") == "****ijkl"
    assert mask("short") == "****"


def test_config_prints_effective_settings_with_secrets_masked(run_cli: RunCli) -> None:
    """`redstring config` shows values and origins, never a secret in full."""
    result = run_cli(
        "config",
        "--json",
        postgres_dsn="postgresql://me:hunter2@db.example/graph",
        env={"REDSTRING_LLM_API_KEY": "sk-supersecretvalue"},
    )
    assert result.exit_code == 0, result
    assert "hunter2" not in result.stdout
    assert "supersecretvalue" not in result.stdout
    shown = json.loads(result.stdout)
    assert shown["settings"]["llm_api_key"] == "****alue"
    assert shown["origins"]["llm_api_key"] == "env REDSTRING_LLM_API_KEY"
    assert shown["origins"]["postgres_dsn"] == "flag"


def test_a_bad_setting_fails_with_one_line_and_exit_1(run_cli: RunCli) -> None:
    """Configuration errors are exit 1 with a single line on stderr."""
    result = run_cli("stats", backend="sqlite")
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == ["error: backend 'sqlite' (from flag) is not one of: postgres, memory"]
