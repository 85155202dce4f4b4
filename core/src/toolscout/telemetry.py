"""OpenTelemetry spans and metrics for tool searches and model requests.

Only the API (`opentelemetry-api`, the `toolscout[telemetry]` extra) is used, imported on
first use; without it every function here is a no-op. Telemetry goes to the global
tracer and meter providers your application configures with the OpenTelemetry SDK, or to
the ones given to `configure`. Nothing is counted or recorded while no provider listens.

Spans (GenAI semantic conventions where they apply):

- `retrieval` per index search (`gen_ai.operation.name = retrieval`, kind INTERNAL, the
  GenAI conventions' retrieval span): `gen_ai.data_source.id` and `toolscout.backend` (the
  backend's name), `gen_ai.retrieval.top_k`, `toolscout.search.query_length`,
  `toolscout.search.filter`, `toolscout.search.hits`, `toolscout.search.total_matches`,
  `toolscout.search.confidence`, `toolscout.search.empty_reason`, `error.type` when it
  failed; opt-in (`configure(record_query=True, record_documents=True)`):
  `gen_ai.retrieval.query.text` (redacted) and `gen_ai.retrieval.documents`;
- `execute_tool {tool}` per search tool call, the parent of its retrieval spans
  (`gen_ai.operation.name = execute_tool`, kind INTERNAL):
  `gen_ai.tool.name`, `gen_ai.tool.type`, `gen_ai.tool.call.id`, `toolscout.backend`,
  `toolscout.search.query_length`, `toolscout.search.hits`, `toolscout.search.latency_ms`,
  `toolscout.search.filter` (the filtered keys), `error.type` when it failed;
- `invoke_agent toolscout.advisor` per advisor run (`gen_ai.operation.name =
  invoke_agent`): `gen_ai.agent.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens`,
  `gen_ai.usage.output_tokens`, `toolscout.session.search` (auto mode's decision),
  `toolscout.requests`, `toolscout.tool_tokens.sent` / `.catalog` (summed over the
  requests), and one `toolscout.request` event per model request.

Metrics:

- `toolscout.search.duration` (histogram, s): the index's time per search, by
  `toolscout.backend` (and `error.type`);
- `toolscout.search.hits` (histogram, {tool}): tools a search returned, by backend;
- `toolscout.request.tool_tokens` (histogram, {token}): the tool-definition tokens of each
  model request, by `toolscout.tool_tokens.type`: `sent` (what the request carried with
  toolscout) and `catalog` (every tool, what it would carry without toolscout); counted
  offline with `toolscout.tokens` (o200k_base, OpenAI function definitions);
- `toolscout.request.prompt_tokens` (histogram, {token}): the prompt tokens the provider
  reported for each model request, by `toolscout.prompt_tokens.type`: `input` (all of
  them), `cache_read` (served from the provider's prompt cache: OpenAI `cached_tokens`,
  Anthropic `cache_read_input_tokens`) and `cache_write` (Anthropic
  `cache_creation_input_tokens`). Beside the tool tokens they show what discovery costs in
  cache misses: a request whose tools array changed reads less from the cache.

Query texts and tool arguments are not recorded (only their length) unless
`configure(record_query=True)` asks for the query text, which then passes through
`toolscout.redaction` first.
"""

from __future__ import annotations

import importlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from toolscout.types import ToolReference, ToolSearchRequest, ToolSearchResponse

__all__ = [
    "INSTRUMENTATION_SCOPE",
    "RequestTokens",
    "RunTelemetry",
    "SearchSpan",
    "configure",
    "enabled",
    "record_request_tools",
    "record_request_usage",
    "run_span",
    "search_span",
    "traced_search",
]

INSTRUMENTATION_SCOPE = "toolscout"

# Attribute names (GenAI semantic conventions, and toolscout's own under `toolscout.`).
OPERATION = "gen_ai.operation.name"
TOOL_NAME = "gen_ai.tool.name"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_CALL_ID = "gen_ai.tool.call.id"
AGENT_NAME = "gen_ai.agent.name"
REQUEST_MODEL = "gen_ai.request.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
ERROR_TYPE = "error.type"
BACKEND = "toolscout.backend"
TOKENS_TYPE = "toolscout.tool_tokens.type"
PROMPT_TYPE = "toolscout.prompt_tokens.type"
RETRIEVAL = "retrieval"
DATA_SOURCE_ID = "gen_ai.data_source.id"
RETRIEVAL_TOP_K = "gen_ai.retrieval.top_k"
RETRIEVAL_QUERY = "gen_ai.retrieval.query.text"
RETRIEVAL_DOCUMENTS = "gen_ai.retrieval.documents"

