"""The advisor through the real `openai` client, against a local wire-format server.

Each test runs over Chat Completions and over the Responses API; the server replays
scripted model turns and the assertions read the request bodies the client really sent.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import openai
import pytest
from toolscout.advisor import Advisor, AdvisorLoopError, ToolRegistry
from toolscout.config import DEFAULT_SYSTEM_MESSAGE_SUFFIX
from toolscout.testing import ReferenceToolIndex
from toolscout.testing.wire import WireServer
from toolscout_openai import OpenAIChatModel, OpenAIResponsesModel

Call = tuple[str, str, dict[str, Any]]


class ChatCompletions:
    """Wire format of POST /v1/chat/completions."""

    path = "/v1/chat/completions"

    def model(self, client: Any) -> OpenAIChatModel:
        return OpenAIChatModel(client, "gpt-test", temperature=0)

    def calls(self, *calls: Call, usage: tuple[int, int] = (100, 10)) -> dict[str, Any]:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for cid, n, a in calls
            ],
        }
        return self._reply(message, "tool_calls", usage)

    def answer(self, text: str, usage: tuple[int, int] = (120, 20)) -> dict[str, Any]:
        return self._reply({"role": "assistant", "content": text}, "stop", usage)

    def _reply(
        self, message: dict[str, Any], finish: str, usage: tuple[int, int]
    ) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-test",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
                "prompt_tokens_details": {"cached_tokens": 40},
            },
        }

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        return [t["function"]["name"] for t in body.get("tools", [])]

    def results(self, body: dict[str, Any]) -> dict[str, str]:
        return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}

    def system(self, body: dict[str, Any]) -> str:
        return str(body["messages"][0]["content"])


class Responses:
    """Wire format of POST /v1/responses."""

    path = "/v1/responses"

    def model(self, client: Any) -> OpenAIResponsesModel:
        return OpenAIResponsesModel(client, "gpt-test", store=False)

    def calls(self, *calls: Call, usage: tuple[int, int] = (100, 10)) -> dict[str, Any]:
        output = [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            *(
                {
                    "type": "function_call",
                    "id": f"fc_{cid}",
                    "call_id": cid,
                    "name": n,
                    "arguments": json.dumps(a),
                    "status": "completed",
                }
                for cid, n, a in calls
            ),
        ]
        return self._reply(output, usage)

    def answer(self, text: str, usage: tuple[int, int] = (120, 20)) -> dict[str, Any]:
        message = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return self._reply([message], usage)

    def _reply(self, output: list[dict[str, Any]], usage: tuple[int, int]) -> dict[str, Any]:
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "model": "gpt-test",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": usage[0],
                "output_tokens": usage[1],
                "total_tokens": sum(usage),
                "input_tokens_details": {"cached_tokens": 40},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        return [t["name"] for t in body.get("tools", [])]

    def results(self, body: dict[str, Any]) -> dict[str, str]:
        return {
            i["call_id"]: i["output"]
            for i in body["input"]
            if i.get("type") == "function_call_output"
        }

    def system(self, body: dict[str, Any]) -> str:
        return str(body["instructions"])


API = ChatCompletions | Responses


@pytest.fixture(params=[ChatCompletions(), Responses()], ids=["chat", "responses"])
def api(request: pytest.FixtureRequest) -> API:
    return request.param  # type: ignore[no-any-return]


def get_weather(city: str) -> str:
    """Get the weather forecast for a city."""
    return f"sunny in {city}"


def send_email(to: str, body: str) -> str:
    """Send an email to a recipient."""
    return f"sent to {to}"


def create_invoice(customer: str, amount: float) -> str:
    """Create an invoice for a customer."""
    raise ConnectionError("billing service unavailable")


def tools() -> ToolRegistry:
    registry = ToolRegistry([get_weather, send_email, create_invoice])
    # A catalog-style dotted name, which the OpenAI API refuses as is.
    registry.add_definition(
        {
            "name": "math.sum",
            "description": "Compute the sum of a list of numbers.",
            "input_schema": {
                "type": "object",
                "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
                "required": ["numbers"],
            },
        },
        lambda numbers: sum(numbers),
    )
    return registry


def advisor(api: API, server: WireServer, **kwargs: Any) -> Advisor:
    client = openai.OpenAI(api_key="test-key", base_url=server.base_url, max_retries=0)
    kwargs.setdefault("auto", False)  # four tools: auto mode would send them all
    return Advisor(api.model(client), tools(), ReferenceToolIndex(), **kwargs)


def test_search_call_answer_sends_only_what_was_discovered(api: API, server: WireServer) -> None:
    server.script(
        api.calls(("c1", "tool_search", {"query": "weather forecast city"})),
        api.calls(("c2", "get_weather", {"city": "Paris"})),
        api.answer("Sunny in Paris."),
    )
    result = advisor(api, server).run("What's the weather in Paris?")
    assert result.text == "Sunny in Paris."
    assert [path for path, _ in server.requests] == [api.path] * 3
    first, second, third = server.bodies
    assert api.tool_names(first) == ["tool_search"]
    assert api.tool_names(second) == ["tool_search", "get_weather"]
    assert "get_weather: Get the weather forecast for a city." in api.results(second)["c1"]
    assert api.results(third)["c2"] == "sunny in Paris"
    assert DEFAULT_SYSTEM_MESSAGE_SUFFIX in api.system(first)
    assert first["model"] == "gpt-test"


def test_usage_comes_from_the_provider_reply(api: API, server: WireServer) -> None:
    server.script(
        api.calls(("c1", "tool_search", {"query": "select:get_weather"}), usage=(300, 30)),
        api.answer("ok", usage=(310, 5)),
    )
    result = advisor(api, server).run("x")
    assert [
        (i.usage.input_tokens, i.usage.output_tokens) for i in result.iterations if i.usage
    ] == [
        (300, 30),
        (310, 5),
    ]
    assert result.usage.total_tokens == 645
    assert result.usage.cache_read_tokens == 80


def test_parallel_searches_all_count(api: API, server: WireServer) -> None:
    server.script(
        api.calls(
            ("c1", "tool_search", {"query": "select:send_email"}),
            ("c2", "tool_search", {"query": "invoice customer"}),
        ),
        api.answer("ok"),
    )
    advisor(api, server, accumulate_references=False).run("x")
    assert api.tool_names(server.bodies[1]) == ["tool_search", "send_email", "create_invoice"]


def test_a_raising_tool_and_an_unknown_tool_come_back_as_tool_errors(
    api: API, server: WireServer
) -> None:
    server.script(
        api.calls(("c1", "tool_search", {"query": "select:create_invoice"})),
        api.calls(
            ("c2", "create_invoice", {"customer": "ACME", "amount": 3}),
            ("c3", "launch_rocket", {}),
        ),
        api.answer("Billing is down."),
    )
    result = advisor(api, server).run("bill ACME")
    results = api.results(server.bodies[2])
    assert "ConnectionError: billing service unavailable" in results["c2"]
    assert "no tool named 'launch_rocket'" in results["c3"]
    assert result.text == "Billing is down."


def test_arguments_that_are_not_json_come_back_as_a_tool_error(
    api: API, server: WireServer
) -> None:
    broken = api.calls(("c2", "get_weather", {}))
    if isinstance(api, ChatCompletions):
        broken["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = "{city: Rome"
    else:
        broken["output"][1]["arguments"] = "{city: Rome"
    server.script(
        api.calls(("c1", "tool_search", {"query": "select:get_weather"})),
        broken,
        api.answer("ok"),
    )
    advisor(api, server).run("x")
    assert "not a JSON object: '{city: Rome'" in api.results(server.bodies[2])["c2"]
    # The model's own malformed call is echoed back as it sent it.
    assert "{city: Rome" in json.dumps(server.bodies[2])


def test_dotted_catalog_names_are_sent_sanitised_and_mapped_back(
    api: API, server: WireServer
) -> None:
    server.script(
        api.calls(("c1", "tool_search", {"query": "select:math.sum"})),
        api.calls(("c2", "math_sum", {"numbers": [1, 2, 3.5]})),
        api.answer("6.5"),
    )
    advisor(api, server).run("add")
    assert api.tool_names(server.bodies[1]) == ["tool_search", "math_sum"]
    assert api.results(server.bodies[2])["c2"] == "6.5"


def test_colliding_bfcl_names_go_out_valid_and_unique_and_calls_reach_the_right_tool(
    api: API, server: WireServer
) -> None:
    ran: list[str] = []
    registry = ToolRegistry()
    registry.add_catalog(
        [
            {"name": name, "description": f"Greatest common divisor ({name})."}
            for name in ("math.gcd", "math_gcd", "physics.calculate_cone_mass")
        ],
        lambda name, arguments: ran.append(name) or f"{name}: 6",
    )

    def call_the_dotted_one(body: dict[str, Any]) -> dict[str, Any]:
        (name,) = [n for n in api.tool_names(body) if n.startswith("math_gcd_")]
        return api.calls(("c2", name, {}))

    server.script(
        api.calls(("c1", "tool_search", {"query": "select:math.gcd,math_gcd"})),
        call_the_dotted_one,
        api.answer("6"),
    )
    client = openai.OpenAI(api_key="test-key", base_url=server.base_url, max_retries=0)
    Advisor(api.model(client), registry, ReferenceToolIndex(), auto=False).run("gcd")
    names = api.tool_names(server.bodies[1])
    assert "math_gcd" in names and len(set(names)) == len(names) == 3
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name) for name in names)
    assert ran == ["math.gcd"]


def test_pinned_tools_are_in_the_first_request(api: API, server: WireServer) -> None:
    server.script(api.answer("ok"))
    advisor(api, server, pinned=["send_email"]).run("x")
    assert api.tool_names(server.bodies[0]) == ["send_email", "tool_search"]


def test_async_client_with_the_async_loop(api: API, server: WireServer) -> None:
    server.script(
        api.calls(("c1", "tool_search", {"query": "select:get_weather"})),
        api.calls(("c2", "get_weather", {"city": "Oslo"})),
        api.answer("Sunny in Oslo."),
    )
    client = openai.AsyncOpenAI(api_key="test-key", base_url=server.base_url, max_retries=0)
    model = api.model(client)
    assert model.is_async
    result = asyncio.run(Advisor(model, tools(), ReferenceToolIndex(), auto=False).arun("Oslo?"))
    assert result.text == "Sunny in Oslo."
    assert api.tool_names(server.bodies[1]) == ["tool_search", "get_weather"]
    assert api.results(server.bodies[2])["c2"] == "sunny in Oslo"


def test_chat_completions_wire_details(server: WireServer) -> None:
    api = ChatCompletions()
    server.script(
        api.calls(("c1", "tool_search", {"query": "select:get_weather"})),
        api.answer("ok"),
    )
    advisor(api, server).run("x")
    body = server.bodies[1]
    assert body["temperature"] == 0
    assistant = body["messages"][2]
    assert assistant["role"] == "assistant"
    assert assistant["tool_calls"][0]["function"] == {
        "name": "tool_search",
        "arguments": json.dumps({"query": "select:get_weather"}),
    }
    weather = body["tools"][1]["function"]
    assert weather["parameters"]["required"] == ["city"]


def test_responses_wire_details(server: WireServer) -> None:
    api = Responses()
    server.script(
        api.calls(("c1", "tool_search", {"query": "select:get_weather"})),
        api.answer("ok"),
    )
    advisor(api, server).run("x")
    body = server.bodies[1]
    assert body["store"] is False
    kinds = [i.get("type", i.get("role")) for i in body["input"]]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    assert body["tools"][1]["strict"] is False
    assert all(i.get("role") != "system" for i in body["input"])


# --- malformed model output ------------------------------------------------------------


def _break_first_call(api: API, reply: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """Set (or with value ... remove) one field of the reply's first tool call."""
    if isinstance(api, ChatCompletions):
        target = reply["choices"][0]["message"]["tool_calls"][0]
        if key == "name":
            target = target["function"]
    else:
        target = reply["output"][1]
        key = "call_id" if key == "id" else key
    if value is ...:
        del target[key]
    else:
        target[key] = value
    return reply


