"""The framework-neutral half of a toolscout integration: settings, sessions, auto mode, search.

`toolscout.Advisor` and the framework integrations (toolscout-langchain,
toolscout-pydantic-ai, toolscout-openai-agents) all build on it: each converts its tools to
`ToolReference`s and asks a `Scout` which of them a model request carries, and answers
search calls through it. The integrations take their common options as one
`ScoutOptions` (or the same names as keyword arguments).

Wire names: an integration's `Scout` (`wire=True`) gives every tool a name the model APIs
accept (`^[a-zA-Z0-9_-]{1,64}$`, unique: `toolscout.wire_names`); the catalog's references,
the index and the search results use those names, and `Catalog.tool_name` maps a call
back to the framework's tool.

Auto mode is core's (`toolscout.auto.AutoThreshold`, re-exported here): tool search turns
on only when the searchable tools (every tool but the pinned ones) are more than
`AutoThreshold.tools` (default 30) or their definitions take more than
`AutoThreshold.tokens` tokens (default 10,000, o200k_base, as OpenAI function definitions);
below both, every tool is sent as usual and the search tool is left out. `auto=True` takes
the configured threshold (`[tool.toolscout.auto]`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from toolscout.advisor.search_tool import (
    FILTER_KEYS,
    SEARCH_TOOL_NAME,
    SearchOutcome,
    facets,
    run_search,
    search_tool_reference,
)
from toolscout.auto import DEFAULT_AUTO_TOKENS, DEFAULT_AUTO_TOOLS, AutoThreshold
from toolscout.index import ToolIndex
from toolscout.session import SessionManager, session_manager, tool_set_fingerprint
from toolscout.types import ToolReference
from toolscout.wire_names import is_wire_safe, wire_names

if TYPE_CHECKING:
    from toolscout.config import Settings

__all__ = [
    "DEFAULT_AUTO_TOKENS",
    "DEFAULT_AUTO_TOOLS",
    "AutoThreshold",
    "Catalog",
    "MetadataSource",
    "Scout",
    "ScoutOptions",
    "SearchOutcome",
    "filter_metadata",
    "merge_loaded",
]

MetadataSource = Mapping[str, Mapping[str, Any]] | Callable[[Any], Mapping[str, Any] | None]
"""Where an integration's `metadata` argument finds a tool's `server` / `namespace` /
`tags`: a mapping from tool name to metadata, or a function of the framework's tool."""

_CATALOG_CACHE = 16


@dataclass(frozen=True)
class ScoutOptions:
    """The options every framework integration takes (one object instead of ten keywords).

    Pass it as `options=` or its fields as keyword arguments (`pinned=["today"]`);
    keywords win. `settings` are toolscout's (default: `toolscout.load_settings()`), and
    `max_results`, `max_results_limit`, `max_loaded_tools` and `result_summaries` override
    the settings of those names. `metadata` gives tools their `server` / `namespace` /
    `tags` (tool name -> metadata, or a function of the framework's tool).
    """

    pinned: tuple[str, ...] = ()
    auto: AutoThreshold | bool = True
    sessions: SessionManager | None = None
    settings: Settings | None = None
    max_results: int | None = None
    max_results_limit: int | None = None
    max_loaded_tools: int | None = None
    result_summaries: bool | None = None
    search_tool_name: str = SEARCH_TOOL_NAME
    metadata: MetadataSource | None = None

    def __post_init__(self) -> None:
        if isinstance(self.pinned, str):
            raise TypeError(f"pinned takes a list of tool names, got the string {self.pinned!r}")
        object.__setattr__(self, "pinned", tuple(self.pinned))

    @classmethod
    def of(
        cls, options: ScoutOptions | None, keywords: Mapping[str, Any], owner: str
    ) -> ScoutOptions:
        """`options` with `keywords` applied; an unknown keyword names the ones `owner` takes."""
        if options is not None and not isinstance(options, ScoutOptions):
            raise TypeError(
                f"{owner} options must be a toolscout ScoutOptions, got {type(options).__name__}"
            )
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(keywords) - names)
        if unknown:
            raise TypeError(
                f"{owner} got unexpected keyword argument(s) {', '.join(unknown)}; "
                f"it takes {', '.join(sorted(names))} (see ScoutOptions)"
            )
        base = options or cls()
        return replace(base, **keywords) if keywords else base


