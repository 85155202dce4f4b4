"""Who sees which tools: principals, their bearer tokens, and what each may see and call.

The servers file may name principals beside its servers:

    {"mcpServers": {...},
     "principals": {
        "dev":     {"tokenEnv": "GATEWAY_TOKEN_DEV", "allow": ["*"], "deny": ["tag:destructive"]},
        "support": {"tokenSha256": "9f86d0...", "allow": ["tracker/search_*", "tag:support"]}}}

A principal's token is read from the environment variable `tokenEnv` at start-up, or given
as the hex SHA-256 of the token (`tokenSha256`), so the file itself holds no secret. Each
`allow` and `deny` pattern is one of:

- `SERVER`: every tool of the servers matching the glob (`github`, `*`);
- `SERVER/TOOL`: the tools matching the tool glob (the server's own name for the tool) on
  the servers matching the server glob (`tracker/search_*`, `*/list_*`);
- `tag:TAG`: the tools carrying the tag: the server's `tags`, the tool's `toolTags`, and
  `read-only` / `destructive` from the tool's MCP annotations (`readOnlyHint`,
  `destructiveHint`) when the server states them.

A principal sees a tool when some `allow` pattern matches it and no `deny` pattern does;
what it does not see, it cannot find, list, call, or learn of from an error message.

Globs are `fnmatch`'s, case-sensitive: `*` any run of characters, `?` one character,
`[abc]` one of the characters, `[!abc]` any other. A glob that is exactly a name matches
that name first, whatever it holds: `pub/get[1]` denies the tool `get[1]` (and, as a glob,
`get1`), so a deny pattern copied from a tool's name never fails open.
"""

from __future__ import annotations

import fnmatch
import hashlib
import hmac
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import mcp.types as types
from toolscout.analysis import Analyzer
from toolscout.errors import ConfigError
from toolscout.unmatched import Vocabulary

if TYPE_CHECKING:
    from toolscout_mcp.hub import HubTool, McpToolHub
    from toolscout_mcp.servers import ServerConfig

__all__ = [
    "MIN_AUTH_TOKEN_LENGTH",
    "AccessPolicy",
    "Grant",
    "LoadMode",
    "Principal",
    "check_auth_token",
    "load_mode",
    "parse_access",
    "read_access",
    "tool_tags",
]

LoadMode = Literal["always", "defer", "found"]

_PRINCIPAL_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
_PRINCIPAL_KEYS = ("allow", "deny", "tokenEnv", "tokenSha256")


def _glob(pattern: str, name: str) -> bool:
    """Whether `name` matches the glob `pattern`; a pattern that spells the name exactly
    matches it before glob semantics (`get[1]` matches the tool `get[1]`, not only `get1`)."""
    return pattern == name or fnmatch.fnmatchcase(name, pattern)


def _matches_any(patterns: Iterable[str], name: str) -> bool:
    return any(_glob(pattern, name) for pattern in patterns)


def configured_tags(config: ServerConfig, name: str) -> set[str]:
    """The tags the servers file gives the tool `name` (the server's own name for it):
    the server's `tags` and the `toolTags` whose glob matches it."""
    tags = set(config.tags)
    for pattern, extra in config.tool_tags.items():
        if _glob(pattern, name):
            tags.update(extra)
    return tags


def tool_tags(config: ServerConfig, tool: types.Tool) -> frozenset[str]:
    """The tags a tool carries: its server's, its `toolTags`, and its MCP annotations'."""
    tags = configured_tags(config, tool.name)
    hints = tool.annotations
    if hints is not None:
        if hints.read_only_hint is True:
            tags.add("read-only")
        if hints.destructive_hint is True:
            tags.add("destructive")
    return frozenset(tags)


def load_mode(config: ServerConfig, tool: str) -> LoadMode:
    """How the gateway offers `tool` (its server's own name for it).

    `always`: in every client's `tools/list` from the start; `defer`: found by search only,
    called through `call_tool`, never listed; `found`: listed once a search found it, in
    progressive mode. A tool's own entry (a glob in the list) wins over the server's
    `true`, and `defer` over `alwaysLoad` when both lists name it.
    """
    if isinstance(config.defer, list) and _matches_any(config.defer, tool):
        return "defer"
    if isinstance(config.always_load, list) and _matches_any(config.always_load, tool):
        return "always"
    if config.defer is True:
        return "defer"
    if config.always_load is True:
        return "always"
    return "found"