@pytest.mark.parametrize("name", [None, ""], ids=["null", "empty"])
def test_a_tool_call_without_a_name_ends_the_run_with_an_advisor_loop_error(
    api: API, server: WireServer, name: str | None
) -> None:
    nameless = _break_first_call(
        api, api.calls(("c2", "get_weather", {"city": "Rome"})), "name", name
    )
    server.script(api.calls(("c1", "tool_search", {"query": "select:get_weather"})), nameless)
    with pytest.raises(AdvisorLoopError, match="tool call 1 of 1 has no tool name") as caught:
        advisor(api, server).run("x")
    message = str(caught.value)
    assert caught.value.reason == "malformed_reply"
    # What the model sent, in its wire form, so the fault can be reported to the provider.
    assert '"c2"' in message and '{\\"city\\": \\"Rome\\"}' in message
    assert len(server.requests) == 2
    assert caught.value.result.iterations[0].searches[0].names == ("get_weather",)


def test_a_tool_call_without_an_id_ends_the_run_with_an_advisor_loop_error(
    api: API, server: WireServer
) -> None:
    server.script(_break_first_call(api, api.calls(("c1", "tool_search", {})), "id", None))
    with pytest.raises(AdvisorLoopError, match=r"\('tool_search'\) has no id to answer it by"):
        advisor(api, server).run("x")