@dataclass(frozen=True)
class Catalog:
    """The tools of one request, split into pinned and searchable, with the auto decision."""

    pinned: tuple[ToolReference, ...]
    searchable: tuple[ToolReference, ...]
    fingerprint: str
    search_on: bool
    tokens: int | None = None
    by_name: Mapping[str, ToolReference] = field(default_factory=dict, repr=False)
    filters: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    """The `server` / `namespace` / `tags` values of the searchable tools (`facets`)."""
    search_reference: ToolReference | None = field(default=None, repr=False)
    """The search tool for these tools: its description lists `filters` (None: the
    scout's plain `search_reference`)."""
    tools_fingerprint: str = ""
    """The fingerprint of every tool, pinned ones included (what a request without
    toolscout carries; the telemetry caches its token count under it)."""

    original: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Wire name -> the tool's own name, for the tools whose name had to change."""

    def known(self, name: str) -> ToolReference | None:
        """A searchable tool by name (what `select:` and search hits resolve against)."""
        found = self.by_name.get(name)
        if found is None and name in self.renamed:
            found = self.by_name.get(self.renamed[name])
        return found

    def tool_name(self, wire: str) -> str:
        """The framework tool's own name for a name the model used."""
        return self.original.get(wire, wire)

    @property
    def renamed(self) -> Mapping[str, str]:
        """The tool's own name -> its wire name, for the tools whose name had to change."""
        return {own: wire for wire, own in self.original.items()}


