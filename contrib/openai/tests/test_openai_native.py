"""OpenAI Responses native tool search (client execution), through the real `openai` client.

The local wire server replays the documented output items (`tool_search_call` with
`execution: "client"`); the request bodies the client sent are asserted, and every tool and
input item toolscout sends is validated against the `openai` package's own types
(`openai.types.responses`), so the shapes are the SDK's, not a guess.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from openai.types.responses import (
    NamespaceToolParam,
    ResponseToolSearchCall,
    ToolSearchToolParam,
)
from openai.types.responses.function_tool_param import FunctionToolParam
from openai.types.responses.response_input_item_param import (
    FunctionCallOutput,
    ToolSearchCall,
)
from openai.types.responses.response_tool_search_output_item_param_param import (
    ResponseToolSearchOutputItemParamParam,
)
from openai.types.responses.tool_search_output_namespace_tool_param import (
    ToolSearchOutputNamespaceToolParam,
)
from pydantic import TypeAdapter
from test_openai_advisor import Responses
from toolscout.advisor import Advisor, ToolRegistry
from toolscout.auto import AutoThreshold
from toolscout.testing import ReferenceToolIndex
from toolscout.testing.wire import WireServer
from toolscout.types import ToolReference
from toolscout_openai import OpenAIResponsesModel
from toolscout_openai.responses import metadata_namespace, prefix_namespaces

API = Responses()
CALENDAR = "Manage the calendar of the team."


def strict(kind: Any, value: dict[str, Any]) -> None:
    """`value` has the required keys and types of `kind`, and no key `kind` lacks."""
    TypeAdapter(kind).validate_python(value)
    allowed = set(kind.__annotations__) | {
        key for base in kind.__mro__ for key in getattr(base, "__annotations__", {})
    }
    assert set(value) <= allowed, f"{sorted(set(value) - allowed)} not in {kind.__name__}"


def catalog() -> ToolRegistry:
    registry = ToolRegistry()
    calls: list[tuple[str, dict[str, Any]]] = []

    def dispatch(name: str, arguments: dict[str, Any]) -> str:
        calls.append((name, arguments))
        return f"{name} ok {json.dumps(arguments, sort_keys=True)}"

    definitions = [
        ToolReference(
            "create_event",
            f"Create a calendar event. {CALENDAR}",
            {
                "type": "object",
                "properties": {"title": {"type": "string"}, "start": {"type": "string"}},
                "required": ["title"],
            },
            {"namespace": "calendar"},
        ),
        ToolReference(
            "list_events",
            f"List calendar events of a day. {CALENDAR}",
            {"type": "object", "properties": {"day": {"type": "string"}}},
            {"namespace": "calendar"},
        ),
        ToolReference(
            "get_weather",
            "Get the weather forecast for a city.",
            {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        ),
        ToolReference(
            "math.sum",
            "Compute the sum of a list of numbers.",
            {"type": "object", "properties": {"numbers": {"type": "array"}}},
        ),
        ToolReference("math.mean", "Compute the mean of a list of numbers."),
        ToolReference("get_time", "The current time (always available)."),
    ]
    registry.add_catalog(definitions, dispatch)
    registry.calls = calls  # type: ignore[attr-defined]
    return registry


def search_call(call_id: str, arguments: Any) -> dict[str, Any]:
    """A model reply asking for a client-executed tool search (`ResponseToolSearchCall`)."""
    item = {
        "type": "tool_search_call",
        "id": f"ts_{call_id}",
        "call_id": call_id,
        "execution": "client",
        "status": "completed",
        "arguments": arguments,
    }
    ResponseToolSearchCall.model_validate(item)
    return API._reply([{"type": "reasoning", "id": "rs_1", "summary": []}, item], (100, 10))


def namespaced_call(call_id: str, namespace: str, name: str, arguments: Any) -> dict[str, Any]:
    reply = API.calls((call_id, name, arguments))
    reply["output"][1]["namespace"] = namespace
    return reply


def make(server: WireServer, client: Any = None, **kwargs: Any) -> tuple[Advisor, ToolRegistry]:
    client = client or openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
    options = {
        key: kwargs.pop(key) for key in ("namespaces", "namespace_descriptions") if key in kwargs
    }
    model = OpenAIResponsesModel(client, "gpt-test", native=True, store=False, **options)
    registry = catalog()
    kwargs.setdefault("auto", False)
    kwargs.setdefault("pinned", ["get_time"])
    return Advisor(model, registry, ReferenceToolIndex(), **kwargs), registry


def by_type(items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [item for item in items if item.get("type") == kind]


def test_every_request_carries_the_same_deferred_tools_and_the_client_search_tool(
    server: WireServer,
) -> None:
    server.script(
        search_call("s1", {"query": "create a calendar event"}),
        namespaced_call("c2", "calendar", "create_event", {"title": "Standup"}),
        API.answer("Booked."),
    )
    advisor, _ = make(server)
    result = advisor.run("Book a standup")
    assert result.text == "Booked."
    first, second, third = server.bodies
    tools = first["tools"]
    # Pinned tool as usual, then tool_search with client execution, then every other tool
    # deferred: the calendar namespace, and the rest as top-level functions.
    assert [t.get("name", t["type"]) for t in tools] == [
        "get_time",
        "tool_search",
        "calendar",
        "get_weather",
        "math_sum",
        "math_mean",
    ]
    assert "defer_loading" not in tools[0]
    search = tools[1]
    strict(ToolSearchToolParam, search)
    assert search["execution"] == "client"
    assert search["parameters"]["required"] == ["query"]
    assert "Namespaces: calendar." in search["description"]
    namespace = tools[2]
    strict(NamespaceToolParam, namespace)
    assert namespace["description"] == "calendar tools: create_event, list_events."
    assert [f["name"] for f in namespace["tools"]] == ["create_event", "list_events"]
    for function in [*namespace["tools"], *tools[3:]]:
        strict(FunctionToolParam, function)
        assert function["defer_loading"] is True and function["strict"] is False
    # The tools array never changes, and each request's input extends the last one's:
    # the prompt prefix (and its cache) is kept.
    assert first["tools"] == second["tools"] == third["tools"]
    assert second["input"][: len(first["input"])] == first["input"]
    assert third["input"][: len(second["input"])] == second["input"]


def test_a_search_is_answered_with_the_found_definitions(server: WireServer) -> None:
    server.script(
        search_call("s1", {"query": "create a calendar event", "max_results": 1}),
        namespaced_call("c2", "calendar", "create_event", {"title": "Standup"}),
        API.answer("Booked."),
    )
    advisor, registry = make(server)
    advisor.run("Book a standup")
    second, third = server.bodies[1:]
    (call,) = by_type(second["input"], "tool_search_call")
    strict(ToolSearchCall, call)
    assert call == {
        "type": "tool_search_call",
        "call_id": "s1",
        "execution": "client",
        "status": "completed",
        "arguments": {"query": "create a calendar event", "max_results": 1},
    }
    (output,) = by_type(second["input"], "tool_search_output")
    strict(ResponseToolSearchOutputItemParamParam, output)
    assert (output["call_id"], output["execution"], output["status"]) == (
        "s1",
        "client",
        "completed",
    )
    # The found tool goes back inside its namespace, exactly as declared.
    (namespace,) = output["tools"]
    strict(ToolSearchOutputNamespaceToolParam, namespace)
    declared = second["tools"][2]
    assert namespace["name"] == "calendar"
    assert namespace["description"] == declared["description"]
    assert namespace["tools"] == [declared["tools"][0]]
    # The namespaced call is executed, replayed with its namespace, and its result sent.
    (replayed,) = by_type(third["input"], "function_call")
    assert (replayed["name"], replayed["namespace"]) == ("create_event", "calendar")
    (result,) = by_type(third["input"], "function_call_output")
    strict(FunctionCallOutput, result)
    assert result == {
        "type": "function_call_output",
        "call_id": "c2",
        "output": 'create_event ok {"title": "Standup"}',
    }
    assert registry.calls == [("create_event", {"title": "Standup"})]  # type: ignore[attr-defined]


def test_top_level_tools_come_back_as_functions(server: WireServer) -> None:
    server.script(
        search_call("s1", {"query": "weather forecast city"}),
        API.calls(("c2", "get_weather", {"city": "Oslo"})),
        API.answer("Sunny."),
    )
    advisor, _ = make(server)
    advisor.run("Weather in Oslo?")
    (output,) = by_type(server.bodies[1]["input"], "tool_search_output")
    assert output["tools"][0]["name"] == "get_weather"
    weather = next(t for t in server.bodies[1]["tools"] if t.get("name") == "get_weather")
    assert output["tools"][0] == weather
    (replayed,) = by_type(server.bodies[2]["input"], "function_call")
    assert "namespace" not in replayed
    assert by_type(server.bodies[2]["input"], "function_call_output")[0]["output"].startswith(
        "get_weather ok"
    )


def test_an_empty_search_loads_nothing_and_tells_the_model_why(server: WireServer) -> None:
    server.script(
        search_call("s1", {"query": "launch rocket", "namespace": "calendar"}),
        API.answer("Cannot."),
    )
    advisor, _ = make(server)
    advisor.run("Launch")
    second = server.bodies[1]
    (output,) = by_type(second["input"], "tool_search_output")
    assert output["tools"] == []
    note = second["input"][-1]
    assert note["role"] == "developer"
    assert "No tools with namespace 'calendar' matched 'launch rocket'" in note["content"]


def test_a_bad_search_call_is_answered_and_the_run_goes_on(server: WireServer) -> None:
    server.script(search_call("s1", "not an object"), API.answer("ok"))
    advisor, _ = make(server)
    assert advisor.run("x").text == "ok"
    second = server.bodies[1]
    (call,) = by_type(second["input"], "tool_search_call")
    assert call["arguments"] == "not an object"  # echoed as the model sent it
    assert "tool_search needs a JSON object" in second["input"][-1]["content"]


def test_the_model_s_namespace_filter_reaches_the_index(server: WireServer) -> None:
    server.script(
        search_call("s1", {"query": "create list events weather", "namespace": ["calendar"]}),
        API.answer("ok"),
    )
    advisor, _ = make(server)
    result = advisor.run("x")
    (search,) = result.iterations[0].searches
    assert set(search.names) == {"create_event", "list_events"}
    (output,) = by_type(server.bodies[1]["input"], "tool_search_output")
    assert {t["name"] for t in output["tools"][0]["tools"]} == {"create_event", "list_events"}


def test_a_tool_no_search_loaded_is_refused(server: WireServer) -> None:
    server.script(API.calls(("c1", "get_weather", {"city": "Oslo"})), API.answer("ok"))
    advisor, registry = make(server)
    advisor.run("x")
    result = by_type(server.bodies[1]["input"], "function_call_output")[0]
    assert "is not loaded" in result["output"]
    assert registry.calls == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("namespaces", "expected"),
    [
        (None, ["create_event", "list_events", "get_weather", "math_sum", "math_mean"]),
        ("metadata", ["calendar", "get_weather", "math_sum", "math_mean"]),
        ("prefix", ["calendar", "get_weather", "math"]),
        (lambda tools: {t.name: "all" for t in tools}, ["all"]),
    ],
    ids=["none", "metadata", "prefix", "function"],
)
def test_namespace_rules(server: WireServer, namespaces: Any, expected: list[str]) -> None:
    server.script(API.answer("ok"))
    advisor, _ = make(server, namespaces=namespaces)
    advisor.run("x")
    deferred = server.bodies[0]["tools"][2:]
    assert [t["name"] for t in deferred] == expected


def test_namespace_descriptions_are_given_or_listed(server: WireServer) -> None:
    server.script(API.answer("ok"))
    advisor, _ = make(
        server, namespaces="prefix", namespace_descriptions={"calendar": "Team calendar."}
    )
    advisor.run("x")
    calendar, _, math = server.bodies[0]["tools"][2:]
    assert calendar["description"] == "Team calendar."
    assert math["description"] == "math tools: math_sum, math_mean."


def test_namespace_helpers() -> None:
    refs = catalog().references
    assert metadata_namespace(refs) == {"create_event": "calendar", "list_events": "calendar"}
    assert prefix_namespaces(refs)["math.sum"] == "math"
    lone = [ToolReference("a.b", "x"), ToolReference("c.d", "y")]
    assert prefix_namespaces(lone) == {}  # a prefix of one tool is no namespace
    server_tools = [ToolReference("t", "x", metadata={"server": "github"})]
    assert metadata_namespace(server_tools) == {"t": "github"}


def test_a_prefix_namespace_never_takes_a_functions_name(server: WireServer) -> None:
    # BFCL: currency_conversion is a function and the prefix of two others.
    refs = [
        ToolReference("currency_conversion", "Convert an amount between currencies."),
        ToolReference("currency_conversion.convert", "Convert money."),
        ToolReference("currency_conversion.get_rate", "The exchange rate."),
        ToolReference("hotel_booking", "Book a hotel."),
        ToolReference("hotel_booking.cancel", "Cancel a booking."),
        ToolReference("hotel_booking.check", "Check a booking."),
    ]
    client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
    model = OpenAIResponsesModel(
        client,
        "gpt-test",
        native=True,
        namespaces="prefix",
        namespace_descriptions={"hotel_booking": "Hotel bookings."},
    )
    registry = ToolRegistry()
    registry.add_catalog(refs, lambda name, arguments: "ok")
    server.script(API.answer("ok"))
    Advisor(model, registry, ReferenceToolIndex(), auto=False).run("x")

    tools = server.bodies[0]["tools"][1:]  # after the search tool
    top = [t["name"] for t in tools]
    assert top == [
        "currency_conversion",
        "currency_conversion_tools",
        "hotel_booking",
        "hotel_booking_tools",
    ]
    assert [t["name"] for t in tools[1]["tools"]] == [
        "currency_conversion_convert",
        "currency_conversion_get_rate",
    ]
    # A given description still finds its namespace under the new wire name.
    assert tools[3]["description"] == "Hotel bookings."


def test_bad_namespaces_argument() -> None:
    with pytest.raises(ValueError, match="namespaces must be"):
        OpenAIResponsesModel(object(), "m", native=True, namespaces="server")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="namespaces must be"):
        OpenAIResponsesModel(object(), "m", native=True, namespaces=3)  # type: ignore[arg-type]


def test_below_the_auto_threshold_native_mode_sends_plain_functions(server: WireServer) -> None:
    server.script(API.calls(("c1", "get_weather", {"city": "Oslo"})), API.answer("ok"))
    advisor, registry = make(server, auto=AutoThreshold())
    advisor.run("x")
    first = server.bodies[0]
    assert [t["type"] for t in first["tools"]] == ["function"] * 6
    assert not any(t.get("defer_loading") for t in first["tools"])
    assert registry.calls == [("get_weather", {"city": "Oslo"})]  # type: ignore[attr-defined]


def test_async_client(server: WireServer) -> None:
    server.script(
        search_call("s1", {"query": "select:get_weather"}),
        API.calls(("c2", "get_weather", {"city": "Oslo"})),
        API.answer("Sunny."),
    )
    client = openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0)
    advisor, _ = make(server, client)
    result = asyncio.run(advisor.arun("Oslo?"))
    assert result.text == "Sunny."
    (output,) = by_type(server.bodies[1]["input"], "tool_search_output")
    assert output["tools"][0]["name"] == "get_weather"


def test_server_executed_search_items_are_passed_back(server: WireServer) -> None:
    reply = API.answer("ok")
    hosted = {
        "type": "tool_search_call",
        "id": "ts_9",
        "call_id": None,
        "execution": "server",
        "status": "completed",
        "arguments": {"paths": ["calendar"]},
    }
    reply["output"].insert(0, hosted)
    server.script(search_call("s1", {"query": "select:get_weather"}), reply, API.answer("done"))
    advisor, _ = make(server)
    result = advisor.run("x")
    assert result.text == "ok"
    passed = result.messages[-1].raw
    assert passed and passed[0]["execution"] == "server"
