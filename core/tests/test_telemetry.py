"""OpenTelemetry: search spans and metrics, the advisor's run span and per-request tokens.

Recorded with the SDK's in-memory exporter and reader (test-only); toolscout itself uses
the API alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from toolscout import telemetry
from toolscout.advisor import Advisor, ToolRegistry, Usage
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout.advisor.search_tool import run_search
from toolscout.testing import ReferenceToolIndex
from toolscout.tokens import tool_tokens
from toolscout.types import ToolReference, ToolSearchRequest

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
sdk_metrics = pytest.importorskip("opentelemetry.sdk.metrics")
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402

TOOLS = [
    ToolReference("get_weather", "Get the weather forecast for a city."),
    ToolReference("send_email", "Send an email to a recipient.", metadata={"server": "mail"}),
    ToolReference("create_invoice", "Create an invoice for a customer."),
]
BY_NAME = {ref.name: ref for ref in TOOLS}


class Recorded:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.reader = InMemoryMetricReader()
        self.tracer_provider = sdk_trace.TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.meter_provider = sdk_metrics.MeterProvider(metric_readers=[self.reader])

    def finished(self) -> list[Any]:
        return list(self.spans.get_finished_spans())

    def points(self, name: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(metric.data.data_points)
        return found


@pytest.fixture
def otel() -> Iterator[Recorded]:
    recorded = Recorded()
    telemetry.configure(
        tracer_provider=recorded.tracer_provider, meter_provider=recorded.meter_provider
    )
    try:
        yield recorded
    finally:
        telemetry.configure()


@pytest.fixture
def index() -> ReferenceToolIndex:
    index = ReferenceToolIndex()
    index.index_tools("s", TOOLS)
    return index


def search(index: Any, call_id: str | None = "call_1", **arguments: object) -> Any:
    return run_search(
        arguments,
        session_id="s",
        index=index,
        known=BY_NAME.get,
        default_max_results=5,
        max_results_limit=20,
        call_id=call_id,
    )


def test_nothing_is_recorded_while_no_provider_listens(index: ReferenceToolIndex) -> None:
    telemetry.configure()
    assert telemetry.enabled() is False  # the API's default providers: nobody listens
    assert search(index, query="weather").names[0] == "get_weather"
    assert telemetry.record_request_tools(TOOLS[:1], TOOLS) is None


def spans_named(otel: Recorded, name: str) -> list[Any]:
    return [span for span in otel.finished() if span.name == name]


def test_a_search_is_an_execute_tool_span(otel: Recorded, index: ReferenceToolIndex) -> None:
    outcome = search(index, query="weather forecast", server=["mail", "x"])
    (span,) = spans_named(otel, "execute_tool tool_search")
    assert span.kind is SpanKind.INTERNAL
    attributes = dict(span.attributes)
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "tool_search"
    assert attributes["gen_ai.tool.type"] == "function"
    assert attributes["gen_ai.tool.call.id"] == "call_1"
    assert attributes["toolscout.backend"] == "reference"
    assert attributes["toolscout.search.query_length"] == len("weather forecast")
    assert attributes["toolscout.search.hits"] == len(outcome.names)
    assert attributes["toolscout.search.latency_ms"] >= 0
    assert attributes["toolscout.search.filter"] == ("server",)
    assert "weather" not in str(attributes)  # the query text is never recorded
    assert span.status.status_code is StatusCode.UNSET


def test_each_index_search_is_a_retrieval_span_under_the_tool_call(
    otel: Recorded, index: ReferenceToolIndex
) -> None:
    outcome = search(index, query="weather forecast", max_results=3)
    (call,) = spans_named(otel, "execute_tool tool_search")
    (retrieval,) = spans_named(otel, "retrieval")
    assert retrieval.parent is not None and retrieval.parent.span_id == call.context.span_id
    assert retrieval.kind is SpanKind.INTERNAL
    attributes = dict(retrieval.attributes)
    assert attributes["gen_ai.operation.name"] == "retrieval"
    assert attributes["gen_ai.data_source.id"] == "reference"
    assert attributes["toolscout.backend"] == "reference"
    assert attributes["gen_ai.retrieval.top_k"] == 3
    assert attributes["toolscout.search.query_length"] == len("weather forecast")
    assert attributes["toolscout.search.hits"] == len(outcome.names) >= 1
    assert attributes["toolscout.search.total_matches"] >= 1
    assert "weather" not in str(attributes)  # no query text unless asked for
    assert "gen_ai.retrieval.documents" not in attributes


def test_several_queries_in_one_call_are_one_retrieval_each(
    otel: Recorded, index: ReferenceToolIndex
) -> None:
    search(index, query="weather", queries=["send an email", "invoice"])
    assert len(spans_named(otel, "retrieval")) == 3
    assert len(spans_named(otel, "execute_tool tool_search")) == 1


def test_an_empty_answer_says_why_on_its_retrieval_span(
    otel: Recorded, index: ReferenceToolIndex
) -> None:
    search(index, query="zebra quantum")
    (retrieval,) = spans_named(otel, "retrieval")
    assert retrieval.attributes["toolscout.search.hits"] == 0
    assert retrieval.attributes["toolscout.search.total_matches"] == 0


def test_the_query_text_is_recorded_redacted_only_when_asked(
    otel: Recorded, index: ReferenceToolIndex
) -> None:
    telemetry.configure(
        tracer_provider=otel.tracer_provider,
        meter_provider=otel.meter_provider,
        record_query=True,
        record_documents=True,
    )
    query = "weather from https://bob:hunter2hunter2@weather.example.com/api"
    outcome = search(index, query=query, max_results=2)
    (retrieval,) = spans_named(otel, "retrieval")
    text = retrieval.attributes["gen_ai.retrieval.query.text"]
    assert text.startswith("weather from https://")
    assert "hunter2hunter2" not in text  # the URL's password is blanked
    documents = json.loads(retrieval.attributes["gen_ai.retrieval.documents"])
    assert [document["id"] for document in documents] == list(outcome.names)
    assert all(isinstance(document["score"], float) for document in documents)
    (call,) = spans_named(otel, "execute_tool tool_search")
    assert "hunter2hunter2" not in str(dict(call.attributes))


def test_traced_search_without_a_provider_is_the_plain_search(
    index: ReferenceToolIndex,
) -> None:
    telemetry.configure()
    request = ToolSearchRequest("s", "weather", 2)
    assert telemetry.traced_search(index, request).names == index.search(request).names


def test_search_metrics_by_backend(otel: Recorded, index: ReferenceToolIndex) -> None:
    search(index, query="weather")
    search(index, query="invoice email weather")
    (duration,) = otel.points("toolscout.search.duration")
    assert duration.count == 2 and duration.sum >= 0
    assert dict(duration.attributes) == {"toolscout.backend": "reference"}
    (hits,) = otel.points("toolscout.search.hits")
    assert hits.count == 2 and hits.sum >= 2


def test_an_invalid_search_call_is_marked(otel: Recorded, index: ReferenceToolIndex) -> None:
    outcome = search(index, query="")
    assert outcome.is_error
    (span,) = otel.finished()  # no index search, so no retrieval span
    assert span.attributes["error.type"] == "invalid_arguments"
    assert span.status.status_code is StatusCode.ERROR
    (duration,) = otel.points("toolscout.search.duration")
    assert duration.attributes["error.type"] == "invalid_arguments"
    assert otel.points("toolscout.search.hits") == []


class Broken(ReferenceToolIndex):
    name = "broken"

    def search(self, request: Any) -> Any:
        raise ConnectionError("index down")


def test_a_failing_index_ends_the_span_with_the_error(otel: Recorded) -> None:
    broken = Broken()
    with pytest.raises(ConnectionError):
        search(broken, query="weather")
    retrieval, span = otel.finished()  # the child ends first
    for ended in (retrieval, span):
        assert ended.status.status_code is StatusCode.ERROR
        assert ended.attributes["error.type"] == "ConnectionError"
        assert ended.attributes["toolscout.backend"] == "broken"
        assert [event.name for event in ended.events] == ["exception"]
    assert retrieval.name == "retrieval"


def registry() -> ToolRegistry:
    tools = ToolRegistry()
    for ref in TOOLS:
        tools.add_definition(ref, lambda **_: "done")
    return tools


def test_an_advisor_run_records_its_requests(otel: Recorded) -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="weather forecast")),
            calls(call("get_weather", city="Oslo")),
            answer("sunny"),
        ]
    )
    advisor = Advisor(model, registry(), ReferenceToolIndex(), auto=False)
    result = advisor.run("weather?")
    spans = {span.name: span for span in otel.finished()}
    run = spans["invoke_agent toolscout.advisor"]
    search_span = spans["execute_tool tool_search"]
    assert search_span.parent is not None
    assert search_span.parent.span_id == run.context.span_id
    attributes = dict(run.attributes)
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["gen_ai.agent.name"] == "toolscout.advisor"
    assert attributes["toolscout.session.search"] is True
    assert attributes["toolscout.backend"] == "reference"
    assert attributes["toolscout.requests"] == 3
    assert attributes["gen_ai.usage.input_tokens"] == result.usage.input_tokens == 30
    assert attributes["gen_ai.usage.output_tokens"] == 15
    # Per request: the tools sent against every tool.
    catalog = tool_tokens(TOOLS)
    sent = [tool_tokens(request.tools) for request in model.requests]
    events = [event for event in run.events if event.name == "toolscout.request"]
    assert [e.attributes["toolscout.tool_tokens.sent"] for e in events] == sent
    assert {e.attributes["toolscout.tool_tokens.catalog"] for e in events} == {catalog}
    assert attributes["toolscout.tool_tokens.sent"] == sum(sent)
    assert attributes["toolscout.tool_tokens.catalog"] == 3 * catalog
    points = {
        p.attributes["toolscout.tool_tokens.type"]: p
        for p in otel.points("toolscout.request.tool_tokens")
    }
    assert points["sent"].count == 3 and points["sent"].sum == sum(sent)
    assert points["catalog"].count == 3 and points["catalog"].sum == 3 * catalog


def test_an_advisor_run_records_the_cached_prompt_tokens_the_provider_reported(
    otel: Recorded,
) -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="weather forecast"), usage=Usage(900, 5, 0, 800)),
            calls(call("get_weather", city="Oslo"), usage=Usage(1000, 5, 768, 0)),
            answer("sunny", usage=Usage(1100, 5, 1024, 0)),
        ]
    )
    Advisor(model, registry(), ReferenceToolIndex(), auto=False).run("weather?")
    points = {
        p.attributes["toolscout.prompt_tokens.type"]: p
        for p in otel.points("toolscout.request.prompt_tokens")
    }
    assert points["input"].count == 3 and points["input"].sum == 3000
    assert points["cache_read"].count == 3 and points["cache_read"].sum == 1792
    assert points["cache_write"].count == 1 and points["cache_write"].sum == 800
    (run,) = [span for span in otel.finished() if span.name.startswith("invoke_agent")]
    assert run.attributes["toolscout.usage.cache_read_tokens"] == 1792
    assert run.attributes["toolscout.usage.cache_write_tokens"] == 800


def test_usage_of_reads_every_dialects_cache_fields() -> None:
    chat = {
        "prompt_tokens": 50,
        "completion_tokens": 3,
        "prompt_tokens_details": {"cached_tokens": 32},
    }
    responses = {
        "input_tokens": 50,
        "output_tokens": 3,
        "input_tokens_details": {"cached_tokens": 16},
    }
    anthropic = {
        "input_tokens": 50,
        "output_tokens": 3,
        "cache_read_input_tokens": 40,
        "cache_creation_input_tokens": 7,
    }
    assert Usage.of(chat) == Usage(50, 3, 32, 0)
    assert Usage.of(responses) == Usage(50, 3, 16, 0)
    assert Usage.of(anthropic) == Usage(50, 3, 40, 7)
    assert Usage.of(None) is None


def test_a_run_without_search_records_equal_counts(otel: Recorded) -> None:
    model = ScriptedChatModel([answer("ok")])
    Advisor(model, registry(), ReferenceToolIndex()).run("hi")  # auto mode: 3 tools, no search
    (run,) = otel.finished()
    assert run.attributes["toolscout.session.search"] is False
    assert run.attributes["toolscout.tool_tokens.sent"] == tool_tokens(TOOLS)
    assert run.attributes["toolscout.tool_tokens.catalog"] == tool_tokens(TOOLS)


def test_a_failed_run_ends_its_span_with_the_error(otel: Recorded) -> None:
    model = ScriptedChatModel([calls(call("tool_search", query="x"))] * 2)
    advisor = Advisor(model, registry(), ReferenceToolIndex(), auto=False, max_iterations=2)
    with pytest.raises(Exception, match="still calling tools"):
        advisor.run("loop")
    run = next(s for s in otel.finished() if s.name.startswith("invoke_agent"))
    assert run.attributes["error.type"] == "AdvisorLoopError"
    assert run.status.status_code is StatusCode.ERROR
    assert run.attributes["toolscout.requests"] == 2


def test_configure_disabled_records_nothing(index: ReferenceToolIndex) -> None:
    recorded = Recorded()
    telemetry.configure(
        tracer_provider=recorded.tracer_provider,
        meter_provider=recorded.meter_provider,
        enabled=False,
    )
    try:
        search(index, query="weather")
        assert telemetry.enabled() is False
        assert recorded.finished() == [] and recorded.points("toolscout.search.duration") == []
    finally:
        telemetry.configure()


def test_without_the_api_everything_is_a_no_op(
    index: ReferenceToolIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(telemetry._state, "modules", None)
    assert telemetry.enabled() is False
    assert search(index, query="weather").names[0] == "get_weather"
    with telemetry.run_span(object(), search=True, native=False) as run:
        run.request(TOOLS, TOOLS, "fp")
        run.finish(1, 2)
    assert run.requests == 1 and run.sent == 0


def test_importing_toolscout_does_not_import_opentelemetry() -> None:
    code = (
        "import sys, toolscout, toolscout.telemetry, toolscout.advisor; "
        "print(any(m.startswith('opentelemetry') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


GLOBAL_PROVIDERS = """
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from toolscout import telemetry
from toolscout.advisor import Advisor, ToolRegistry, Usage
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout.testing import ReferenceToolIndex

# toolscout is used before the application sets its providers: it must follow them.
assert telemetry.enabled() is False
spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(spans))
trace.set_tracer_provider(provider)
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
assert telemetry.enabled() is True

def get_weather(city: str) -> str:
    "Get the weather."
    return "sunny"

model = ScriptedChatModel([calls(call("tool_search", query="weather")), answer("ok")])
Advisor(model, ToolRegistry([get_weather]), ReferenceToolIndex(), auto=False).run("x")
print(sorted(span.name for span in spans.get_finished_spans()))
data = reader.get_metrics_data()
print(sorted(m.name for r in data.resource_metrics for s in r.scope_metrics for m in s.metrics))
"""


def test_the_global_providers_set_by_the_application_are_followed() -> None:
    out = subprocess.run(
        [sys.executable, "-c", GLOBAL_PROVIDERS], capture_output=True, text=True, check=True
    )
    spans, metrics = out.stdout.strip().splitlines()
    assert spans == "['execute_tool tool_search', 'invoke_agent toolscout.advisor', 'retrieval']"
    assert metrics == (
        "['toolscout.request.prompt_tokens', 'toolscout.request.tool_tokens', "
        "'toolscout.search.duration', 'toolscout.search.hits']"
    )
