"""Configuration: one validated settings model read from files and the environment.

Sources, highest precedence first: keyword arguments, `TOOLSCOUT_*` environment variables
(nested keys with `__`: `TOOLSCOUT_BACKENDS__DUCKDB__PATH`), `toolscout.toml`, then
`[tool.toolscout]` in `pyproject.toml`. The files are found as pytest and ruff find theirs:
in the nearest folder, from the working directory (or the directory given) up, that holds a
`toolscout.toml` or a `pyproject.toml` with a `[tool.toolscout]` table, stopping at the
repository root (a folder holding `.git`) or the filesystem root (`find_config_dir`). A bad
key or value raises `ConfigError` naming the key, the value and what is allowed.
`explain_settings` says where each effective setting came from (`toolscout config`).
"""

from __future__ import annotations

import difflib
import importlib
import json
import math
import os
import re
import sys
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from toolscout.errors import ConfigError
from toolscout.redaction import is_secret_name, may_be_secret_name, redact_value
from toolscout.types import MAX_RESULTS_LIMIT

__all__ = [
    "CONFIG_FILES",
    "DEFAULT_SYSTEM_MESSAGE_SUFFIX",
    "AutoSettings",
    "EvictionSettings",
    "Origin",
    "Settings",
    "explain_settings",
    "find_config_dir",
    "format_validation_error",
    "load_settings",
    "parse_duration",
]

ENV_PREFIX = "TOOLSCOUT_"

DEFAULT_SYSTEM_MESSAGE_SUFFIX = (
    "You have access to a tool_search tool. Most tools are not loaded yet: when you need a "
    "capability, call tool_search with a short description of it (or `select:name_a,name_b` "
    "for tools you know by name). The tools it finds become available on your next turn."
)

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(value: object) -> float:
    """Seconds from `30m`, `1h30m`, `45s`, `500ms`, `2d`, ISO `PT30M`, or a number."""
    if isinstance(value, bool):
        raise ValueError(
            f"expected a duration such as 30s, 30m, 1h30m or a number of seconds, got {value!r}"
        )
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        if text.startswith("pt"):
            text = text[2:]
        try:
            seconds = float(text)
        except ValueError:
            parts = _DURATION_PART.findall(text)
            if not parts or "".join(n + u for n, u in parts) != text:
                raise ValueError(
                    f"expected a duration such as 30s, 30m, 1h30m or 500ms, got {value!r}"
                ) from None
            seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    else:
        raise ValueError(f"expected a duration such as 30m, got {type(value).__name__}")
    if not (seconds > 0 and math.isfinite(seconds)):  # `not >` also catches NaN
        raise ValueError(f"a duration must be positive and finite, got {value!r}")
    return seconds


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EvictionSettings(_Strict):
    """When a session's index is dropped (evaluated lazily on each access).

    `lru` keeps the `lru_max_sessions` most recently used sessions; with `ttl` set as well,
    idle sessions also expire (both apply). `ttl` alone expires idle sessions only;
    `never` keeps everything until evicted by hand; `always` re-indexes on every access.
    """

    strategy: Literal["lru", "ttl", "never", "always"] = "lru"
    lru_max_sessions: int = Field(1000, ge=1)
    ttl: float | None = None

    @field_validator("ttl", mode="before")
    @classmethod
    def _ttl(cls, value: object) -> float | None:
        return None if value is None or value == "" else parse_duration(value)

    def model_post_init(self, _context: Any) -> None:
        if self.strategy == "ttl" and self.ttl is None:
            raise ValueError("strategy 'ttl' needs a ttl such as ttl = \"30m\"")


_OFF = {"", "none", "off", "false"}