AGENT = "toolscout.advisor"

# The API's defaults before an SDK provider is set: nothing listens to them.
_NO_PROVIDERS = frozenset(
    {"NoOpMeterProvider", "NoOpTracerProvider", "ProxyTracerProvider", "_ProxyMeterProvider"}
)
_lock = threading.Lock()
_state: dict[str, Any] = {}


def _modules() -> tuple[Any, Any] | None:
    """(`opentelemetry.trace`, `opentelemetry.metrics`), or None without the API."""
    cached = _state.get("modules", False)
    if cached is not False:
        return cached  # type: ignore[no-any-return]
    try:
        modules: tuple[Any, Any] | None = (
            importlib.import_module("opentelemetry.trace"),
            importlib.import_module("opentelemetry.metrics"),
        )
    except ImportError:
        modules = None
    _state["modules"] = modules
    return modules


def configure(
    *,
    tracer_provider: Any = None,
    meter_provider: Any = None,
    enabled: bool = True,
    record_query: bool = False,
    record_documents: bool = False,
) -> None:
    """Send toolscout's telemetry to these providers instead of the global ones.

    `enabled=False` turns it off (no spans, no metrics, no token counting). Calling it
    again replaces the earlier choice; `configure()` goes back to the global providers.
    `record_query=True` puts each search's query text on its retrieval span (after
    redaction: a query may quote a token), `record_documents=True` the tools it found
    with their scores; both are off by default, as the GenAI conventions have them opt-in.
    """
    with _lock:
        modules = _state.get("modules", False)
        _state.clear()
        if modules is not False:
            _state["modules"] = modules
        _state["tracer_provider"] = tracer_provider
        _state["meter_provider"] = meter_provider
        _state["enabled"] = enabled
        _state["record_query"] = record_query
        _state["record_documents"] = record_documents


def _instruments() -> dict[str, Any] | None:
    """The tracer and the metric instruments, made once per configuration."""
    if not _state.get("enabled", True):
        return None
    made = _state.get("instruments")
    if made is not None:
        return made  # type: ignore[no-any-return]
    modules = _modules()
    if modules is None:
        return None
    trace, metrics = modules
    with _lock:
        made = _state.get("instruments")
        if made is not None:
            return made  # type: ignore[no-any-return]
        from toolscout import __version__

        tracer_provider = _state.get("tracer_provider")
        meter_provider = _state.get("meter_provider")
        tracer = trace.get_tracer(INSTRUMENTATION_SCOPE, __version__, tracer_provider)
        meter = metrics.get_meter(INSTRUMENTATION_SCOPE, __version__, meter_provider)
        made = {
            "trace": trace,
            "metrics": metrics,
            "tracer": tracer,
            "search_duration": meter.create_histogram(
                "toolscout.search.duration",
                unit="s",
                description="Time the index took to answer a tool search",
            ),
            "search_hits": meter.create_histogram(
                "toolscout.search.hits",
                unit="{tool}",
                description="Tools a tool search returned",
            ),
            "tool_tokens": meter.create_histogram(
                "toolscout.request.tool_tokens",
                unit="{token}",
                description=(
                    "Tool-definition tokens of a model request: sent (with toolscout) and "
                    "catalog (every tool, without toolscout)"
                ),
            ),
            "prompt_tokens": meter.create_histogram(
                "toolscout.request.prompt_tokens",
                unit="{token}",
                description=(
                    "Prompt tokens the provider reported for a model request: input, "
                    "cache_read (from its prompt cache) and cache_write"
                ),
            ),
        }
        _state["instruments"] = made
        return made


def _provider_listens(kind: str) -> bool:
    modules = _modules()
    if modules is None:
        return False
    trace, metrics = modules
    if kind == "meter":
        provider = _state.get("meter_provider") or metrics.get_meter_provider()
    else:
        provider = _state.get("tracer_provider") or trace.get_tracer_provider()
    return type(provider).__name__ not in _NO_PROVIDERS


