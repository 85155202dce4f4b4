"""Desktop MCP clients' config files: where each keeps its servers, and adding the gateway.

`toolscout mcp install CLIENT` writes the gateway's entry into the client's own file,
merged with what is there: every other server, and every other key, is kept as it was. The
formats and places are the ones each client documents:

- Claude Desktop: `claude_desktop_config.json` with an `mcpServers` object, in
  `~/Library/Application Support/Claude/` (macOS), `%APPDATA%\\Claude\\` (Windows) or
  `~/.config/Claude/` (Linux builds);
- Cursor: `mcp.json` with an `mcpServers` object, `~/.cursor/mcp.json` for every project or
  `.cursor/mcp.json` in a project;
- VS Code: `mcp.json` with a `servers` object whose stdio entries say `"type": "stdio"`
  (beside an optional `inputs` list), `.vscode/mcp.json` in a workspace or `mcp.json` in
  the user profile folder (`Code/User/`).

A file is replaced through a temporary file in its folder and a rename, so a failed write
leaves the original as it was; one that cannot be read as a JSON object is never touched.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolscout.errors import ConfigError

__all__ = [
    "CLIENTS",
    "Client",
    "config_path",
    "gateway_entry",
    "install",
    "snippet",
]


@dataclass(frozen=True)
class Client:
    """One MCP client: its name on the command line, the key its file keeps servers
    under, and the scopes it has (the first is the default)."""

    name: str
    title: str
    key: str
    scopes: tuple[str, ...]
    #: Keys every stdio entry carries in this client's format.
    stdio: Mapping[str, str]


CLIENTS: dict[str, Client] = {
    "claude-desktop": Client("claude-desktop", "Claude Desktop", "mcpServers", ("user",), {}),
    "cursor": Client("cursor", "Cursor", "mcpServers", ("user", "project"), {}),
    "vscode": Client("vscode", "VS Code", "servers", ("project", "user"), {"type": "stdio"}),
}

#: A server name every client accepts (VS Code's schema is the strictest).
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


def _app_data(platform: str, environ: Mapping[str, str], home: Path) -> Path:
    """The folder desktop apps keep their settings in, per platform."""
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform == "win32":
        return Path(environ.get("APPDATA") or home / "AppData" / "Roaming")
    return Path(environ.get("XDG_CONFIG_HOME") or home / ".config")


def config_path(
    client: Client,
    scope: str,
    *,
    cwd: Path,
    home: Path,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
) -> Path:
    """Where `client` keeps its servers in `scope` (`user` or `project`)."""
    if scope not in client.scopes:
        raise ConfigError(
            f"{client.title} has no {scope} configuration; use --scope "
            f"{' or '.join(client.scopes)}, or --path FILE"
        )
    if client.name == "claude-desktop":
        return _app_data(platform, environ, home) / "Claude" / "claude_desktop_config.json"
    if client.name == "cursor":
        return (home if scope == "user" else cwd) / ".cursor" / "mcp.json"
    if scope == "project":
        return cwd / ".vscode" / "mcp.json"
    return _app_data(platform, environ, home) / "Code" / "User" / "mcp.json"


def gateway_entry(client: Client, servers: Path, extra: Sequence[str] = ()) -> dict[str, Any]:
    """The client's entry that starts the gateway over stdio on `servers`.

    The command is this Python with `-m toolscout`: a desktop app does not start from the
    user's shell, so a `toolscout` on that shell's PATH (a virtualenv's) may not be on
    the app's; this interpreter is the one toolscout-mcp is installed in.
    """
    args = ["-m", "toolscout", "mcp", "serve", "--config", str(servers), *extra]
    return {**client.stdio, "command": sys.executable, "args": args}


def snippet(client: Client, name: str, entry: Mapping[str, Any]) -> str:
    """The entry as a piece of the client's file, to paste by hand."""
    return json.dumps({client.key: {name: entry}}, indent=2) + "\n"


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise ConfigError(
            f"--name {name!r} is not a server name the clients accept; use a letter then "
            "letters, digits, '_' or '-' (e.g. toolscout)"
        )
    return name


def _read(path: Path, client: Client) -> dict[str, Any]:
    """The client's file as a JSON object (`{}` when it does not exist or is blank)."""
    if path.is_dir():
        raise ConfigError(
            f"{path} is a directory, expected {client.title}'s JSON config file; move it "
            "aside or pass --path FILE"
        )
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise ConfigError(
            f"{path} is not UTF-8 text; fix or move it aside, or add the entry by hand "
            f"(toolscout mcp install {client.name} --print)"
        ) from None
    except PermissionError:
        raise ConfigError(
            f"cannot read {path} (permission denied); make it readable, or add the entry "
            f"by hand (toolscout mcp install {client.name} --print)"
        ) from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{path} is not valid JSON (line {error.lineno}, column {error.colno}: "
            f"{error.msg}; comments and trailing commas count); fix it, or add the entry by "
            f"hand (toolscout mcp install {client.name} --print); nothing was written"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path} holds a JSON {type(data).__name__}, expected an object with "
            f'"{client.key}"; fix it by hand; nothing was written'
        )
    servers = data.get(client.key)
    if servers is not None and not isinstance(servers, dict):
        raise ConfigError(
            f'{path}: "{client.key}" is a JSON {type(servers).__name__}, expected an object '
            "of servers by name; fix it by hand; nothing was written"
        )
    return data


def _writable(path: Path) -> None:
    """Refuse a file marked read-only even where the rename would get past it (the
    folder is writable, or the user is root): read-only is the owner's wish."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise ConfigError(
            f"{path} is read-only; make it writable (chmod u+w), or add the entry by hand "
            "(--print shows it); nothing was written"
        )


def _replace(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file beside it and a rename, keeping the
    original's permissions; a failure leaves the original as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        if path.exists():
            os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def install(client: Client, path: Path, name: str, entry: Mapping[str, Any]) -> tuple[bool, int]:
    """Put `entry` under `name` in the client's file at `path`, keeping everything else.

    Returns whether an entry of that name was replaced, and how many other servers the
    file keeps.
    """
    if path.is_symlink():  # a dotfiles link stays a link: its target is what changes
        path = path.resolve()
    data = _read(path, client)
    _writable(path)
    servers: dict[str, Any] = dict(data.get(client.key) or {})
    replaced = name in servers
    servers[name] = dict(entry)
    data[client.key] = servers
    try:
        _replace(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except PermissionError:
        raise ConfigError(
            f"cannot write {path} (permission denied in {path.parent}); make the folder "
            "writable, or add the entry by hand (--print shows it); nothing was written"
        ) from None
    return replaced, len(servers) - 1
