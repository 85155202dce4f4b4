"""`ToolscoutSearchTransform`: FastMCP's search transform, searched by a toolscout index.

FastMCP's search transforms replace a server's tool list with `search_tools` and
`call_tool`; this one answers `search_tools` with any toolscout backend (the configured one
by default: regex with the static embedder in the README's install), and with what core
works out for the model: each tool's confidence, how many tools matched in all, the query's
words no tool has, and why an empty answer is empty.

The tools FastMCP lists become `ToolReference`s (name, description, input schema; tags as
metadata). Each distinct catalog is one index session named after the catalog's
fingerprint, so an unchanged catalog is never indexed again, a changed one (a tool added,
removed or redescribed) is, and principals whose auth shows them different tools each keep
their own set instead of re-indexing on every switch.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import anyio.to_thread
from fastmcp.exceptions import ToolError
from fastmcp.server.context import Context
from fastmcp.server.transforms.search.base import BaseSearchTransform, SearchResultSerializer
from fastmcp.tools.base import Tool
from toolscout.advisor.search_tool import run_search
from toolscout.config import Settings, settings_with
from toolscout.eviction import LruEvictionStrategy
from toolscout.index import ToolIndex
from toolscout.loading import load_index
from toolscout.session import SessionManager, tool_set_fingerprint
from toolscout.telemetry import traced_search
from toolscout.types import (
    BELOW_CONFIDENCE,
    MAX_QUERY_LENGTH,
    ToolReference,
    ToolSearchRequest,
    ToolSearchResponse,
)

__all__ = ["ToolscoutSearchTransform"]

#: Catalogs kept indexed at once (one per set of tools a principal sees); the least
#: recently searched is dropped first.
DEFAULT_MAX_CATALOGS = 16


class ToolscoutSearchTransform(BaseSearchTransform):
    """Replace the tool list with `search_tools` / `call_tool`, searched by toolscout.

    `backend` names any installed toolscout backend (default: the configured one, see
    `toolscout config`) and `options` are its options (`name_weight`, `path`, ...); or pass
    a ready `index`. `max_results` defaults to toolscout's `max_results` setting.
    `always_visible`, `search_tool_name`, `call_tool_name` and `search_result_serializer`
    are FastMCP's: pinned tools stay listed and are not searched, and the serializer renders
    the found tools' definitions (default: as `list_tools` does).

    `index_builds` counts the catalogs indexed so far: it grows only when the tools change.
    """

    def __init__(
        self,
        *,
        backend: str | None = None,
        options: Mapping[str, Any] | None = None,
        index: ToolIndex | None = None,
        settings: Settings | None = None,
        max_results: int | None = None,
        max_catalogs: int = DEFAULT_MAX_CATALOGS,
        always_visible: list[str] | None = None,
        search_tool_name: str = "search_tools",
        call_tool_name: str = "call_tool",
        search_result_serializer: SearchResultSerializer | None = None,
    ) -> None:
        if index is not None and (backend is not None or options):
            raise ValueError("pass either index or backend/options (which build one), not both")
        overrides = {} if max_results is None else {"max_results": max_results}
        settings = settings_with(settings, overrides, "ToolscoutSearchTransform option")
        if index is None:
            # Built now, so an unknown backend or a bad option fails when the server is
            # set up, not on the first search.
            index = load_index(backend, settings=settings, **dict(options or {}))
        super().__init__(
            max_results=settings.max_results,
            always_visible=always_visible,
            search_tool_name=search_tool_name,
            call_tool_name=call_tool_name,
            search_result_serializer=search_result_serializer,
        )
        self.settings = settings
        self.index = index
        self.sessions = SessionManager(index, LruEvictionStrategy(max_catalogs))
        self.index_builds = 0
        # Tool name -> what its reference was made from, and the reference: a catalog read
        # again is not converted again (FastMCP hands out the same Tool objects).
        self._references: dict[str, _Converted] = {}

    # --- FastMCP's contract ---------------------------------------------------------------

    def _make_search_tool(self) -> Tool:
        transform = self

        async def search_tools(
            query: Annotated[
                str, "What the tool should do, in a few words (e.g. 'convert currency')"
            ],
            ctx: Context = None,  # type: ignore[assignment]
        ) -> dict[str, Any]:
            """Find tools by what they do.

            Returns the best matching tool definitions (as list_tools gives them), each
            with toolscout's confidence (0 to 1); call one with call_tool. An empty answer
            says why, and words no tool has are listed.
            """
            tools = await transform._get_visible_tools(ctx)
            return await transform.search_answer(tools, query)

        return Tool.from_function(fn=search_tools, name=self._search_tool_name)

    async def _search(self, tools: Sequence[Tool], query: str) -> Sequence[Tool]:
        found, _, _ = await self._run(tools, query)
        return found

    # --- toolscout's answer ---------------------------------------------------------------

    async def search_answer(self, tools: Sequence[Tool], query: str) -> dict[str, Any]:
        """What `search_tools` answers for `query` over `tools` (pinned tools left out)."""
        found, response, references = await self._run(tools, query)
        rendered = await self._render_results(found)
        confidence = {hit.name: hit.confidence for hit in response}
        if isinstance(rendered, list) and all(isinstance(d, dict) for d in rendered):
            rendered = [_with_confidence(d, confidence.get(d.get("name", ""))) for d in rendered]
        answer: dict[str, Any] = {"tools": rendered}
        if found:
            if not isinstance(rendered, list):  # a serializer of its own (markdown text)
                answer["confidence"] = {t.name: confidence.get(t.name) for t in found}
            if response.total_matches > len(found):
                answer["matched"] = response.total_matches
            if response.unmatched_words:
                answer["words_no_tool_has"] = list(response.unmatched_words)
            return answer
        answer["empty_reason"] = response.empty_reason
        if response.empty_reason == BELOW_CONFIDENCE:
            answer["confidence"] = response.confidence
        # Core's tool_search guidance for an empty answer (why, what to try, the words no
        # tool has), so a model reads the same advice behind every toolscout front door.
        answer["note"] = await anyio.to_thread.run_sync(self._guidance, references, query)
        return answer

    async def _run(
        self, tools: Sequence[Tool], query: str
    ) -> tuple[list[Tool], ToolSearchResponse, list[ToolReference]]:
        # ToolError: FastMCP passes its text to the client even with mask_error_details,
        # and logs no traceback for a model's bad argument.
        if not isinstance(query, str) or not query.strip():
            raise ToolError(
                "search_tools needs a query: a few words for the capability, e.g. "
                '{"query": "send a chat message"}'
            )
        if len(query) > MAX_QUERY_LENGTH:
            raise ToolError(
                f"search_tools query is {len(query):,} characters long; the limit is "
                f"{MAX_QUERY_LENGTH:,}: describe the capability in a few words"
            )
        by_name = {tool.name: tool for tool in tools}
        references = self._reference_list(tools)
        # Indexing and ranking are CPU work: off the event loop, so other requests go on.
        response = await anyio.to_thread.run_sync(
            self._search_references, references, query.strip()
        )
        found = [by_name[name] for name in response.names if name in by_name]
        return found, response, references

    def _search_references(self, references: list[ToolReference], query: str) -> ToolSearchResponse:
        fingerprint = tool_set_fingerprint(references)
        session = _session(fingerprint)
        self.sessions.access(session)
        if self.sessions.ensure_indexed(session, references, fingerprint):
            self.index_builds += 1
        request = ToolSearchRequest(session, query, self._max_results)
        return traced_search(self.index, request)

    def _guidance(self, references: list[ToolReference], query: str) -> str:
        known = {ref.name: ref for ref in references}
        return run_search(
            {"query": query},
            session_id=_session(tool_set_fingerprint(references)),
            index=self.index,
            known=known.get,
            default_max_results=self._max_results,
            max_results_limit=self._max_results,
            tool_name=self._search_tool_name,
        ).text

    def _reference_list(self, tools: Sequence[Tool]) -> list[ToolReference]:
        cached = self._references
        fresh: dict[str, _Converted] = {}
        for tool in tools:
            entry = cached.get(tool.name)
            if entry is None or not entry.made_from(tool):
                entry = _Converted.of(tool)
            fresh[tool.name] = entry
        self._references = fresh
        return [entry.reference for entry in fresh.values()]


def _session(fingerprint: str) -> str:
    """The index session of one catalog, named after its fingerprint."""
    return f"fastmcp-{fingerprint[:32]}"


def _reference(tool: Tool) -> ToolReference:
    """What toolscout indexes of a FastMCP tool: its name, description and input schema."""
    return ToolReference(
        name=tool.name,
        description=_description(tool),
        input_schema=tool.parameters,
        metadata=_metadata(tool),
    )


def _description(tool: Tool) -> str:
    return tool.description or tool.title or ""


def _metadata(tool: Tool) -> dict[str, Any] | None:
    return {"tags": sorted(tool.tags)} if tool.tags else None


@dataclass(frozen=True)
class _Converted:
    """A tool's reference and what it was made from: the tool, and a copy of its schema
    (compared in C, where the reference's read-only schema would need thawing)."""

    tool: Tool
    parameters: dict[str, Any]
    reference: ToolReference

    @classmethod
    def of(cls, tool: Tool) -> _Converted:
        return cls(tool, copy.deepcopy(tool.parameters), _reference(tool))

    def made_from(self, tool: Tool) -> bool:
        """Whether `tool` is still what the reference was made from (one edited in place,
        its description or schema changed, is converted and so indexed again)."""
        return (
            self.tool is tool
            and self.reference.description == _description(tool)
            and self.parameters == tool.parameters
            and self.reference.metadata == _metadata(tool)
        )


def _with_confidence(definition: dict[str, Any], confidence: float | None) -> dict[str, Any]:
    if confidence is None:
        return definition
    return {**definition, "confidence": round(confidence, 3)}