#: Shortest bearer token accepted for a non-loopback host.
MIN_AUTH_TOKEN_LENGTH = 16


def check_auth_token(token: str) -> None:
    """Refuse a bearer token no client could send: empty, blank, with spaces at either end
    (an HTTP client trims them, so it would never match), or not printable ASCII."""
    problem = None
    if not token.strip():
        problem = "is empty" if not token else "is only blanks"
    elif token != token.strip():
        problem = "begins or ends with blanks (a copied newline?)"
    elif any(char.isspace() for char in token):
        problem = "contains blanks"
    elif not (token.isascii() and token.isprintable()):
        problem = "has characters an HTTP header cannot carry (printable ASCII only)"
    if problem is not None:
        raise ConfigError(
            f"the bearer token {problem}: no client could send it; use one word of "
            f"printable ASCII, at least {MIN_AUTH_TOKEN_LENGTH} characters, e.g. the output "
            "of python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )


@dataclass(frozen=True)
class _Pattern:
    text: str
    tag: str | None = None
    server: str = "*"
    tool: str = "*"

    @classmethod
    def parse(cls, text: object, where: str) -> _Pattern:
        if not isinstance(text, str) or not text.strip() or text != text.strip():
            raise ConfigError(
                f"{where}: {text!r} is not a pattern; use SERVER, SERVER/TOOL (globs) or "
                'tag:TAG, e.g. "github", "github/search_*", "tag:read-only"'
            )
        if text.startswith("tag:"):
            return cls(text, tag=text[4:])
        server, _, tool = text.partition("/")
        return cls(text, server=server, tool=tool or "*")

    def tool_matches(self, server: str, tool: str, tags: frozenset[str]) -> bool:
        if self.tag is not None:
            return self.tag in tags
        return _glob(self.server, server) and _glob(self.tool, tool)

    def whole_server(self, server: str, tags: frozenset[str]) -> bool:
        """Whether the pattern covers every tool of `server` (so the server itself)."""
        if self.tag is not None:
            return self.tag in tags
        return _glob(self.server, server) and self.tool == "*"

    def names_server(self, server: str) -> bool:
        return self.tag is None and _glob(self.server, server)


@dataclass(frozen=True)
class Principal:
    name: str
    allow: tuple[_Pattern, ...]
    deny: tuple[_Pattern, ...]
    token_digest: bytes | None
    """None when its token was not read (over stdio, every principal but the chosen one):
    then no bearer token is this principal's."""

    def may_use(self, server: str, tool: str, tags: frozenset[str]) -> bool:
        return any(p.tool_matches(server, tool, tags) for p in self.allow) and not any(
            p.tool_matches(server, tool, tags) for p in self.deny
        )


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class AccessPolicy:
    """The principals of a servers file, found by their bearer token."""

    def __init__(self, principals: Iterable[Principal]) -> None:
        self.principals = {principal.name: principal for principal in principals}

    def authenticate(self, token: bytes) -> str | None:
        """The principal whose token this is, or None; every token is compared, in
        constant time, so the time taken says nothing of which one was close. Empty or
        blank credentials are no principal's, before any comparison."""
        if not token.strip():
            return None
        digest = hashlib.sha256(token).digest()
        found = None
        for principal in self.principals.values():
            if principal.token_digest is not None and hmac.compare_digest(
                digest, principal.token_digest
            ):
                found = principal.name
        return found

    def unmatched_patterns(self, hub: McpToolHub) -> list[str]:
        """A warning for each pattern that matches no tool (nor, for `SERVER`, no server),
        naming the principal and the pattern: a typo, or a glob that never matches the name
        it spells, fails closed for `allow` and open for `deny`, so say so at start-up.

        A `SERVER/TOOL` pattern whose servers are all down is not judged (their tools are
        not known yet); a `tag:` pattern is matched against the tags the servers file
        gives and every listed tool's.
        """
        configs = {name: upstream.config for name, upstream in hub.upstreams.items()}
        listed = list(hub.tools.values())
        down = {name for name, upstream in hub.upstreams.items() if upstream.state != "ready"}
        known_tags = {tag for config in configs.values() for tag in config.tags}
        known_tags |= {
            tag for c in configs.values() for tags in c.tool_tags.values() for tag in tags
        }
        for tool in listed:
            known_tags |= tool_tags(configs[tool.server], tool.definition)
        warnings = []
        for principal in self.principals.values():
            for kind, patterns in (("allow", principal.allow), ("deny", principal.deny)):
                for pattern in patterns:
                    if pattern.tag is not None:
                        matched = pattern.tag in known_tags
                    else:
                        servers = [s for s in configs if _glob(pattern.server, s)]
                        matched = bool(servers) and (
                            pattern.tool == "*"
                            or any(s in down for s in servers)
                            or any(
                                pattern.tool_matches(t.server, t.original, frozenset())
                                for t in listed
                            )
                        )
                    if not matched:
                        what = "server" if pattern.tag is None and pattern.tool == "*" else "tool"
                        warnings.append(
                            f"principal {principal.name!r}: {kind} pattern {pattern.text!r} "
                            f"matches no {what} of this gateway (a misspelling? patterns are "
                            "globs: * ? [abc] [!abc], and a tool's exact name matches it)"
                        )
        return warnings

    def grant(self, name: str, hub: McpToolHub) -> Grant:
        return Grant(self.principals[name], hub)


class Grant:
    """What one principal sees of a hub's tools now (built per tools version)."""

    def __init__(self, principal: Principal, hub: McpToolHub) -> None:
        self.principal = principal
        self._configs = {name: upstream.config for name, upstream in hub.upstreams.items()}
        self.tools: dict[str, HubTool] = {
            name: tool for name, tool in hub.tools.items() if self.tool(tool)
        }
        #: Servers with at least one tool this principal sees.
        self.servers_with_tools = frozenset(tool.server for tool in self.tools.values())
        self._hidden = Counter(t.server for name, t in hub.tools.items() if name not in self.tools)
        self._vocabulary: Vocabulary | None = None

    def hidden(self, servers: Iterable[str]) -> int:
        """How many tools of `servers` this principal may not see."""
        return sum(self._hidden[server] for server in servers)

    def vocabulary(self, index: Any) -> Vocabulary | None:
        """The words of the principal's tools, by the index's analyzer (None: the index has
        none), built once per grant: what a search tells this principal no tool has."""
        analysis = getattr(index, "analyzer", None)
        if not isinstance(analysis, Analyzer):
            return None
        if self._vocabulary is None:
            self._vocabulary = Vocabulary(
                (tool.reference for tool in self.tools.values()), analysis
            )
        return self._vocabulary

    def tool(self, tool: HubTool) -> bool:
        tags = tool_tags(self._configs[tool.server], tool.definition)
        return self.principal.may_use(tool.server, tool.original, tags)

    def name(self, server: str, original: str) -> bool:
        """A tool known by name only (its server is down and never listed it): judged on
        the tags the servers file gives it (the server's and the matching `toolTags`). A
        tool that was listed is judged with `tool` on its last definition instead."""
        config = self._configs.get(server)
        tags = frozenset(configured_tags(config, original)) if config is not None else frozenset()
        return self.principal.may_use(server, original, tags)

    def server(self, server: str) -> bool:
        """Whether the principal may know of `server`: one of its tools is visible, or an
        `allow` pattern covers the whole server (while it is down) and no `deny` does."""
        if server in self.servers_with_tools:
            return True
        config = self._configs.get(server)
        if config is None:
            return False
        tags = frozenset(config.tags)
        allow, deny = self.principal.allow, self.principal.deny
        return any(p.whole_server(server, tags) for p in allow) and not any(
            p.whole_server(server, tags) for p in deny
        )


#: The SHA-256 of the empty token: what the documented hash command prints for an unset
#: `$TOKEN`; as a `tokenSha256` it would log in anyone sending `Authorization: Bearer `.
_EMPTY_DIGEST = hashlib.sha256(b"").digest()


def parse_access(
    data: object,
    source: str,
    environ: Mapping[str, str] | None = None,
    *,
    tokens_of: Iterable[str] | None = None,
) -> AccessPolicy | None:
    """The `principals` of a parsed servers file (None when it has none).

    Every problem is a `ConfigError` naming the principal and the fix: a token variable
    that is unset or holds a token no client could send, a `tokenSha256` of the empty
    token, two principals with one token, a pattern that is not one, an unknown key.

    `tokens_of` names the principals whose tokens are read (default: every one). Over
    stdio no request carries a token, so only the chosen principal's setting matters; the
    others' variables need not be set, and no token is theirs.
    """
    if not isinstance(data, Mapping) or "principals" not in data:
        return None
    environ = os.environ if environ is None else environ
    wanted = None if tokens_of is None else frozenset(tokens_of)
    table = data["principals"]
    if not isinstance(table, Mapping) or not table:
        raise ConfigError(
            f'{source}: "principals" must map names to {{"tokenEnv": ..., "allow": [...]}}'
        )
    principals: list[Principal] = []
    for name, entry in table.items():
        where = f"{source}: principal {name!r}"
        if not isinstance(name, str) or not _PRINCIPAL_NAME.match(name):
            raise ConfigError(f"{where}: a name uses letters, digits and . _ - @ only")
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where} must be a JSON object")
        unknown = sorted(set(entry) - set(_PRINCIPAL_KEYS))
        if unknown:
            raise ConfigError(
                f"{where}: unknown key {unknown[0]!r}; allowed keys: {', '.join(_PRINCIPAL_KEYS)}"
            )
        lists: dict[str, tuple[_Pattern, ...]] = {}
        for key in ("allow", "deny"):
            value = entry.get(key, [])
            if not isinstance(value, list):
                raise ConfigError(f"{where}: {key!r} must be a list of patterns")
            lists[key] = tuple(_Pattern.parse(item, f"{where} {key}") for item in value)
        if not lists["allow"]:
            raise ConfigError(
                f'{where}: "allow" is empty, so it would see nothing; allow "*" '
                "for everything, or remove the principal"
            )
        variable, digest = entry.get("tokenEnv"), entry.get("tokenSha256")
        if (variable is None) == (digest is None):
            raise ConfigError(
                f'{where} needs one of "tokenEnv" (the environment variable holding its '
                'bearer token) or "tokenSha256" (the hex SHA-256 of the token)'
            )
        token_digest: bytes | None = None
        if digest is not None:  # checked for every principal: the file says it, not the env
            if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", digest):
                raise ConfigError(
                    f"{where}: tokenSha256 must be 64 hex digits, the output of "
                    'python -c "import hashlib,sys; print(hashlib.sha256(sys.argv[1].encode())'
                    '.hexdigest())" TOKEN'
                )
            token_digest = bytes.fromhex(digest)
            if token_digest == _EMPTY_DIGEST:
                raise ConfigError(
                    f"{where}: tokenSha256 is the SHA-256 of an empty token (what the hash "
                    "command prints when $TOKEN is unset), so an empty Authorization header "
                    "would log in as it; hash the principal's token: python -c \"import "
                    'hashlib,sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())" '
                    '"$TOKEN" with TOKEN set'
                )
        elif wanted is None or name in wanted:  # over stdio, only the chosen one's variable
            token = environ.get(str(variable))
            if token is None:
                raise ConfigError(
                    f"{where}: the environment variable {variable} (tokenEnv) is not set; set "
                    "it to the principal's bearer token"
                )
            try:
                check_auth_token(token)
            except ConfigError as error:
                raise ConfigError(f"{where} ({variable}): {error}") from None
            if len(token) < MIN_AUTH_TOKEN_LENGTH:
                raise ConfigError(
                    f"{where}: the token in {variable} is {len(token)} characters long; use at "
                    f"least {MIN_AUTH_TOKEN_LENGTH}"
                )
            token_digest = _digest(token)
        if wanted is not None and name not in wanted:
            token_digest = None  # no request carries a token: no token is this one's
        principals.append(Principal(name, lists["allow"], lists["deny"], token_digest))
    seen: dict[bytes, str] = {}
    for principal in principals:
        if principal.token_digest is None:
            continue
        other = seen.setdefault(principal.token_digest, principal.name)
        if other != principal.name:
            raise ConfigError(
                f"{source}: principals {other!r} and {principal.name!r} have the same token; "
                "give each its own, or the gateway could not tell them apart"
            )
    return AccessPolicy(principals)


def read_access(path: str, *, tokens_of: Iterable[str] | None = None) -> AccessPolicy | None:
    """The principals of the servers file at `path` (None when it names none); `tokens_of`
    as in `parse_access`."""
    import json
    from pathlib import Path

    data: Any = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    return parse_access(data, str(path), tokens_of=tokens_of)