def test_a_chat_completions_tool_call_without_a_function_is_not_dropped(
    server: WireServer,
) -> None:
    api = ChatCompletions()
    server.script(_break_first_call(api, api.calls(("c1", "tool_search", {})), "function", ...))
    with pytest.raises(AdvisorLoopError, match="has no tool name") as caught:
        advisor(api, server).run("x")
    assert '"id": "c1"' in str(caught.value)


def test_a_chat_completions_reply_without_choices_is_an_advisor_loop_error(
    server: WireServer,
) -> None:
    reply = ChatCompletions().answer("ok")
    reply["choices"] = []
    server.script(reply)
    with pytest.raises(AdvisorLoopError, match="the Chat Completions reply has no choices"):
        advisor(ChatCompletions(), server).run("x")


def test_a_nameless_call_from_an_async_client_ends_the_async_loop(
    api: API, server: WireServer
) -> None:
    server.script(_break_first_call(api, api.calls(("c1", "tool_search", {})), "name", None))
    client = openai.AsyncOpenAI(api_key="test-key", base_url=server.base_url, max_retries=0)
    with pytest.raises(AdvisorLoopError, match="has no tool name"):
        asyncio.run(Advisor(api.model(client), tools(), ReferenceToolIndex(), auto=False).arun("x"))


