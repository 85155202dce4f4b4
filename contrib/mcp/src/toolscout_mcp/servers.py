"""The `mcpServers` configuration: which MCP servers to connect to, and how.

The format is the one Claude Desktop, Claude Code, Cursor and others share:

    {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
        "tracker": {"url": "https://tracker.example.com/mcp", "headers": {"Authorization": "..."}}
    }}

A server with `command` is started as a subprocess and spoken to over stdio; a server with
`url` is reached over streamable HTTP. toolscout adds optional keys per server:
`timeout` (seconds a tool call may take, default 60), `startupTimeout` (seconds to
connect and list tools, default 30), `alwaysLoad` and `defer` (how its tools are offered),
and `tags` and `toolTags` (for the principals' patterns, `toolscout_mcp.access`).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from toolscout.errors import ConfigError
from toolscout.redaction import (
    MASK,
    is_secret_name,
    redact_argv,
    redact_url,
    redact_value,
    url_secrets,
)

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_STARTUP_TIMEOUT",
    "ServerConfig",
    "load_servers",
    "parse_servers",
]

DEFAULT_CALL_TIMEOUT = 60.0
DEFAULT_STARTUP_TIMEOUT = 30.0

#: A server name becomes a tool-name prefix (`server__tool`), so it stays identifier-like,
#: and has no `__` and no trailing `_`, so `server__tool` splits one way only.
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
SEPARATOR = "__"


class ServerConfig(BaseModel):
    """One entry of `mcpServers`: a stdio command or a streamable HTTP URL."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    name: str
    type: Literal["stdio", "http", "streamable-http"] | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = None
    timeout: float = Field(DEFAULT_CALL_TIMEOUT, gt=0)
    startup_timeout: float = Field(DEFAULT_STARTUP_TIMEOUT, gt=0, alias="startupTimeout")
    disabled: bool = False
    #: Who may see the server's tools (`tag:NAME` in a principal's patterns), and which
    #: tools get more tags (`{"delete_*": ["destructive"]}`); see `toolscout_mcp.access`.
    tags: list[str] = Field(default_factory=list)
    tool_tags: dict[str, list[str]] = Field(default_factory=dict, alias="toolTags")
    #: `true` or tool globs: listed in every client's tools/list up front, never deferred.
    always_load: bool | list[str] = Field(False, alias="alwaysLoad")
    #: `true` or tool globs: found by search only, called through call_tool, never listed.
    defer: bool | list[str] = False

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if self.command is None and self.url is None:
            raise ValueError('needs "command" (a stdio server) or "url" (a streamable HTTP server)')
        if self.command is not None and self.url is not None:
            raise ValueError('has both "command" and "url"; keep one')
        if self.type == "stdio" and self.command is None:
            raise ValueError('is "type": "stdio" but has no "command"')
        if self.type in ("http", "streamable-http") and self.url is None:
            raise ValueError(f'is "type": "{self.type}" but has no "url"')
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(
                f'has "url" {redact_url(self.url)!r}; expected an http:// or https:// URL'
            )
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"

    def describe(self) -> str:
        """How the server is reached, for log lines: its program's name, or its URL with
        neither credentials nor query values. Never shown to clients (they get the server's
        name), and no path, argument or environment value: any of them may be a secret."""
        if self.command is not None:
            return f"command {PurePath(self.command).name!r}"
        return redact_url(str(self.url))

    def secrets(self) -> list[str]:
        """Every value of this entry that may be a secret, as written, to blank wherever a
        message (an exception's, the server's own stderr) quotes it: environment and header
        values, the URL's credentials and query values, secret arguments (`--token X`,
        `--api-key=X`, `API_KEY=X`), and the paths (command, `cwd`)."""
        found: list[str] = [*(self.env or {}).values()]
        for value in (self.headers or {}).values():
            found.append(value)
            found.extend(value.split()[1:])  # the credentials of "Bearer X"
        if self.url is not None:
            found.extend(url_secrets(self.url))
        shown = redact_argv(self.args)
        for written, redacted in zip(self.args, shown, strict=True):
            if written != redacted:
                found.append(written.partition("=")[2] if "=" in redacted else written)
                found.extend(url_secrets(written))
        if self.command is not None and ("/" in self.command or "\\" in self.command):
            found.append(self.command)
        if self.cwd:
            found.append(self.cwd)
        return [secret for secret in dict.fromkeys(found) if secret]


_KEYS = sorted(
    field.alias or name for name, field in ServerConfig.model_fields.items() if name != "name"
)


def parse_servers(data: object, source: str = "the configuration") -> list[ServerConfig]:
    """The enabled servers of a parsed `{"mcpServers": {...}}` document, in file order."""
    if not isinstance(data, Mapping):
        raise ConfigError(f'{source} must be a JSON object with an "mcpServers" object')
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, Mapping):
        raise ConfigError(
            f'{source} has no "mcpServers" object; expected '
            '{"mcpServers": {"NAME": {"command": ..., "args": [...]}}}'
        )
    parsed: list[ServerConfig] = []
    for name, entry in servers.items():
        if not isinstance(name, str) or not _SERVER_NAME.match(name):
            raise ConfigError(
                f"{source}: server name {name!r} must use only letters, digits, '_', '-' and "
                "'.', because it prefixes tool names (server__tool)"
            )
        if SEPARATOR in name or name.endswith("_"):
            raise ConfigError(
                f"{source}: server name {name!r} must not contain '__' or end with '_': it "
                "prefixes tool names as server__tool, and each such name must point to one "
                f"server; rename it (e.g. {name.replace(SEPARATOR, '-').rstrip('_') or 'server'!r})"
            )
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{source}: server {name!r} must be a JSON object")
        try:
            config = ServerConfig.model_validate({**entry, "name": name})
        except ValidationError as error:
            raise ConfigError(_explain(error, name, source)) from None
        if not config.disabled:
            parsed.append(config)
    return parsed


def _explain(error: ValidationError, name: str, source: str) -> str:
    problems = []
    for item in error.errors():
        key = ".".join(str(part) for part in item["loc"])
        if item["type"] == "extra_forbidden":
            close = difflib.get_close_matches(key, _KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(f"unknown key {key!r}{hint}; allowed keys: {', '.join(_KEYS)}")
        elif key:
            shown = redact_value(item.get("input"))
            if key.startswith(("env", "headers")) or is_secret_name(key):
                shown = MASK  # the values of these may all be secrets
            problems.append(f"{key}: {item['msg']} (got {shown!r})")
        else:
            problems.append(str(item["msg"]).removeprefix("Value error, "))
    return f"{source}: server {name!r} " + "; ".join(problems)


def load_servers(path: str | Path) -> list[ServerConfig]:
    """Read a `mcpServers` JSON file (Claude Desktop's `claude_desktop_config.json` works)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(f"MCP server configuration {path} does not exist") from None
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{path} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    return parse_servers(data, str(path))