def enabled() -> bool:
    """Whether a tracer or meter provider listens (then toolscout records telemetry)."""
    if not _state.get("enabled", True) or _modules() is None:
        return False
    return _provider_listens("meter") or _provider_listens("tracer")


# --- searches ------------------------------------------------------------------------------


class SearchOutcome(Protocol):
    """What a span records of a search (`toolscout.advisor.search_tool.SearchOutcome` has
    it; telemetry names only the fields, so it does not import the search tool)."""

    @property
    def query(self) -> str: ...
    @property
    def names(self) -> Sequence[str]: ...
    @property
    def elapsed_ms(self) -> float: ...
    @property
    def metadata_filter(self) -> Mapping[str, Any] | None: ...
    @property
    def is_error(self) -> bool: ...


class SearchSpan:
    """The span of one search; `finish(outcome)` records what it found."""

    def __init__(self, span: Any, instruments: dict[str, Any] | None, backend: str) -> None:
        self.span = span
        self.instruments = instruments
        self.backend = backend
        self.began = time.perf_counter()
        self.outcome: SearchOutcome | None = None

    def finish(self, outcome: SearchOutcome) -> None:
        self.outcome = outcome
        if self.instruments is None:
            return
        span = self.span
        if span is not None and span.is_recording():
            span.set_attribute("toolscout.search.query_length", len(outcome.query))
            span.set_attribute("toolscout.search.hits", len(outcome.names))
            span.set_attribute("toolscout.search.latency_ms", round(outcome.elapsed_ms, 3))
            if outcome.metadata_filter:
                span.set_attribute("toolscout.search.filter", sorted(outcome.metadata_filter))
            if outcome.is_error:
                span.set_attribute(ERROR_TYPE, "invalid_arguments")
                status = self.instruments["trace"].Status(
                    self.instruments["trace"].StatusCode.ERROR, "the search call was invalid"
                )
                span.set_status(status)
        attributes = {BACKEND: self.backend}
        if outcome.is_error:
            attributes[ERROR_TYPE] = "invalid_arguments"
        self.instruments["search_duration"].record(outcome.elapsed_ms / 1000.0, attributes)
        if not outcome.is_error:
            self.instruments["search_hits"].record(len(outcome.names), {BACKEND: self.backend})


@contextmanager
def search_span(
    index: Any, call_id: str | None = None, tool_name: str = "tool_search"
) -> Iterator[SearchSpan]:
    """A span around one search (`execute_tool {tool_name}`); no-op without OpenTelemetry."""
    backend = str(getattr(index, "name", None) or type(index).__name__)
    instruments = _instruments() if enabled() else None
    if instruments is None:
        yield SearchSpan(None, None, backend)
        return
    attributes: dict[str, Any] = {
        OPERATION: "execute_tool",
        TOOL_NAME: tool_name,
        TOOL_TYPE: "function",
        BACKEND: backend,
    }
    if call_id:
        attributes[TOOL_CALL_ID] = call_id
    trace = instruments["trace"]
    with instruments["tracer"].start_as_current_span(
        f"execute_tool {tool_name}",
        kind=trace.SpanKind.INTERNAL,
        attributes=attributes,
        record_exception=True,
        set_status_on_exception=True,
    ) as span:
        handle = SearchSpan(span, instruments, backend)
        try:
            yield handle
        except BaseException as error:
            if span.is_recording():
                span.set_attribute(ERROR_TYPE, type(error).__qualname__)
            instruments["search_duration"].record(
                time.perf_counter() - handle.began,
                {BACKEND: backend, ERROR_TYPE: type(error).__qualname__},
            )
            raise


