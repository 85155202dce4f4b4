"""The `tool_search` tool: its definition, and how a call to it is answered.

A query is either free text, searched in the session's index, or `select:name_a,name_b`,
which loads tools by exact name. `max_results` is validated and clamped to
`[1, max_results_limit]`, so a model asking for 0, -3 or 10,000 results gets a sensible
answer instead of a crash. An empty result answers with guidance to rephrase.

Filters: when the tools carry `server`, `namespace` or `tags` metadata, the tool takes an
optional filter of each (a name or a list of names, any of which may match) and its
description lists the values there are, so the model knows them. A filter becomes
`ToolSearchRequest.metadata_filter` (core's matcher: a list means any of, a name matches a
list-valued field such as `tags`).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolscout import telemetry
from toolscout.errors import quote_value
from toolscout.filters import matches
from toolscout.index import ToolIndex
from toolscout.types import (
    BELOW_CONFIDENCE,
    MAX_RESULTS_LIMIT,
    ToolReference,
    ToolSearchRequest,
    ToolSearchResponse,
)
from toolscout.unmatched import MAX_LISTED_WORDS, reports_words, unmatched_words

__all__ = [
    "FILTER_KEYS",
    "SEARCH_TOOL_NAME",
    "SearchOutcome",
    "clamp_max_results",
    "facets",
    "parse_filter",
    "run_search",
    "search_tool_reference",
    "unmatched_words",
]

SEARCH_TOOL_NAME = "tool_search"
SELECT_PREFIX = "select:"

FILTER_KEYS = ("server", "namespace", "tags")
"""Metadata keys the model may filter a search by (`tool_search` arguments of these names)."""
MAX_LISTED_VALUES = 40
"""Values of one filter key the tool description lists; more are counted, not named."""
MAX_QUERIES = 8
"""Queries one call may carry (`query` plus `queries`)."""
MAX_QUOTED_NAMES = 5
"""Names an answer quotes from a list the model sent (missing `select:` names, filter
values, words no tool has); the rest are counted, so no answer grows with the arguments."""

_FILTER_TEXT = {
    "server": ("Servers", "Only tools of these servers (any of)"),
    "namespace": ("Namespaces", "Only tools in these namespaces (any of)"),
    "tags": ("Tags", "Only tools with any of these tags"),
}


def facets(tools: Iterable[ToolReference]) -> dict[str, tuple[str, ...]]:
    """The values of each filter key over `tools`' metadata, sorted (keys with none left out).

    A list-valued field (`tags`) contributes each of its items; values that are not
    strings are left out (the model names values as text).
    """
    found: dict[str, set[str]] = {key: set() for key in FILTER_KEYS}
    for tool in tools:
        metadata = tool.metadata
        if not metadata:
            continue
        for key in FILTER_KEYS:
            value = metadata.get(key)
            items = value if isinstance(value, (list, tuple)) else (value,)
            found[key].update(item for item in items if isinstance(item, str) and item)
    return {key: tuple(sorted(values)) for key, values in found.items() if values}


def _listing(values: tuple[str, ...]) -> str:
    shown = ", ".join(values[:MAX_LISTED_VALUES])
    more = len(values) - MAX_LISTED_VALUES
    return f"{shown} (and {more} more)" if more > 0 else shown


def search_tool_reference(
    default_max_results: int,
    max_results_limit: int,
    name: str = SEARCH_TOOL_NAME,
    filters: Mapping[str, Iterable[str]] | None = None,
) -> ToolReference:
    """The definition of the search tool the model sees (`tool_search` unless renamed).

    `filters` (from `facets`) adds an optional argument per filter key that has values,
    and the description lists those values; without it the tool takes only the query and
    `max_results`.
    """
    description = (
        "Find tools to use. Most tools are not loaded yet: describe the capability you need "
        "in a few words (e.g. 'convert currency') and the best matching tools become "
        "callable on your next turn. To load tools you already know by name, use "
        "'select:name_a,name_b'."
    )
    properties: dict[str, Any] = {
        "query": {
            "type": "string",
            "description": "What the tool should do, or select:name_a,name_b",
        },
        "queries": {
            "type": "array",
            "items": {"type": "string"},
            "description": "More capabilities, one each",
        },
        "max_results": {
            "type": "integer",
            "description": (
                f"How many tools to return per query (default {default_max_results}, "
                f"at most {max_results_limit})"
            ),
        },
    }
    listed = []
    for key in FILTER_KEYS:
        values = tuple((filters or {}).get(key, ()))
        if not values:
            continue
        title, meaning = _FILTER_TEXT[key]
        listed.append(f"{title}: {_listing(values)}.")
        properties[key] = {
            "type": "array",
            "items": {"type": "string"},
            "description": f"Optional. {meaning}",
        }
    if listed:
        description += " Narrow a search with the optional filters. " + " ".join(listed)
    return ToolReference(
        name,
        description,
        {"type": "object", "properties": properties, "required": ["query"]},
    )


def parse_filter(arguments: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """The metadata filter in a search call's arguments, or the problem with it.

    Each filter key takes a name or a list of names (any of); `null`, `""` and `[]` mean no
    filter. Returns `(filter or None, None)` or `(None, problem)`.
    """
    wanted: dict[str, Any] = {}
    for key in FILTER_KEYS:
        value = arguments.get(key)
        if value is None or value == "" or value == []:
            continue
        if isinstance(value, str):
            wanted[key] = value.strip()
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            names = [v.strip() for v in value if v.strip()]
            if not names:
                continue
            wanted[key] = names[0] if len(names) == 1 else names
        else:
            return None, (
                f"the {key} filter must be a name or a list of names, got "
                f"{quote_value(value)}; leave it out to search every tool"
            )
    return (wanted or None), None


def _quoted_names(names: list[Any], joiner: str = ", ") -> str:
    """A few of `names`, each quoted short, and how many more there are."""
    shown = joiner.join(quote_value(name) for name in names[:MAX_QUOTED_NAMES])
    more = len(names) - MAX_QUOTED_NAMES
    return f"{shown} (and {more:,} more)" if more > 0 else shown


def _describe_filter(metadata_filter: Mapping[str, Any]) -> str:
    parts = []
    for key, value in metadata_filter.items():
        names = value if isinstance(value, list) else [value]
        parts.append(f"{key} {_quoted_names(names, ' or ')}")
    return " and ".join(parts)


@dataclass(frozen=True)
class SearchOutcome:
    """What a `tool_search` call found and the text answered to the model."""

    names: tuple[str, ...]
    text: str
    is_error: bool = False
    query: str = ""
    elapsed_ms: float = 0.0
    metadata_filter: Mapping[str, Any] | None = None


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
        return default, f"max_results must be a number, got {quote_value(value)}; used {default}"
    if isinstance(value, (int, float)):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return (
                default,
                f"max_results must be a number, got {quote_value(value)}; used {default}",
            )
    else:
        return default, f"max_results must be a number, got {quote_value(value)}; used {default}"
    if number != number:  # NaN
        return default, f"max_results must be a number, got {quote_value(value)}; used {default}"
    if number < 1:
        return 1, f"max_results must be at least 1, got {quote_value(value)}; used 1"
    if number > limit:
        return limit, f"max_results is at most {limit}, got {quote_value(value)}; used {limit}"
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
    filters: Mapping[str, Iterable[str]] | None = None,
    call_id: str | None = None,
    tool_name: str = SEARCH_TOOL_NAME,
) -> SearchOutcome:
    """Answer one `tool_search` call.

    `known(name)` returns the session's tool of that name (for `select:` and to drop hits
    the index holds but the session no longer has). `filters` (from `facets`) are the
    values an empty filtered search names to the model. With OpenTelemetry installed the
    search is traced and measured (`toolscout.telemetry`); `call_id` and `tool_name` (the
    search tool's name) go on the span.
    """
    search = functools.partial(
        _run_search,
        arguments,
        session_id=session_id,
        index=index,
        known=known,
        default_max_results=default_max_results,
        max_results_limit=max_results_limit,
        summaries=summaries,
        filters=filters,
    )
    if not telemetry.enabled():
        return search()
    with telemetry.search_span(index, call_id, tool_name) as span:
        outcome = search()
        span.finish(outcome)
    return outcome


def _run_search(
    arguments: Mapping[str, Any] | None,
    *,
    session_id: str,
    index: ToolIndex,
    known: Callable[[str], ToolReference | None],
    default_max_results: int,
    max_results_limit: int,
    summaries: bool,
    filters: Mapping[str, Iterable[str]] | None,
) -> SearchOutcome:
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
    queries, problem = _more_queries(query, arguments.get("queries"))
    if problem is None:
        metadata_filter, problem = parse_filter(arguments)
    if problem is not None:
        return SearchOutcome((), f"tool_search: {problem}", is_error=True, query=query)
    count, note = clamp_max_results(
        arguments.get("max_results"), default_max_results, max_results_limit
    )
    began = time.perf_counter()
    found = [_search(index, session_id, text, count, metadata_filter, known) for text in queries]
    elapsed = (time.perf_counter() - began) * 1000.0
    names = tuple(dict.fromkeys(hit.ref.name for hits, _, _ in found for hit in hits))
    shown = " | ".join(queries)
    responses = [response for _, _, response in found]
    if not names:
        text = _nothing_found(query, metadata_filter, filters, responses)
        if metadata_filter is not None:
            text += _unfiltered(index, session_id, query, known)
        text += _missing_words(index, session_id, queries, responses)
        return SearchOutcome(
            (), text, query=shown, elapsed_ms=elapsed, metadata_filter=metadata_filter
        )
    if len(queries) == 1:
        hits, total, _ = found[0]
        lines = [_header(len(hits), total, ":"), *(_line(hit, summaries) for hit in hits)]
    else:
        lines = [
            f"Found {len(names)} tool(s) for {len(queries)} queries, callable from your next turn:"
        ]
        listed: set[str] = set()
        for text, (hits, total, _) in zip(queries, found, strict=True):
            fresh = [hit for hit in hits if hit.ref.name not in listed]
            listed.update(hit.ref.name for hit in fresh)
            header = f"{quote_value(text)}: " + _header(len(hits), total, "", callable_=False)
            again = [hit.ref.name for hit in hits if hit not in fresh]
            if again:
                header += f" (also {', '.join(again)}, above)"
            lines.append(header)
            lines.extend(_line(hit, summaries) for hit in fresh)
    text = "\n".join(lines) + _missing_words(index, session_id, queries, responses)
    if note:
        text += f"\n(note: {note})"
    return SearchOutcome(
        names, text, query=shown, elapsed_ms=elapsed, metadata_filter=metadata_filter
    )


def _more_queries(query: str, more: object) -> tuple[list[str], str | None]:
    """`query` and the optional `queries` of a call, without blanks or repeats."""
    if more is None or more == "" or more == []:
        return [query], None
    if isinstance(more, str):
        more = [more]
    if not isinstance(more, (list, tuple)) or not all(isinstance(q, str) for q in more):
        return [], (
            f"queries must be a list of strings, got {quote_value(more)}; e.g. "
            '{"query": "book a flight", "queries": ["book a hotel"]}'
        )
    texts = list(dict.fromkeys(q.strip() for q in [query, *more] if q.strip()))
    if len(texts) > MAX_QUERIES:
        return [], f"at most {MAX_QUERIES} queries in one call, got {len(texts)}"
    return texts, None


def _header(shown: int, total: int, end: str, *, callable_: bool = True) -> str:
    """`Found 5 of 23 matching tools` (the count alone when every match is shown)."""
    if not shown:
        return "no tool matched"
    counted = f"{shown} of {total} matching tools" if total > shown else f"{shown} tool(s)"
    if not callable_:
        return counted + end
    return f"Found {counted}, callable from your next turn{end}"


def _missing_words(
    index: ToolIndex,
    session_id: str,
    queries: list[str],
    responses: Sequence[ToolSearchResponse | None],
) -> str:
    """`No tool mentions 'x'.` for the query words no tool of the session contains: as
    each search reported them (core's bases do), else read from the index."""
    if all(response is not None for response in responses) and reports_words(index):
        reported = [response for response in responses if response is not None]
        words = (word for response in reported for word in response.unmatched_words)
        missing = list(dict.fromkeys(words))[:MAX_LISTED_WORDS]
    else:
        missing = unmatched_words(index, session_id, " ".join(queries))
    if not missing:
        return ""
    return "\nNo tool mentions: " + _quoted_names(missing) + "."


def _unfiltered(
    index: ToolIndex, session_id: str, query: str, known: Callable[[str], ToolReference | None]
) -> str:
    """How many tools match without the filter (the model's next step is to drop it)."""
    hits, total, _ = _search(index, session_id, query, 1, None, known)
    if not hits:
        return ""
    return f" Without the filter {max(total, 1)} tool(s) match, e.g. {hits[0].ref.name}."


@dataclass(frozen=True)
class _Found:
    """A tool the search found, with the confidence core gave it (None: not computed)."""

    ref: ToolReference
    confidence: float | None = None


def _search(
    index: ToolIndex,
    session_id: str,
    query: str,
    count: int,
    metadata_filter: Mapping[str, Any] | None,
    known: Callable[[str], ToolReference | None],
) -> tuple[list[_Found], int, ToolSearchResponse | None]:
    """The session's tools the index finds, best first, at most `count`, filter applied;
    how many tools matched in all (at least those returned); and the index's response
    (None when the filter was applied here).

    An index without the `metadata_filter` capability (a third-party backend) is asked for
    more hits, which are filtered here with core's matcher.
    """
    capable = getattr(getattr(index, "capabilities", None), "metadata_filter", False)
    if metadata_filter is None or capable:
        request = ToolSearchRequest(session_id, query, count, metadata_filter)
        response = telemetry.traced_search(index, request)
        kept = [
            _Found(ref, hit.confidence)
            for hit in response.references
            if (ref := known(hit.name)) is not None
        ]
        return kept, max(response.total_matches, len(kept)), response
    wider = ToolSearchRequest(session_id, query, min(MAX_RESULTS_LIMIT, max(count * 10, 50)))
    filtered: list[_Found] = []
    for hit in telemetry.traced_search(index, wider).references:
        ref = known(hit.name)
        if ref is not None and matches(ref.metadata, metadata_filter):
            filtered.append(_Found(ref, hit.confidence))
            if len(filtered) == count:
                break
    return filtered, len(filtered), None


def _nothing_found(
    query: str,
    metadata_filter: Mapping[str, Any] | None,
    filters: Mapping[str, Iterable[str]] | None,
    responses: Sequence[ToolSearchResponse | None] = (),
) -> str:
    weak = [r.confidence for r in responses if r is not None and r.empty_reason == BELOW_CONFIDENCE]
    if metadata_filter is None and weak and len(weak) == len(responses):
        return (
            f"No tool fits {quote_value(query)} well enough: the nearest tools match with "
            f"confidence {max(c or 0.0 for c in weak):.2f}, too low to offer. This catalog may "
            "not have the capability; rephrase with other words for it (the action and the "
            "object: 'create invoice', 'weather forecast') or use select:name if you know "
            "the tool's name."
        )
    if metadata_filter is None:
        return (
            f"No tools matched {quote_value(query)}. Rephrase with other words for the capability "
            "(e.g. the action and the object: 'create invoice', 'weather forecast'), "
            "use fewer words, or select:name if you know the tool's name."
        )
    text = (
        f"No tools with {_describe_filter(metadata_filter)} matched {quote_value(query)}. Search "
        "without the filter, or rephrase with other words for the capability."
    )
    for key in metadata_filter:
        values = tuple((filters or {}).get(key, ()))
        title = _FILTER_TEXT[key][0]
        text += f" {title}: {_listing(values)}." if values else f" No tool has a {key}."
    return text


#: A hit less confident than this is shown to the model as a weak match (with its confidence).
WEAK_CONFIDENCE = 0.5


def _line(hit: _Found, summaries: bool) -> str:
    ref = hit.ref
    summary = ref.summary if summaries else ""
    line = f"- {ref.name}: {summary}" if summary else f"- {ref.name}"
    if hit.confidence is not None and hit.confidence < WEAK_CONFIDENCE:
        line += f" (weak match, confidence {hit.confidence:.2f})"
    return line


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
        parts.extend(_line(_Found(ref), summaries) for ref in found)
    if missing:
        named = _quoted_names(missing)
        count = f" ({len(missing):,} names)" if len(missing) > MAX_QUOTED_NAMES else ""
        parts.append(
            f"No tool is named {named}{count}; search by description to find the right name."
        )
    return SearchOutcome(
        tuple(ref.name for ref in found),
        "\n".join(parts),
        is_error=not found,
        query=query,
    )