class Scout:
    """Settings, sessions over one index, the auto decision and the search tool.

    `index` is any toolscout backend (default: the configured one). Keyword arguments
    override the matching settings (`[tool.toolscout]`, `TOOLSCOUT_*`). `wire=True` (what
    the framework integrations use) gives the catalog's tools wire-safe names (see the
    module docstring).
    """

    def __init__(
        self,
        index: ToolIndex | None = None,
        *,
        settings: Settings | None = None,
        sessions: SessionManager | None = None,
        pinned: Iterable[str] = (),
        auto: AutoThreshold | bool = True,
        max_results: int | None = None,
        max_results_limit: int | None = None,
        max_loaded_tools: int | None = None,
        result_summaries: bool | None = None,
        search_tool_name: str = SEARCH_TOOL_NAME,
        wire: bool = False,
        learn: bool | None = None,
    ) -> None:
        from toolscout.config import settings_with

        overrides: dict[str, Any] = {
            key: value
            for key, value in {
                "max_results": max_results,
                "max_results_limit": max_results_limit,
                "max_loaded_tools": max_loaded_tools,
                "result_summaries": result_summaries,
            }.items()
            if value is not None
        }
        self.settings = settings = settings_with(settings, overrides, "integration option")
        self.sessions = session_manager(settings, index, sessions)
        self.index: ToolIndex = self.sessions.index
        self.pinned = frozenset(pinned)
        self.auto = AutoThreshold.coerce(auto, settings)
        if not isinstance(search_tool_name, str) or not search_tool_name.strip():
            raise ValueError(
                f"search_tool_name must be a non-empty string, got {search_tool_name!r}"
            )
        self.search_name = search_tool_name.strip()
        self.wire = wire
        if wire and not is_wire_safe(self.search_name):
            raise ValueError(
                f"search_tool_name {self.search_name!r} is not a name the model APIs accept; "
                "use letters, digits, '_' and '-' only, at most 64 characters"
            )
        self.search_reference = search_tool_reference(
            min(settings.max_results, settings.max_results_limit),
            settings.max_results_limit,
            self.search_name,
        )
        self._catalogs: OrderedDict[tuple[str, frozenset[str]], Catalog] = OrderedDict()
        self._lock = threading.Lock()
        # Learning from use (docs/learning.md): on by default for an index this process
        # holds (one tenant); `learn=True` for a shared store, `learn=False` off.
        from toolscout.learning import CallRecorder, default_learner

        learner = default_learner(self.index, learn)
        self.recorder = CallRecorder(learner) if learner is not None else None

    @classmethod
    def from_options(cls, index: ToolIndex | None, options: ScoutOptions) -> Scout:
        """A scout for a framework integration: `options`, wire-safe names."""
        return cls(
            index,
            settings=options.settings,
            sessions=options.sessions,
            pinned=options.pinned,
            auto=options.auto,
            max_results=options.max_results,
            max_results_limit=options.max_results_limit,
            max_loaded_tools=options.max_loaded_tools,
            result_summaries=options.result_summaries,
            search_tool_name=options.search_tool_name,
            wire=True,
        )

    @property
    def suffix(self) -> str:
        """The system-message suffix, naming the search tool by its configured name."""
        suffix = self.settings.system_message_suffix
        if self.search_name != SEARCH_TOOL_NAME:
            suffix = suffix.replace(SEARCH_TOOL_NAME, self.search_name)
        return suffix

    @property
    def max_loaded_tools(self) -> int:
        return self.settings.max_loaded_tools

    def catalog(
        self, tools: Sequence[ToolReference], pinned: Iterable[str] | None = None
    ) -> Catalog:
        """Split `tools` into pinned and searchable and decide whether search is on (cached).

        `pinned` names the pinned tools (default: the scout's `pinned`).
        """
        if any(tool.name == self.search_name for tool in tools):
            raise ValueError(
                f"a tool is named {self.search_name!r}, the name of toolscout's search tool; "
                "pass search_tool_name='find_tools' (or another free name)"
            )
        pinned_names = self.pinned if pinned is None else frozenset(pinned)
        key = (tool_set_fingerprint(tools), pinned_names)
        with self._lock:
            cached = self._catalogs.get(key)
            if cached is not None:
                self._catalogs.move_to_end(key)
                return cached
        original: dict[str, str] = {}
        if self.wire:
            # The search tool's name is taken: a tool sanitising to it gets another.
            renamed = wire_names([self.search_name, *(tool.name for tool in tools)])
            if renamed:
                original = {wire: own for own, wire in renamed.items()}
                tools = [
                    replace(tool, name=renamed[tool.name]) if tool.name in renamed else tool
                    for tool in tools
                ]
        own = original.get
        pinned_tools = tuple(tool for tool in tools if own(tool.name, tool.name) in pinned_names)
        searchable = tuple(tool for tool in tools if own(tool.name, tool.name) not in pinned_names)
        if self.auto is None:
            search_on, tokens = bool(searchable), None
        else:
            search_on, tokens = self.auto.decide(searchable)
        filters = facets(searchable)
        catalog = Catalog(
            pinned_tools,
            searchable,
            tool_set_fingerprint(searchable),
            search_on,
            tokens,
            {tool.name: tool for tool in searchable},
            filters,
            self._search_reference(filters) if filters else None,
            key[0],
            original,
        )
        with self._lock:
            self._catalogs[key] = catalog
            while len(self._catalogs) > _CATALOG_CACHE:
                self._catalogs.popitem(last=False)
        return catalog

    def _search_reference(self, filters: Mapping[str, tuple[str, ...]]) -> ToolReference:
        settings = self.settings
        return search_tool_reference(
            min(settings.max_results, settings.max_results_limit),
            settings.max_results_limit,
            self.search_name,
            filters,
        )

    def search_tool(self, catalog: Catalog) -> ToolReference:
        """The search tool for `catalog`: with its filters listed when its tools have any."""
        return catalog.search_reference or self.search_reference

    def record_request(self, catalog: Catalog, sent: Sequence[ToolReference]) -> None:
        """Record one model request's tool tokens (`sent`) against every tool's (telemetry).

        A no-op unless an OpenTelemetry meter or tracer provider listens
        (`toolscout.telemetry.record_request_tools`); without toolscout the request would
        have carried `catalog`'s pinned and searchable tools.
        """
        from toolscout import telemetry

        if not telemetry.enabled():
            return
        telemetry.record_request_tools(
            sent, (*catalog.pinned, *catalog.searchable), catalog.tools_fingerprint or None
        )

    def record_response(self, usage: Any) -> None:
        """Record one model reply's prompt tokens as reported, cache reads and writes
        included (telemetry; `usage` in any provider's form, see `Usage.of`)."""
        from toolscout import telemetry
        from toolscout.advisor.chat import Usage

        if not telemetry.enabled():
            return
        reported = Usage.of(usage)
        if reported is not None:
            telemetry.record_request_usage(reported)

    def default_session(self, catalog: Catalog, prefix: str = "toolscout") -> str:
        """A session id shared by every run over the same searchable tools."""
        return f"{prefix}-{catalog.fingerprint[:16]}"

    def search(
        self,
        session_id: str,
        catalog: Catalog,
        arguments: Mapping[str, Any] | None,
        call_id: str | None = None,
    ) -> SearchOutcome:
        """Answer one search call: index the session's tools if needed, then search.

        `server` / `namespace` / `tags` filters in the arguments apply (see
        `toolscout.advisor.search_tool`); with OpenTelemetry the search is a span
        (`toolscout.telemetry`), `call_id` on it.
        """
        self.sessions.access(session_id)
        try:
            self.sessions.ensure_indexed(session_id, catalog.searchable, catalog.fingerprint)
            outcome = run_search(
                arguments,
                session_id=session_id,
                index=self.index,
                known=catalog.known,
                default_max_results=self.settings.max_results,
                max_results_limit=self.settings.max_results_limit,
                summaries=self.settings.result_summaries,
                filters=catalog.filters,
                call_id=call_id,
                tool_name=self.search_name,
            )
            if self.recorder is not None:
                self.recorder.searched(session_id, outcome.query, outcome.names)
            return outcome
        except Exception as error:
            return SearchOutcome(
                (),
                f"Error: tool {self.search_name} failed: {type(error).__name__}: {error}",
                is_error=True,
            )

    def record_call(self, session_id: str, name: str, *, success: bool) -> bool:
        """The model called tool `name` (the index's name, not a wire name): a use to learn
        from when a search of the session found it (True when recorded). Only the name and
        the outcome: never the call's arguments or result."""
        if self.recorder is None:
            return False
        return self.recorder.called(self.index, session_id, name, success=success)

    def not_loaded(self, name: str) -> str:
        """The answer to a call of a tool that exists but no search has loaded."""
        return (
            f"Error: tool {name!r} is not loaded. Call {self.search_name} first "
            f"(e.g. select:{name}); it becomes callable on your next turn."
        )