def traced_search(index: Any, request: ToolSearchRequest) -> ToolSearchResponse:
    """`index.search(request)`, as a `retrieval` span when a provider listens.

    Every front door that searches (the search tool, the MCP gateway) calls this, so each
    index search shows up as the GenAI conventions' retrieval operation.
    """
    instruments = _instruments() if enabled() else None
    if instruments is None:
        response: ToolSearchResponse = index.search(request)
        return response
    backend = str(getattr(index, "name", None) or type(index).__name__)
    attributes: dict[str, Any] = {
        OPERATION: RETRIEVAL,
        DATA_SOURCE_ID: backend,
        BACKEND: backend,
        "toolscout.search.query_length": len(request.query),
    }
    if request.max_results is not None:
        attributes[RETRIEVAL_TOP_K] = request.max_results
    if request.metadata_filter:
        attributes["toolscout.search.filter"] = sorted(request.metadata_filter)
    if _state.get("record_query"):
        from toolscout.redaction import redact_text

        attributes[RETRIEVAL_QUERY] = redact_text(request.query)
    trace = instruments["trace"]
    with instruments["tracer"].start_as_current_span(
        RETRIEVAL,  # the conventions name the span after the operation alone
        kind=trace.SpanKind.INTERNAL,
        attributes=attributes,
        record_exception=True,
        set_status_on_exception=True,
    ) as span:
        try:
            response = index.search(request)
        except BaseException as error:
            if span.is_recording():
                span.set_attribute(ERROR_TYPE, type(error).__qualname__)
            raise
        if span.is_recording():
            _record_response(span, response)
        return response


def _record_response(span: Any, response: ToolSearchResponse) -> None:
    span.set_attribute("toolscout.search.hits", len(response))
    span.set_attribute("toolscout.search.total_matches", response.total_matches)
    if response.confidence is not None:
        span.set_attribute("toolscout.search.confidence", response.confidence)
    if response.empty_reason:
        span.set_attribute("toolscout.search.empty_reason", response.empty_reason)
    if _state.get("record_documents"):
        # The conventions' shape ({id, score} per document) as JSON: span attributes
        # take no list of objects.
        documents = [{"id": hit.name, "score": hit.score} for hit in response.references]
        span.set_attribute(RETRIEVAL_DOCUMENTS, json.dumps(documents))


# --- requests and runs ---------------------------------------------------------------------

_CATALOG_CACHE = 64
_catalog_tokens: OrderedDict[str, int] = OrderedDict()


class RequestTokens:
    """Tool-definition tokens of one request: `sent` with toolscout, `catalog` without."""

    __slots__ = ("catalog", "sent")

    def __init__(self, sent: int, catalog: int) -> None:
        self.sent = sent
        self.catalog = catalog


def _tokens(tools: Sequence[ToolReference]) -> int:
    from toolscout.tokens import tool_tokens

    return tool_tokens(tools)


def catalog_tokens(fingerprint: str, tools: Sequence[ToolReference]) -> int:
    """Tokens of every tool (what a request without toolscout carries), cached per set."""
    with _lock:
        cached = _catalog_tokens.get(fingerprint)
        if cached is not None:
            _catalog_tokens.move_to_end(fingerprint)
            return cached
    tokens = _tokens(tools)
    with _lock:
        _catalog_tokens[fingerprint] = tokens
        while len(_catalog_tokens) > _CATALOG_CACHE:
            _catalog_tokens.popitem(last=False)
    return tokens


def record_request_tools(
    sent: Sequence[ToolReference],
    catalog: Sequence[ToolReference],
    fingerprint: str | None = None,
) -> RequestTokens | None:
    """Record one model request's tool tokens (`sent`) against every tool's (`catalog`).

    For integrations that build requests themselves; the advisor calls it for each request.
    `fingerprint` (of `catalog`, e.g. `ToolRegistry.fingerprint`) caches the catalog's
    count. Returns the counts, or None when no meter or tracer provider listens.
    """
    if not enabled():
        return None
    instruments = _instruments()
    if instruments is None:
        return None
    from toolscout.session import tool_set_fingerprint

    counts = RequestTokens(
        _tokens(sent),
        catalog_tokens(fingerprint or tool_set_fingerprint(catalog), catalog),
    )
    histogram = instruments["tool_tokens"]
    histogram.record(counts.sent, {TOKENS_TYPE: "sent"})
    histogram.record(counts.catalog, {TOKENS_TYPE: "catalog"})
    return counts


class ReportedUsage(Protocol):
    """What `record_request_usage` reads (`toolscout.advisor.Usage` has it)."""

    @property
    def input_tokens(self) -> int: ...

    @property
    def cache_read_tokens(self) -> int: ...

    @property
    def cache_write_tokens(self) -> int: ...