def test_a_catalog_tool_never_takes_the_search_tools_name_across_runs(
    api: API, server: WireServer
) -> None:
    """Issue 38, 8: one model reused by two runs: the first (search off) sent the catalog
    tool `tool.search` as `tool_search`; the second then sent the search tool as
    `tool_search_<hash>`, and a call to `tool_search`, the name the system message gives,
    ran `tool.search`."""
    ran: list[str] = []
    registry = tools()
    registry.add_definition(
        {"name": "tool.search", "description": "Search the tool shed inventory for a tool."},
        lambda: ran.append("tool.search") or "a hammer",
    )
    client = openai.OpenAI(api_key="test-key", base_url=server.base_url, max_retries=0)
    model = api.model(client)
    server.script(
        api.answer("nothing needed"),
        api.calls(("c1", "tool_search", {"query": "select:get_weather"})),
        api.calls(("c2", "get_weather", {"city": "Paris"})),
        api.answer("Sunny in Paris."),
    )
    everything = Advisor(model, registry, ReferenceToolIndex(), auto=True).run("hi")
    assert everything.text == "nothing needed"
    first = api.tool_names(server.bodies[0])
    assert "tool_search" not in first  # the catalog tool goes out under another name
    assert len(first) == 5 and all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in first)
    result = Advisor(model, registry, ReferenceToolIndex(), auto=False).run("Weather in Paris?")
    assert result.text == "Sunny in Paris."
    assert api.tool_names(server.bodies[1]) == ["tool_search"]
    assert "tool_search" in api.system(server.bodies[1])
    assert "Loaded 1 tool(s)" in api.results(server.bodies[2])["c1"]
    assert api.results(server.bodies[3])["c2"] == "sunny in Paris"
    assert ran == []
