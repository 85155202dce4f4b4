"""Specification of configuration: sources, precedence, durations and error messages."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError
from toolscout import ConfigError
from toolscout.config import (
    DEFAULT_SYSTEM_MESSAGE_SUFFIX,
    format_validation_error,
    load_settings,
    parse_duration,
)


@pytest.fixture(autouse=True)
def clean_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run each test in an empty directory with no TOOLSCOUT_* variable set."""
    for key in list(os.environ):
        if key.upper().startswith("TOOLSCOUT_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def pyproject(text: str) -> None:
    Path("pyproject.toml").write_text('[project]\nname = "app"\n\n' + text, "utf-8")


def toolscout_toml(text: str) -> None:
    Path("toolscout.toml").write_text(text, "utf-8")


# --- defaults ----------------------------------------------------------------------------


def test_default_backend_is_regex() -> None:
    assert load_settings().backend == "regex"


def test_default_max_results_is_5() -> None:
    assert load_settings().max_results == 5


def test_default_eviction_is_lru_of_1000_sessions_without_ttl() -> None:
    eviction = load_settings().eviction
    assert (eviction.strategy, eviction.lru_max_sessions, eviction.ttl) == ("lru", 1000, None)


def test_default_spring_ai_style_options() -> None:
    settings = load_settings()
    assert settings.system_message_suffix == DEFAULT_SYSTEM_MESSAGE_SUFFIX
    assert "tool_search" in settings.system_message_suffix
    assert settings.accumulate_references is True
    assert settings.session_id_key == "toolscout_session_id"


def test_default_backend_tables_are_empty() -> None:
    settings = load_settings()
    assert settings.backends == {}
    assert settings.backend_options("duckdb") == {}


# --- sources -----------------------------------------------------------------------------


def test_reads_tool_toolscout_from_pyproject() -> None:
    pyproject(
        "[tool.toolscout]\n"
        'backend = "duckdb"\n'
        "max_results = 7\n"
        "[tool.toolscout.backends.duckdb]\n"
        'path = "tools.duckdb"\n'
        "[tool.toolscout.eviction]\n"
        "lru_max_sessions = 10\n"
        'ttl = "30m"\n'
    )
    settings = load_settings()
    assert settings.backend == "duckdb"
    assert settings.max_results == 7
    assert settings.backend_options("duckdb") == {"path": "tools.duckdb"}
    assert settings.eviction.lru_max_sessions == 10
    assert settings.eviction.ttl == 1800.0


def test_ignores_a_pyproject_without_a_toolscout_table() -> None:
    pyproject("[tool.ruff]\nline-length = 100\n")
    assert load_settings().backend == "regex"


def test_reads_toolscout_toml() -> None:
    toolscout_toml('backend = "tantivy"\nmax_results = 3\n[backends.tantivy]\nheap_mb = 64\n')
    settings = load_settings()
    assert (settings.backend, settings.max_results) == ("tantivy", 3)
    assert settings.backend_options("tantivy") == {"heap_mb": 64}


def test_reads_files_from_a_given_directory(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "toolscout.toml").write_text('backend = "lancedb"\n', "utf-8")
    assert load_settings().backend == "regex"
    assert load_settings(other).backend == "lancedb"


def test_reads_top_level_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_BACKEND", "duckdb")
    monkeypatch.setenv("TOOLSCOUT_MAX_RESULTS", "9")
    monkeypatch.setenv("TOOLSCOUT_ACCUMULATE_REFERENCES", "false")
    settings = load_settings()
    assert (settings.backend, settings.max_results) == ("duckdb", 9)
    assert settings.accumulate_references is False


def test_reads_backend_options_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_BACKENDS__DUCKDB__PATH", "env.duckdb")
    assert load_settings().backend_options("duckdb") == {"path": "env.duckdb"}


def test_reads_nested_eviction_settings_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLSCOUT_EVICTION__LRU_MAX_SESSIONS", "50")
    monkeypatch.setenv("TOOLSCOUT_EVICTION__TTL", "1h")
    eviction = load_settings().eviction
    assert (eviction.lru_max_sessions, eviction.ttl) == (50, 3600.0)


def test_environment_names_are_case_insensitive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("toolscout_backend", "duckdb")
    assert load_settings().backend == "duckdb"


def test_backend_names_are_case_insensitive() -> None:
    toolscout_toml("[backends.DuckDB]\nthreads = 2\n")
    settings = load_settings()
    assert settings.backend_options("duckdb") == {"threads": 2}
    assert settings.backend_options("DUCKDB") == {"threads": 2}


def test_backend_tables_from_several_sources_are_merged(monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject('[tool.toolscout.backends.duckdb]\npath = "file.duckdb"\nthreads = 1\n')
    toolscout_toml("[backends.DuckDB]\nthreads = 2\n")
    monkeypatch.setenv("TOOLSCOUT_BACKENDS__DUCKDB__READ_ONLY", "true")
    assert load_settings().backend_options("duckdb") == {
        "path": "file.duckdb",
        "threads": 2,
        "read_only": "true",
    }


# --- precedence: kwargs > env > toolscout.toml > pyproject -------------------------------


def test_toolscout_toml_overrides_pyproject() -> None:
    pyproject('[tool.toolscout]\nbackend = "duckdb"\nmax_results = 7\n')
    toolscout_toml('backend = "tantivy"\n')
    settings = load_settings()
    assert settings.backend == "tantivy"
    assert settings.max_results == 7  # untouched keys still come from pyproject


def test_environment_overrides_toolscout_toml(monkeypatch: pytest.MonkeyPatch) -> None:
    toolscout_toml('backend = "tantivy"\n[backends.duckdb]\npath = "file.duckdb"\n')
    monkeypatch.setenv("TOOLSCOUT_BACKEND", "lancedb")
    monkeypatch.setenv("TOOLSCOUT_BACKENDS__DUCKDB__PATH", "env.duckdb")
    settings = load_settings()
    assert settings.backend == "lancedb"
    assert settings.backend_options("duckdb") == {"path": "env.duckdb"}


def test_environment_overrides_pyproject(monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject("[tool.toolscout]\nmax_results = 7\n")
    monkeypatch.setenv("TOOLSCOUT_MAX_RESULTS", "8")
    assert load_settings().max_results == 8


def test_keyword_arguments_override_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject('[tool.toolscout]\nbackend = "duckdb"\n')
    toolscout_toml('backend = "tantivy"\n')
    monkeypatch.setenv("TOOLSCOUT_BACKEND", "lancedb")
    assert load_settings(backend="regex").backend == "regex"


def test_nested_keys_merge_across_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject('[tool.toolscout.eviction]\nlru_max_sessions = 10\nttl = "5m"\n')
    monkeypatch.setenv("TOOLSCOUT_EVICTION__TTL", "10m")
    eviction = load_settings().eviction
    assert (eviction.lru_max_sessions, eviction.ttl) == (10, 600.0)


# --- durations ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30m", 1800.0),
        ("1h30m", 5400.0),
        ("500ms", 0.5),
        ("45s", 45.0),
        ("2d", 172800.0),
        ("1.5h", 5400.0),
        ("PT30M", 1800.0),
        ("PT1H30M", 5400.0),
        (" 30m ", 1800.0),
        ("90", 90.0),
        (30, 30.0),
        (0.25, 0.25),
    ],
)
def test_durations_parse_to_seconds(text: str | float, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["30x", "m", "", "30 m", "1m30", "soon", "nan", "inf", "-inf"])
def test_bad_durations_are_rejected_with_the_value(text: str) -> None:
    with pytest.raises(ValueError, match=repr(text).replace(".", r"\.")):
        parse_duration(text)


@pytest.mark.parametrize("value", [0, -5, "0", "-5", "0s", math.nan])
def test_durations_must_be_positive(value: object) -> None:
    with pytest.raises(ValueError, match="positive"):
        parse_duration(value)


@pytest.mark.parametrize("value", [True, None, [30]])
def test_durations_of_the_wrong_type_are_rejected(value: object) -> None:
    with pytest.raises(ValueError, match="expected a duration"):
        parse_duration(value)


def test_ttl_setting_accepts_a_number_of_seconds() -> None:
    toolscout_toml("[eviction]\nttl = 90\n")
    assert load_settings().eviction.ttl == 90.0


# --- errors name the key, the value and what is allowed ----------------------------------


def test_unknown_key_names_it_and_lists_the_allowed_keys() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(max_resluts=3)
    message = str(caught.value)
    assert "'max_resluts' = 3" in message
    assert "did you mean 'max_results'?" in message
    assert "allowed keys: backend, max_results" in message


def test_unknown_key_in_a_file_is_an_error() -> None:
    pyproject('[tool.toolscout]\nbakend = "duckdb"\n')
    with pytest.raises(ConfigError, match=r"unknown toolscout setting 'bakend' = 'duckdb'"):
        load_settings()


def test_unknown_nested_key_names_the_full_key_and_the_allowed_nested_keys() -> None:
    toolscout_toml('[eviction]\nttll = "30m"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert "'eviction.ttll' = '30m'" in message
    assert "did you mean 'ttl'?" in message
    assert "allowed keys: strategy, lru_max_sessions, ttl" in message


def test_bad_value_names_the_key_value_and_bound() -> None:
    with pytest.raises(ConfigError, match=r"'max_results' = 0: .*greater than or equal to 1"):
        load_settings(max_results=0)


def test_max_results_above_the_limit_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"'max_results' = 20000: .*less than or equal to"):
        load_settings(max_results=20000)


def test_non_integer_value_from_the_environment_names_key_and_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLSCOUT_MAX_RESULTS", "many")
    with pytest.raises(ConfigError, match=r"'max_results' = 'many': .*valid integer"):
        load_settings()


def test_bad_nested_duration_names_the_key_value_and_examples() -> None:
    toolscout_toml('[eviction]\nttl = "30x"\n')
    with pytest.raises(ConfigError, match=r"'eviction.ttl' = '30x': expected a duration such as"):
        load_settings()


def test_bad_eviction_strategy_lists_the_allowed_strategies() -> None:
    toolscout_toml('[eviction]\nstrategy = "lfu"\n')
    with pytest.raises(
        ConfigError, match=r"'eviction.strategy' = 'lfu': .*'lru', 'ttl', 'never' or 'always'"
    ):
        load_settings()


def test_bad_nested_lru_size_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"'eviction.lru_max_sessions' = 0"):
        load_settings(eviction={"lru_max_sessions": 0})