def filter_metadata(
    tool: Any,
    name: str,
    own: Mapping[str, Any] | None,
    source: MetadataSource | None,
) -> dict[str, Any] | None:
    """A tool's `server` / `namespace` / `tags` metadata, the search filters act on.

    `own` is what the framework's tool carries (its metadata; only those three keys are
    taken, so nothing else of it is indexed); `source` (the integration's `metadata`
    argument) is looked up by tool name or called with `tool`, and wins key by key.
    """
    found: dict[str, Any] = {}
    for given in (own, _given(tool, name, source)):
        if not given:
            continue
        if not isinstance(given, Mapping):
            raise TypeError(
                f"the metadata of tool {name!r} must be a mapping such as "
                f"{{'namespace': 'crm'}}, got {type(given).__name__}"
            )
        for key in FILTER_KEYS:
            value = given.get(key)
            if isinstance(value, str) and value.strip():
                found[key] = value.strip()
            elif isinstance(value, (list, tuple, set, frozenset)):
                items = sorted({v.strip() for v in value if isinstance(v, str) and v.strip()})
                if items:
                    found[key] = items
    return found or None


def _given(tool: Any, name: str, source: MetadataSource | None) -> Mapping[str, Any] | None:
    if source is None:
        return None
    if callable(source):
        return source(tool)
    if isinstance(source, Mapping):
        return source.get(name)
    raise TypeError(
        "metadata must be a mapping from tool name to metadata or a function of the tool, "
        f"got {type(source).__name__}"
    )


def merge_loaded(loaded: Iterable[str], found: Iterable[str], cap: int) -> list[str]:
    """Loaded names after a search: new names are appended, the earliest go past `cap`.

    A name found again keeps its place, so the tools a request carries only ever grow at
    the end between discoveries and the provider's cached prompt prefix holds. `cap` 0
    keeps every name.
    """
    names = list(dict.fromkeys(loaded))
    taken = set(names)
    names.extend(name for name in dict.fromkeys(found) if name not in taken)
    return names[-cap:] if cap > 0 else names