def record_request_usage(usage: ReportedUsage) -> bool:
    """Record one model request's prompt tokens as the provider reported them.

    `input`, `cache_read` and `cache_write` (the last only when reported, i.e. Anthropic's
    cache writes). Returns False when no meter or tracer provider listens.
    """
    if not enabled():
        return False
    instruments = _instruments()
    if instruments is None:
        return False
    histogram = instruments["prompt_tokens"]
    histogram.record(usage.input_tokens, {PROMPT_TYPE: "input"})
    histogram.record(usage.cache_read_tokens, {PROMPT_TYPE: "cache_read"})
    if usage.cache_write_tokens:
        histogram.record(usage.cache_write_tokens, {PROMPT_TYPE: "cache_write"})
    return True


class RunTelemetry:
    """What one advisor run records: the `invoke_agent` span and per-request tokens.

    `active` is decided once per run (whether a provider listens), so a run nobody
    observes pays nothing per request.
    """

    def __init__(self, span: Any, active: bool = False) -> None:
        self.span = span
        self.active = active
        self.requests = 0
        self.sent = 0
        self.catalog = 0
        self.cache_read = 0
        self.cache_write = 0

    def request(
        self,
        sent: Sequence[ToolReference],
        catalog: Sequence[ToolReference],
        fingerprint: str,
        deferred: int = 0,
    ) -> None:
        """Record one model request (its tools against every tool)."""
        self.requests += 1
        if not self.active:
            return
        counts = record_request_tools(sent, catalog, fingerprint)
        if counts is None:
            return
        self.sent += counts.sent
        self.catalog += counts.catalog
        if self.span is not None and self.span.is_recording():
            self.span.add_event(
                "toolscout.request",
                {
                    "toolscout.request.number": self.requests,
                    "toolscout.request.tools": len(sent),
                    "toolscout.request.deferred_tools": deferred,
                    "toolscout.tool_tokens.sent": counts.sent,
                    "toolscout.tool_tokens.catalog": counts.catalog,
                },
            )

    def response(self, usage: ReportedUsage | None) -> None:
        """Record one model reply's reported prompt tokens (cache reads and writes)."""
        if not self.active or usage is None or not record_request_usage(usage):
            return
        self.cache_read += usage.cache_read_tokens
        self.cache_write += usage.cache_write_tokens

    def finish(self, input_tokens: int, output_tokens: int) -> None:
        span = self.span
        if span is None or not span.is_recording():
            return
        span.set_attribute("toolscout.requests", self.requests)
        span.set_attribute(INPUT_TOKENS, input_tokens)
        span.set_attribute(OUTPUT_TOKENS, output_tokens)
        span.set_attribute("toolscout.usage.cache_read_tokens", self.cache_read)
        span.set_attribute("toolscout.usage.cache_write_tokens", self.cache_write)
        if self.sent or self.catalog:
            span.set_attribute("toolscout.tool_tokens.sent", self.sent)
            span.set_attribute("toolscout.tool_tokens.catalog", self.catalog)


@contextmanager
def run_span(
    model: Any, *, search: bool, native: bool, attributes: Mapping[str, Any] | None = None
) -> Iterator[RunTelemetry]:
    """The `invoke_agent toolscout.advisor` span of one advisor run."""
    instruments = _instruments() if enabled() else None
    if instruments is None:
        yield RunTelemetry(None)
        return
    values: dict[str, Any] = {
        OPERATION: "invoke_agent",
        AGENT_NAME: AGENT,
        "toolscout.session.search": search,
        "toolscout.native": native,
        **(attributes or {}),
    }
    name = getattr(model, "model", None)
    if isinstance(name, str) and name:
        values[REQUEST_MODEL] = name
    trace = instruments["trace"]
    with instruments["tracer"].start_as_current_span(
        f"invoke_agent {AGENT}", kind=trace.SpanKind.INTERNAL, attributes=values
    ) as span:
        try:
            yield RunTelemetry(span, active=True)
        except BaseException as error:
            if span.is_recording():
                span.set_attribute(ERROR_TYPE, type(error).__qualname__)
            raise
