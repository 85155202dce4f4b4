"""The `tool_search` tool: its definition, and how a call to it is answered.

A query is either free text, searched in the session's index, or `select:name_a,name_b`,
which loads tools by exact name. `max_results` is validated and clamped to
`[1, max_results_limit]`, so a model asking for 0, -3 or 10,000 results gets a sensible
answer instead of a crash. An empty result answers with guidance to rephrase.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolscout.index import ToolIndex
from toolscout.types import ToolReference, ToolSearchRequest

__all__ = [
    "SEARCH_TOOL_NAME",
    "SearchOutcome",
    "clamp_max_results",
    "run_search",
    "search_tool_reference",
]

SEARCH_TOOL_NAME = "tool_search"
SELECT_PREFIX = "select:"


def search_tool_reference(
    default_max_results: int, max_results_limit: int, name: str = SEARCH_TOOL_NAME
) -> ToolReference:
    """The definition of the search tool the model sees (`tool_search` unless renamed)."""
    return ToolReference(
        name,
        "Find tools to use. Most tools are not loaded yet: describe the capability you need "
        "in a few words (e.g. 'convert currency') and the best matching tools become "
        "callable on your next turn. To load tools you already know by name, use "
        "'select:name_a,name_b'.",
        {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What the tool should do, or select:name_a,name_b",
                },
                "max_results": {
                    "type": "integer",
                    "description": (
                        f"How many tools to return (default {default_max_results}, "
                        f"at most {max_results_limit})"
                    ),
                },
            },
            "required": ["query"],
        },
    )


@dataclass(frozen=True)
class SearchOutcome:
    """What a `tool_search` call found and the text answered to the model."""

    names: tuple[str, ...]
    text: str
    is_error: bool = False
    query: str = ""
    elapsed_ms: float = 0.0


def clamp_max_results(value: object, default: int, limit: int) -> tuple[int, str | None]:
    """A usable result count and, when the model's value was changed, why.

    None → `default`; numbers (or numeric strings) are rounded and clamped to `[1, limit]`;
    anything else falls back to `default` with a note (never an exception: a bad value
    must not end the conversation).
    """
    default = max(1, min(default, limit))
    if value is None:
        return default, None
    number: float
    if isinstance(value, bool):
        return default, f"max_results must be a number, got {value!r}; used {default}"
    if isinstance(value, (int, float)):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return default, f"max_results must be a number, got {value!r}; used {default}"
    else:
        return default, f"max_results must be a number, got {value!r}; used {default}"
    if number != number:  # NaN
        return default, f"max_results must be a number, got {value!r}; used {default}"
    if number < 1:
        return 1, f"max_results must be at least 1, got {value!r}; used 1"
    if number > limit:
        return limit, f"max_results is at most {limit}, got {value!r}; used {limit}"
    return int(number), None


def run_search(
    arguments: Mapping[str, Any] | None,
    *,
    session_id: str,
    index: ToolIndex,
    known: Callable[[str], ToolReference | None],
    default_max_results: int,
    max_results_limit: int,
    summaries: bool = True,
) -> SearchOutcome:
    """Answer one `tool_search` call.

    `known(name)` returns the session's tool of that name (for `select:` and to drop hits
    the index holds but the session no longer has).
    """
    if arguments is None or not isinstance(arguments, Mapping):
        return SearchOutcome(
            (),
            'tool_search needs a JSON object such as {"query": "send an email"}',
            is_error=True,
        )
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        return SearchOutcome(
            (),
            'tool_search needs a non-empty "query": a few words describing the tool you '
            "need, or select:name_a,name_b",
            is_error=True,
            query=str(query or ""),
        )
    query = query.strip()
    if query.lower().startswith(SELECT_PREFIX):
        return _select(query, known, summaries)
    count, note = clamp_max_results(
        arguments.get("max_results"), default_max_results, max_results_limit
    )
    request = ToolSearchRequest(session_id, query, count)
    began = time.perf_counter()
    response = index.search(request)
    elapsed = (time.perf_counter() - began) * 1000.0
    hits = [(hit.name, known(hit.name)) for hit in response.references]
    found = [(name, ref) for name, ref in hits if ref is not None]
    if not found:
        return SearchOutcome(
            (),
            f"No tools matched {query!r}. Rephrase with other words for the capability "
            "(e.g. the action and the object: 'create invoice', 'weather forecast'), "
            "use fewer words, or select:name if you know the tool's name.",
            query=query,
            elapsed_ms=elapsed,
        )
    names = tuple(name for name, _ in found)
    lines = [_line(ref, summaries) for _, ref in found if ref is not None]
    header = f"Found {len(names)} tool(s), callable from your next turn:"
    text = "\n".join([header, *lines])
    if note:
        text += f"\n(note: {note})"
    return SearchOutcome(names, text, query=query, elapsed_ms=elapsed)


def _line(ref: ToolReference, summaries: bool) -> str:
    summary = ref.summary if summaries else ""
    return f"- {ref.name}: {summary}" if summary else f"- {ref.name}"


def _select(
    query: str, known: Callable[[str], ToolReference | None], summaries: bool
) -> SearchOutcome:
    wanted = [n.strip() for n in query[len(SELECT_PREFIX) :].split(",") if n.strip()]
    if not wanted:
        return SearchOutcome(
            (),
            "select: needs tool names, e.g. select:get_weather,send_email",
            is_error=True,
            query=query,
        )
    found: list[ToolReference] = []
    missing: list[str] = []
    for name in dict.fromkeys(wanted):
        ref = known(name)
        if ref is None:
            missing.append(name)
        else:
            found.append(ref)
    parts = []
    if found:
        parts.append(f"Loaded {len(found)} tool(s), callable from your next turn:")
        parts.extend(_line(ref, summaries) for ref in found)
    if missing:
        parts.append(
            f"No tool is named {', '.join(repr(m) for m in missing)}; "
            "search by description to find the right name."
        )
    return SearchOutcome(
        tuple(ref.name for ref in found),
        "\n".join(parts),
        is_error=not found,
        query=query,
    )