class AutoSettings(_Strict):
    """Auto mode: tool search only above a threshold (`toolscout.auto.AutoThreshold`).

    With `enabled`, search turns on when there are more than `tools` searchable tools (every
    tool but the pinned ones) or their definitions take more than `tokens` tokens
    (o200k_base, as OpenAI function definitions); below both, every tool is sent as usual.
    `tools` or `tokens` set to `"off"` (or `false`) switches that criterion off; `enabled =
    false` turns search on whatever the tools.
    """

    enabled: bool = True
    tools: int | None = Field(30, ge=0)
    tokens: int | None = Field(10_000, ge=0)

    @field_validator("tools", "tokens", mode="before")
    @classmethod
    def _off(cls, value: object) -> object:
        if value is False or (isinstance(value, str) and value.strip().lower() in _OFF):
            return None
        if value is True:
            raise ValueError('expected a number, or "off" to switch this criterion off')
        return value


class Settings(BaseSettings):
    """Every toolscout setting. See docs/configuration.md for the reference."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        case_sensitive=False,
        extra="forbid",
        validate_default=True,
    )

    backend: str = "regex"
    """Name of the backend `load_index()` builds when no name is given. Not configured:
    regex, or the only backend installed when regex is not (`loading.chosen_backend`)."""
    max_results: int = Field(5, ge=1, le=MAX_RESULTS_LIMIT)
    """Results a search returns when the caller does not say."""
    max_results_limit: int = Field(20, ge=1, le=MAX_RESULTS_LIMIT)
    """Upper bound the advisor clamps a model's requested `max_results` to."""
    system_message_suffix: str = DEFAULT_SYSTEM_MESSAGE_SUFFIX
    """Appended to the system message so the model knows how to discover tools."""
    accumulate_references: bool = True
    """Keep tools discovered in earlier turns available (False: only the last turn's)."""
    session_id_key: str = Field("toolscout_session_id", min_length=1)
    """Key in the call context that carries the session id."""
    max_loaded_tools: int = Field(32, ge=1)
    """Discovered tools the advisor keeps loaded at once; the least recently used go first."""
    max_iterations: int = Field(10, ge=1)
    """Model calls per advisor run before the loop guard stops it with an error."""
    result_summaries: bool = True
    """tool_search answers with each tool's one-line summary (False: bare names)."""
    embedder: str | None = None
    """Embedder name for vector backends (None: the backend's default)."""
    cache_dir: str | None = None
    """toolscout's cache directory (vectors, built models); None: the user cache directory
    (`~/.cache/toolscout` on Linux); `off`: no vector cache on disk."""
    cache_max_mb: float | None = Field(None, gt=0)
    """Size bound of the vector cache on disk in MB (None: 512)."""
    eviction: EvictionSettings = Field(default_factory=lambda: EvictionSettings())
    auto: AutoSettings = Field(default_factory=lambda: AutoSettings())
    """Auto mode: tool search only when the tools exceed a threshold (`[auto]`)."""
    backends: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Options per backend, by backend name (`[tool.toolscout.backends.duckdb]`)."""
    embedders: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Options per embedder, by embedder name."""

    @field_validator("backends", "embedders", mode="before")
    @classmethod
    def _lower_names(cls, value: object) -> object:
        if not isinstance(value, Mapping):
            return value
        # Names are case-insensitive, and environment keys arrive lower-cased: merge
        # `[backends.DuckDB]` from a file with TOOLSCOUT_BACKENDS__DUCKDB__PATH instead of
        # letting one table replace the other.
        merged: dict[str, Any] = {}
        for key, options in value.items():
            name = str(key).lower()
            if isinstance(merged.get(name), Mapping) and isinstance(options, Mapping):
                merged[name] = {**merged[name], **options}
            else:
                merged[name] = options
        return merged

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        folder = find_config_dir(_config_dir.get() or Path.cwd())
        files = [] if folder is None else [folder / name for name in CONFIG_FILES]
        return (
            init_settings,
            env_settings,
            *(InitSettingsSource(settings_cls, read_config_file(path)) for path in files),
        )

    def backend_options(self, name: str) -> dict[str, Any]:
        return dict(self.backends.get(name.lower(), {}))

    def embedder_options(self, name: str) -> dict[str, Any]:
        return dict(self.embedders.get(name.lower(), {}))