def test_ttl_strategy_without_a_ttl_says_how_to_set_one() -> None:
    with pytest.raises(ConfigError, match=r"'eviction'.*needs a ttl such as ttl = \"30m\""):
        load_settings(eviction={"strategy": "ttl"})


def test_backend_table_that_is_not_a_table_names_the_key() -> None:
    toolscout_toml("backends = 3\n")
    with pytest.raises(ConfigError, match=r"'backends' = 3: .*dictionary"):
        load_settings()


def test_every_bad_key_is_reported_at_once() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(max_results=0, backend=3)
    assert "'max_results'" in str(caught.value)
    assert "'backend'" in str(caught.value)


def test_unknown_environment_variable_names_it_and_suggests_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLSCOUT_MAXRESULTS", "3")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert "TOOLSCOUT_MAXRESULTS='3'" in message
    assert "did you mean TOOLSCOUT_MAX_RESULTS?" in message
    assert "TOOLSCOUT_BACKENDS" in message


@pytest.mark.parametrize(
    "variable", ["TOOLSCOUT_LOAD_PLUGINS", "TOOLSCOUT_EVAL_DATA", "TOOLSCOUT_PG_USER"]
)
def test_variables_of_other_parts_are_not_settings_and_not_unknown_ones(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin registry's, the bench's and the postgres server's own variables: the
    settings leave them alone (the bench's data variable used to fail every index it built)."""
    monkeypatch.setenv(variable, "regex")
    assert load_settings().backend == "regex"


def test_unknown_nested_environment_variable_names_the_nested_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLSCOUT_EVICTION__TLL", "30m")
    with pytest.raises(ConfigError, match=r"'eviction.tll' = '30m' \(did you mean 'ttl'\?\)"):
        load_settings()


def test_malformed_toml_names_the_file() -> None:
    toolscout_toml("max_results = \n")
    with pytest.raises(ConfigError, match=r"toolscout configuration in .*toolscout\.toml: "):
        load_settings()


def test_malformed_pyproject_names_the_file() -> None:
    Path("pyproject.toml").write_text("[tool.toolscout\n", "utf-8")
    with pytest.raises(ConfigError, match=r"in .*pyproject\.toml: .*line 1"):
        load_settings()


def test_config_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        load_settings(max_results=0)


@pytest.mark.parametrize("variable", ["TOOLSCOUT_EVICTION", "toolscout_backends"])
def test_a_table_variable_that_is_not_json_names_it_and_shows_both_fixes(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "{not json")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    name = variable.upper()
    assert f"{name}='{{not json'" in message
    assert "must be JSON" in message
    assert f"{name}__KEY=value" in message


def test_a_table_variable_may_hold_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_EVICTION", '{"strategy": "never"}')
    assert load_settings().eviction.strategy == "never"


class _WithSecret(BaseModel):
    model_config = ConfigDict(extra="forbid")
    api_key: str | None = None
    retries: int = 0


@pytest.mark.parametrize(
    "options",
    [{"api_key": 12345}, {"api_ky": "sk-live-123"}, {"apikey": "sk-live-123"}],
    ids=["bad-type", "misspelt", "unknown-but-secret-looking"],
)
def test_errors_never_show_the_value_of_a_secret_looking_key(options: dict[str, Any]) -> None:
    try:
        _WithSecret.model_validate(options)
    except ValidationError as error:
        message = format_validation_error(error, "option", _WithSecret)
    else:
        pytest.fail("the options were accepted")
    assert "sk-live-123" not in message and "12345" not in message
    assert "api_k" in message and "'***'" in message


@pytest.mark.parametrize("key", ["pasword", "passwrd", "tokn", "secert", "db_pasword"])
def test_an_unknown_key_misspelling_a_secret_name_hides_its_value(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No allowed key is close (`_WithSecret` has no password), but the user meant one."""
    with pytest.raises(ValidationError) as caught:
        _WithSecret.model_validate({key: "hunter2-secret"})
    message = format_validation_error(caught.value, "option", _WithSecret)
    assert key in message and "hunter2" not in message and "'***'" in message
    monkeypatch.setenv(f"TOOLSCOUT_{key.upper()}", "hunter2-secret")
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert f"TOOLSCOUT_{key.upper()}" in str(raised.value) and "hunter2" not in str(raised.value)


def test_errors_show_the_value_of_an_ordinary_key() -> None:
    with pytest.raises(ValidationError) as caught:
        _WithSecret.model_validate({"retries": "many"})
    assert "'many'" in format_validation_error(caught.value, "option", _WithSecret)


# --- auto mode ---------------------------------------------------------------------------


def test_default_auto_mode_is_on_above_30_tools_or_10000_tokens() -> None:
    auto = load_settings().auto
    assert (auto.enabled, auto.tools, auto.tokens) == (True, 30, 10_000)


def test_auto_mode_from_a_file_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject("[tool.toolscout.auto]\ntools = 50\ntokens = 20000\n")
    assert (load_settings().auto.tools, load_settings().auto.tokens) == (50, 20_000)
    monkeypatch.setenv("TOOLSCOUT_AUTO__ENABLED", "false")
    monkeypatch.setenv("TOOLSCOUT_AUTO__TOKENS", "off")
    auto = load_settings().auto
    assert (auto.enabled, auto.tools, auto.tokens) == (False, 50, None)


@pytest.mark.parametrize("off", ["off", "none", "", False])
def test_an_auto_criterion_switches_off(off: object) -> None:
    assert load_settings(auto={"tools": off}).auto.tools is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (-1, "'auto.tools' = -1: .*greater than or equal to 0"),
        (True, "'auto.tools' = True: expected a number, or \"off\""),
        ("many", "'auto.tools' = 'many': .*valid integer"),
    ],
)
def test_bad_auto_values_name_the_key_and_value(value: object, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        load_settings(auto={"tools": value})


def test_a_token_count_is_not_taken_for_a_secret() -> None:
    with pytest.raises(ConfigError, match=r"'auto.tokens' = 1.5: .*integer"):
        load_settings(auto={"tokens": 1.5})
    with pytest.raises(ConfigError, match=r"'auto.tokns' = 3 \(did you mean 'tokens'\?\)"):
        load_settings(auto={"tokns": 3})


# --- files that cannot be read (issue 24: 10, 12, 16) --------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "got"),
    [
        ('[tool]\ntoolscout = "regex"\n', "tool.toolscout", "str 'regex'"),
        ("[tool]\ntoolscout = [1, 2]\n", "tool.toolscout", "list [1, 2]"),
        ('tool = "x"\n', "tool", "str 'x'"),
    ],
)
def test_a_pyproject_tool_table_that_is_not_a_table_names_the_file_and_key(
    text: str, key: str, got: str
) -> None:
    Path("pyproject.toml").write_text(text, "utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert str(Path.cwd() / "pyproject.toml") in message
    assert f"`{key}` must be a table" in message and got in message
    assert "[tool.toolscout]" in message


def test_a_toolscout_toml_that_is_a_directory_names_it() -> None:
    Path("toolscout.toml").mkdir()
    with pytest.raises(ConfigError, match=r"toolscout\.toml is a directory"):
        load_settings()


@pytest.mark.parametrize("name", ["toolscout.toml", "pyproject.toml"])
def test_a_config_file_that_is_not_utf8_names_the_file_and_the_byte(name: str) -> None:
    Path(name).write_bytes(b'backend = "\xff\xfe"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert str(Path.cwd() / name) in message and "not UTF-8" in message and "0xff" in message


def test_a_number_too_long_to_read_names_the_file() -> None:
    toolscout_toml(f"max_results = {'9' * 5000}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert str(Path.cwd() / "toolscout.toml") in message
    assert "a number of 5,000 digits" in message and "set_int_max_str_digits" not in message


@pytest.mark.parametrize("name", ["toolscout.toml", "pyproject.toml"])
def test_a_config_file_with_a_byte_order_mark_is_read(name: str) -> None:
    table = "[tool.toolscout]\n" if name == "pyproject.toml" else ""
    Path(name).write_bytes(b"\xef\xbb\xbf" + f'{table}backend = "duckdb"\n'.encode())
    assert load_settings().backend == "duckdb"


# --- where the files are found (issue 38, 13) ------------------------------------------------


def test_a_pyproject_one_level_up_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As pytest and ruff find theirs: the nearest configuration up from the working
    directory, not the working directory's only (it was silently ignored)."""
    pyproject("[tool.toolscout]\nmax_results = 7\n")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    assert load_settings().max_results == 7
    assert load_settings(tmp_path / "src").max_results == 7


def test_the_nearest_configuration_wins_and_both_its_files_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject("[tool.toolscout]\nmax_results = 7\nmax_iterations = 3\n")
    near = tmp_path / "app"
    near.mkdir()
    (near / "toolscout.toml").write_text("max_results = 9\n", "utf-8")
    (near / "pyproject.toml").write_text("[tool.toolscout]\nmax_loaded_tools = 4\n", "utf-8")
    monkeypatch.chdir(near)
    settings = load_settings()
    # The nearest folder's two files; the farther pyproject is not merged in.
    assert (settings.max_results, settings.max_loaded_tools) == (9, 4)
    assert settings.max_iterations == 10


def test_a_pyproject_without_a_toolscout_table_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member package's pyproject.toml in a monorepo does not hide the root's settings."""
    pyproject("[tool.toolscout]\nmax_results = 7\n")
    member = tmp_path / "packages" / "member"
    member.mkdir(parents=True)
    (member / "pyproject.toml").write_text('[project]\nname = "member"\n', "utf-8")
    monkeypatch.chdir(member)
    assert load_settings().max_results == 7


def test_the_search_stops_at_the_repository_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject("[tool.toolscout]\nmax_results = 7\n")  # outside the repository
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    assert load_settings().max_results == 5
    (repo / "toolscout.toml").write_text("max_results = 8\n", "utf-8")  # at the root: read
    assert load_settings().max_results == 8


def test_a_broken_file_on_the_way_up_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Path("toolscout.toml").write_text("max_results = \n", "utf-8")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    with pytest.raises(ConfigError, match=r"toolscout\.toml"):
        load_settings()


def test_explain_settings_names_the_source_of_each_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolscout.config import explain_settings, shown_value

    pyproject(
        "[tool.toolscout]\nmax_results = 7\n[tool.toolscout.backends.duckdb]\n"
        'path = "t.duckdb"\n[tool.toolscout.embedders.openai]\napi_key = "sk-x"\n'
    )
    Path("toolscout.toml").write_text("max_iterations = 4\n", "utf-8")
    monkeypatch.setenv("TOOLSCOUT_EVICTION__TTL", "30m")
    monkeypatch.setenv("TOOLSCOUT_AUTO", '{"tools": 12}')
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    settings, origins = explain_settings()
    sources = {o.key: o.source for o in origins}
    values = {o.key: o.value for o in origins}
    assert sources["max_results"] == f"{tmp_path / 'pyproject.toml'} [tool.toolscout]"
    assert sources["backends.duckdb.path"] == sources["max_results"]
    assert sources["max_iterations"] == str(tmp_path / "toolscout.toml")
    assert sources["eviction.ttl"] == "TOOLSCOUT_EVICTION__TTL"
    assert (sources["auto.tools"], values["auto.tools"]) == ("TOOLSCOUT_AUTO", 12)
    assert sources["auto.tokens"] == sources["backend"] == "default"
    assert values["eviction.ttl"] == settings.eviction.ttl == 1800.0
    assert shown_value("embedders.openai.api_key", values["embedders.openai.api_key"]) == "***"
    assert shown_value("session_id_key", "toolscout_session_id") == "toolscout_session_id"