# The directory the current `load_settings` call reads files from (None: the working dir).
_config_dir: ContextVar[Path | None] = ContextVar("toolscout_config_dir", default=None)


#: `TOOLSCOUT_*` variables that are not settings: read by the plugin registry, by
#: `toolscout bench` (where the evaluation data lives) and by the postgres backend's local
#: server (the user it runs as). Setting one must not break every other command.
NOT_SETTINGS = frozenset({"TOOLSCOUT_LOAD_PLUGINS", "TOOLSCOUT_EVAL_DATA", "TOOLSCOUT_PG_USER"})


def _check_environment(environ: Mapping[str, str]) -> None:
    known = {name.upper() for name in Settings.model_fields}
    for key, value in environ.items():
        if not key.upper().startswith(ENV_PREFIX) or key.upper() in NOT_SETTINGS:
            continue
        first = key[len(ENV_PREFIX) :].split("__", 1)[0].upper()
        if first not in known:
            allowed = sorted(ENV_PREFIX + k for k in known)
            close = difflib.get_close_matches(ENV_PREFIX + first, allowed, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            shown = _shown(key, value, unknown=True)
            raise ConfigError(
                f"unknown setting {key}={shown!r} in the environment{hint} "
                f"Allowed: {', '.join(allowed)} (nested keys with __)"
            )


def _allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The field names allowed at `loc` (walking into nested models)."""
    for part in loc:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            break
        model = annotation
    return list(model.model_fields)


def _shown(key: str, value: Any, *, unknown: bool = False) -> Any:
    """`value` as an error message may show it: a secret-named key's hidden (an `unknown`
    key's also when its name is close to a secret's: `pasword`), and no password or token
    of a URL or `password=...` pair in it (errors end up in logs)."""
    secret = may_be_secret_name(key) if unknown else is_secret_name(key)
    return _Hidden() if secret else redact_value(value)


def format_validation_error(error: ValidationError, what: str, model: type[BaseModel]) -> str:
    """One readable message per bad key: `what` names the model (e.g. 'toolscout setting').

    The value of a key that looks like a secret (`api_key`, `token`, ...) is not shown,
    nor a password or token inside any other value (a DSN's userinfo): error messages end
    up in logs.
    """
    lines = []
    for item in error.errors():
        key = ".".join(str(part) for part in item["loc"]) or "(root)"
        value: Any = _shown(key, item.get("input"))
        if item["type"] == "extra_forbidden":
            allowed = _allowed_keys(model, item["loc"][:-1])
            close = difflib.get_close_matches(str(item["loc"][-1]), allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            if close:  # the key meant: a misspelt `api_key` still holds the key
                value = _Hidden() if is_secret_name(close[0]) else value
            else:  # no key meant: may it still be a password (`pasword`)?
                value = _shown(str(item["loc"][-1]), item.get("input"), unknown=True)
            lines.append(
                f"unknown {what} {key!r} = {value!r}{hint}; allowed keys: {', '.join(allowed)}"
            )
        else:
            message = item["msg"].removeprefix("Value error, ")
            lines.append(f"invalid {what} {key!r} = {value!r}: {message}")
    return "; ".join(lines)


class _Hidden:
    def __repr__(self) -> str:
        return "'***'"


def settings_with(settings: Settings | None, overrides: Mapping[str, Any], what: str) -> Settings:
    """`settings` (None: `load_settings()`) with `overrides` on top, every value checked.

    The advisor and the framework integrations take settings plus keyword overrides; a bad
    override is a `ConfigError` naming it as a `what` (e.g. "advisor option").
    """
    if settings is None:
        return load_settings(**overrides)
    if not overrides:
        return settings
    try:
        # model_validate skips the settings sources: only the given values are checked.
        # Unset fields stay unset (defaults again), so a backend nobody configured is
        # still chosen as unconfigured (`loading.chosen_backend`).
        values = {**settings.model_dump(exclude_unset=True), **overrides}
        return type(settings).model_validate(values)
    except ValidationError as error:
        raise ConfigError(format_validation_error(error, what, type(settings))) from None


def load_settings(directory: str | Path | None = None, **overrides: Any) -> Settings:
    """Read and validate the configuration; `overrides` take precedence over every source."""
    _check_environment(os.environ)
    token = _config_dir.set(Path(directory) if directory is not None else None)
    try:
        return Settings(**overrides)
    except ValidationError as error:
        raise ConfigError(format_validation_error(error, "toolscout setting", Settings)) from None
    except SettingsError as error:  # a TOOLSCOUT_<TABLE> variable that is not JSON
        field = re.search(r'field "(\w+)"', str(error))
        name = ENV_PREFIX + (field.group(1).upper() if field else "...")
        value = next((v for k, v in os.environ.items() if k.upper() == name), "")
        raise ConfigError(
            f"invalid setting {name}={_shown(name, value)!r} in the environment: a table "
            f'must be JSON such as {name}=\'{{"key": "value"}}\', or set its keys one by '
            f"one as {name}__KEY=value"
        ) from None
    finally:
        _config_dir.reset(token)


#: The files that hold toolscout's settings, the first taking precedence, both read from
#: the one folder `find_config_dir` finds.
CONFIG_FILES = ("toolscout.toml", "pyproject.toml")


def find_config_dir(start: str | Path) -> Path | None:
    """The folder whose configuration files apply to `start`: the nearest one, from `start`
    up, holding a `toolscout.toml` or a `pyproject.toml` with a `[tool.toolscout]` table.

    As with ruff, a `pyproject.toml` without that table (a member package's, in a
    monorepo) is passed over. The search ends at the repository root (a folder holding
    `.git`, searched itself) or the filesystem root; None when no folder has one.
    """
    here = Path(os.path.abspath(start))
    for folder in (here, *here.parents):
        if (folder / CONFIG_FILES[0]).exists():
            return folder  # read_config_file reports a directory or a bad file by name
        if _config_table(folder / CONFIG_FILES[1]) is not None:
            return folder
        if (folder / ".git").exists():
            return None
    return None


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings table of a configuration file: all of `toolscout.toml`, or
    `[tool.toolscout]` of `pyproject.toml`; {} when the file does not exist.

    A file that cannot be read (a directory, not UTF-8, bad TOML, a number too long, a
    `tool` or `tool.toolscout` that is not a table) is a `ConfigError` naming the file,
    the key where there is one, and the fix. A UTF-8 byte-order mark is accepted.
    """
    return _config_table(path) or {}


def _config_table(path: Path) -> dict[str, Any] | None:
    """`read_config_file`, with None for a file that does not exist or a `pyproject.toml`
    without a `[tool.toolscout]` table."""
    if not path.exists():
        return None
    if path.is_dir():
        raise ConfigError(
            f"{path} is a directory; the toolscout configuration must be a TOML file: "
            "rename or remove the directory"
        )
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise ConfigError(f"cannot read the toolscout configuration {path}: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path} is not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset "
            f"{error.start}); save it as UTF-8"
        ) from None
    toml = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
    try:
        document: dict[str, Any] = toml.loads(text)
    except ValueError as error:  # TOMLDecodeError, or an integer too long to convert
        message = " ".join(str(error).split()) + "; fix the TOML syntax"
        if "integer string conversion" in message:
            from toolscout.catalog import too_long_number

            message = too_long_number(error)
        raise ConfigError(
            f"could not read the toolscout configuration in {path}: {message}"
        ) from None
    if path.name != "pyproject.toml":
        return document
    table: object = document
    for depth, key in enumerate(("tool", "toolscout")):
        if not isinstance(table, dict) or key not in table:
            return None
        table = table[key]
        if not isinstance(table, dict):
            name = ".".join(("tool", "toolscout")[: depth + 1])
            raise ConfigError(
                f"{path}: `{name}` must be a table (a [{name}] section), got "
                f"{type(table).__name__} {_clip(table)}; toolscout's settings go under "
                "[tool.toolscout]"
            )
    return table if isinstance(table, dict) else None


def _clip(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- where each setting came from (`toolscout config`) -----------------------------------


class Origin:
    """One effective setting: its dotted key, its value and where it came from."""

    __slots__ = ("key", "source", "value")

    def __init__(self, key: str, value: Any, source: str) -> None:
        self.key = key
        self.value = value
        #: A file's path (`/repo/pyproject.toml [tool.toolscout]`), an environment
        #: variable's name (`TOOLSCOUT_MAX_RESULTS`), or `default`.
        self.source = source

    def __repr__(self) -> str:
        return f"Origin({self.key!r}, {self.value!r}, {self.source!r})"


def _leaves(value: Any, prefix: tuple[str, ...]) -> dict[tuple[str, ...], Any]:
    """Every value under `value` by its key path (lower-cased); a mapping is walked into,
    an empty one is a value of its own."""
    if isinstance(value, Mapping) and value:
        found: dict[tuple[str, ...], Any] = {}
        for key, item in value.items():
            found.update(_leaves(item, (*prefix, str(key).lower())))
        return found
    return {prefix: value}


def _environment_leaves(environ: Mapping[str, str]) -> dict[tuple[str, ...], str]:
    """The key paths the `TOOLSCOUT_*` variables set, each with the variable's name (a
    variable holding a JSON table sets every key inside it)."""
    found: dict[tuple[str, ...], str] = {}
    for name, text in environ.items():
        if not name.upper().startswith(ENV_PREFIX) or name.upper() in NOT_SETTINGS:
            continue
        path = tuple(part.lower() for part in name[len(ENV_PREFIX) :].split("__"))
        value: Any = text
        if text.lstrip().startswith("{"):
            try:
                value = json.loads(text)
            except ValueError:
                value = text
        for key in _leaves(value, path):
            found[key] = name.upper()
    return found


def explain_settings(directory: str | Path | None = None) -> tuple[Settings, list[Origin]]:
    """The effective settings (as `load_settings(directory)` reads them) and, for each
    setting down to each backend's and embedder's option, its value and its source: the
    environment variable, the file, or `default`. Values are not redacted here."""
    settings = load_settings(directory)
    start = Path(directory) if directory is not None else Path.cwd()
    folder = find_config_dir(start)
    sources: list[tuple[dict[tuple[str, ...], Any], Any]] = [
        (_environment_leaves(os.environ), None)
    ]
    if folder is not None:
        for name in CONFIG_FILES:
            path = folder / name
            table = _config_table(path)
            if table is not None:
                where = f"{path} [tool.toolscout]" if name == "pyproject.toml" else str(path)
                sources.append((_leaves(table, ()), where))
    origins = []
    for key, value in _leaves(settings.model_dump(), ()).items():
        source = "default"
        for leaves, where in sources:
            if key in leaves:
                source = leaves[key] if where is None else where
                break
        origins.append(Origin(".".join(key), value, source))
    return settings, origins


def shown_value(key: str, value: Any) -> Any:
    """A setting's value as the command line may show it: a secret-named key's as `***`,
    and no password or token of a URL or `password=...` pair in any other."""
    name = key.rpartition(".")[2]
    secret = is_secret_name(name) and key not in NOT_SECRETS
    return "***" if secret else redact_value(value)


#: Settings whose names look secret but hold none (`session_id_key` names a context key).
NOT_SECRETS = frozenset({"session_id_key"})
