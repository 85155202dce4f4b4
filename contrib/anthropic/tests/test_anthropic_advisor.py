"""The advisor through the real `anthropic` client, against a local Messages API server.

The server replays scripted model turns; the assertions read the request bodies the client
really sent. Classic mode sends only discovered tools; native mode sends every tool with
`defer_loading: true` and answers searches with `tool_reference` blocks.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest
from toolscout.advisor import Advisor, AdvisorLoopError, ToolRegistry
from toolscout.config import DEFAULT_SYSTEM_MESSAGE_SUFFIX
from toolscout.testing import ReferenceToolIndex
from toolscout.testing.wire import WireServer
from toolscout_anthropic import AnthropicChatModel

Call = tuple[str, str, dict[str, Any]]


def reply(
    content: list[dict[str, Any]], stop: str, usage: tuple[int, int] = (100, 10)
) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage[0],
            "output_tokens": usage[1],
            "cache_read_input_tokens": 50,
            "cache_creation_input_tokens": 7,
        },
    }


def calls(*items: Call, text: str = "", usage: tuple[int, int] = (100, 10)) -> dict[str, Any]:
    content = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in items]
    return reply(content, "tool_use", usage)


def answer(text: str, usage: tuple[int, int] = (120, 20)) -> dict[str, Any]:
    return reply([{"type": "text", "text": text}], "end_turn", usage)


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body.get("tools", [])]


def results(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """tool_result blocks by tool_use_id."""
    found = {}
    for turn in body["messages"]:
        if turn["role"] == "user" and isinstance(turn["content"], list):
            for block in turn["content"]:
                if block.get("type") == "tool_result":
                    found[block["tool_use_id"]] = block
    return found


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


def client(server: WireServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", base_url=server.base_url, max_retries=0)


def advisor(server: WireServer, native: bool = False, **kwargs: Any) -> Advisor:
    model = AnthropicChatModel(client(server), "claude-test", native=native, max_tokens=512)
    kwargs.setdefault("auto", False)  # four tools: auto mode would send them all
    return Advisor(model, tools(), ReferenceToolIndex(), **kwargs)


# --- classic mode ----------------------------------------------------------------------


def test_search_call_answer_sends_only_what_was_discovered(server: WireServer) -> None:
    server.script(
        calls(("t1", "tool_search", {"query": "weather forecast city"}), text="Let me look."),
        calls(("t2", "get_weather", {"city": "Paris"})),
        answer("Sunny in Paris."),
    )
    result = advisor(server).run("What's the weather in Paris?")
    assert result.text == "Sunny in Paris."
    assert [path for path, _ in server.requests] == ["/v1/messages"] * 3
    first, second, third = server.bodies
    assert tool_names(first) == ["tool_search"]
    assert tool_names(second) == ["tool_search", "get_weather"]
    assert "defer_loading" not in str(first["tools"])
    assert first["system"] == DEFAULT_SYSTEM_MESSAGE_SUFFIX
    assert first["max_tokens"] == 512
    assert first["messages"] == [{"role": "user", "content": "What's the weather in Paris?"}]
    assistant = second["messages"][1]
    assert assistant == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {
                "type": "tool_use",
                "id": "t1",
                "name": "tool_search",
                "input": {"query": "weather forecast city"},
            },
        ],
    }
    assert "get_weather: Get the weather forecast" in results(second)["t1"]["content"]
    assert results(third)["t2"]["content"] == "sunny in Paris"


def test_usage_includes_cache_reads_and_writes(server: WireServer) -> None:
    server.script(calls(("t1", "tool_search", {"query": "x"}), usage=(200, 9)), answer("ok"))
    result = advisor(server).run("x")
    assert result.iterations[0].usage is not None
    assert result.iterations[0].usage.input_tokens == 200
    assert result.usage.input_tokens == 320 and result.usage.output_tokens == 29
    assert result.usage.cache_read_tokens == 100 and result.usage.cache_write_tokens == 14


def test_parallel_searches_share_one_user_turn_and_all_count(server: WireServer) -> None:
    server.script(
        calls(
            ("t1", "tool_search", {"query": "select:send_email"}),
            ("t2", "tool_search", {"query": "invoice customer"}),
        ),
        answer("ok"),
    )
    advisor(server, accumulate_references=False).run("x")
    second = server.bodies[1]
    assert tool_names(second) == ["tool_search", "send_email", "create_invoice"]
    last = second["messages"][-1]
    assert last["role"] == "user"
    assert [b["tool_use_id"] for b in last["content"]] == ["t1", "t2"]


def test_tool_errors_are_flagged_for_the_model(server: WireServer) -> None:
    server.script(
        calls(("t1", "tool_search", {"query": "select:create_invoice"})),
        calls(("t2", "create_invoice", {"customer": "ACME", "amount": 3}), ("t3", "nuke", {})),
        answer("Billing is down."),
    )
    result = advisor(server).run("bill ACME")
    found = results(server.bodies[2])
    assert found["t2"]["is_error"] is True
    assert "ConnectionError: billing service unavailable" in found["t2"]["content"]
    assert found["t3"]["is_error"] is True and "no tool named 'nuke'" in found["t3"]["content"]
    assert "is_error" not in results(server.bodies[2])["t1"]
    assert result.text == "Billing is down."


def test_dotted_names_are_sanitised_and_mapped_back(server: WireServer) -> None:
    server.script(
        calls(("t1", "tool_search", {"query": "select:math.sum"})),
        calls(("t2", "math_sum", {"numbers": [1, 2]})),
        answer("3"),
    )
    advisor(server).run("add")
    assert tool_names(server.bodies[1]) == ["tool_search", "math_sum"]
    assert results(server.bodies[2])["t2"]["content"] == "3"


def test_pinned_tools_are_in_the_first_request(server: WireServer) -> None:
    server.script(answer("ok"))
    advisor(server, pinned=["send_email"]).run("x")
    assert tool_names(server.bodies[0]) == ["send_email", "tool_search"]


def test_thinking_blocks_are_sent_back_verbatim(server: WireServer) -> None:
    thinking = {"type": "thinking", "thinking": "I need the weather.", "signature": "sig=="}
    server.script(
        reply(
            [
                thinking,
                {"type": "tool_use", "id": "t1", "name": "tool_search", "input": {"query": "q"}},
            ],
            "tool_use",
        ),
        answer("ok"),
    )
    advisor(server).run("x")
    assert server.bodies[1]["messages"][1]["content"][0] == thinking


def test_async_client_with_the_async_loop(server: WireServer) -> None:
    server.script(
        calls(("t1", "tool_search", {"query": "select:get_weather"})),
        calls(("t2", "get_weather", {"city": "Oslo"})),
        answer("Sunny in Oslo."),
    )
    async_client = anthropic.AsyncAnthropic(
        api_key="test-key", base_url=server.base_url, max_retries=0
    )
    model = AnthropicChatModel(async_client, "claude-test")
    assert model.is_async
    result = asyncio.run(Advisor(model, tools(), ReferenceToolIndex(), auto=False).arun("Oslo?"))
    assert result.text == "Sunny in Oslo."
    assert tool_names(server.bodies[1]) == ["tool_search", "get_weather"]


# --- native mode -----------------------------------------------------------------------


def test_native_mode_defers_every_tool_and_answers_with_tool_references(
    server: WireServer,
) -> None:
    server.script(
        calls(("t1", "tool_search", {"query": "weather forecast city"})),
        calls(("t2", "get_weather", {"city": "Kyiv"})),
        answer("Sunny in Kyiv."),
    )
    result = advisor(server, native=True, pinned=["send_email"]).run("Kyiv weather?")
    assert result.text == "Sunny in Kyiv."
    for body in server.bodies:
        assert body["tools"] == server.bodies[0]["tools"]  # identical: the cache holds
        immediate = [t["name"] for t in body["tools"] if not t.get("defer_loading")]
        deferred = [t["name"] for t in body["tools"] if t.get("defer_loading") is True]
        assert immediate == ["send_email", "tool_search"]
        assert sorted(deferred) == ["create_invoice", "get_weather", "math_sum"]
    reference = results(server.bodies[1])["t1"]
    assert reference["content"][0] == {"type": "tool_reference", "tool_name": "get_weather"}
    assert all(block["type"] == "tool_reference" for block in reference["content"])
    assert results(server.bodies[2])["t2"]["content"] == "sunny in Kyiv"


def test_native_mode_empty_search_answers_with_text(server: WireServer) -> None:
    server.script(calls(("t1", "tool_search", {"query": "teleportation"})), answer("sorry"))
    advisor(server, native=True).run("x")
    content = results(server.bodies[1])["t1"]["content"]
    assert isinstance(content, str) and "Rephrase" in content


def test_native_mode_refuses_calls_to_unreferenced_tools(server: WireServer) -> None:
    server.script(calls(("t1", "create_invoice", {"customer": "a", "amount": 1})), answer("ok"))
    advisor(server, native=True).run("x")
    block = results(server.bodies[1])["t1"]
    assert block["is_error"] is True and "not loaded" in block["content"]


def test_classic_adapter_refuses_deferred_tools() -> None:
    from toolscout.advisor import ChatRequest, Message
    from toolscout.types import ToolReference

    model = AnthropicChatModel(
        anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9"), "claude-test"
    )
    request = ChatRequest((Message.user("x"),), (), (ToolReference("a"),))
    with pytest.raises(ValueError, match="cannot send deferred tools"):
        model.complete(request)


def test_a_continued_conversation_keeps_turns_alternating(server: WireServer) -> None:
    from toolscout.advisor import Message

    server.script(
        calls(("t1", "tool_search", {"query": "select:get_weather"})),
        calls(("t2", "get_weather", {"city": "Rome"})),
        answer("Sunny in Rome."),
        answer("You're welcome."),
    )
    chat = advisor(server)
    first = chat.run("Weather in Rome?")
    chat.run([*first.messages, Message.user("Thanks!")])
    body = server.bodies[3]
    # A continued conversation starts with the tools its searches found (the cache holds).
    assert tool_names(body) == ["tool_search", "get_weather"]
    assert tool_names(body) == tool_names(server.bodies[2])
    roles = [turn["role"] for turn in body["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert body["messages"][-1] == {"role": "user", "content": "Thanks!"}
    assert body["system"].count(DEFAULT_SYSTEM_MESSAGE_SUFFIX) == 1


# --- malformed model output ------------------------------------------------------------


@pytest.mark.parametrize("native", [False, True], ids=["classic", "native"])
def test_a_tool_use_without_a_name_ends_the_run_with_an_advisor_loop_error(
    server: WireServer, native: bool
) -> None:
    nameless = calls(("t2", "get_weather", {"city": "Rome"}))
    nameless["content"][0]["name"] = None
    server.script(calls(("t1", "tool_search", {"query": "select:get_weather"})), nameless)
    with pytest.raises(AdvisorLoopError, match="tool call 1 of 1 has no tool name") as caught:
        advisor(server, native=native).run("x")
    assert caught.value.reason == "malformed_reply"
    assert '"id": "t2"' in str(caught.value) and '"city": "Rome"' in str(caught.value)
    assert len(server.requests) == 2


def test_a_tool_use_without_an_id_ends_the_run_with_an_advisor_loop_error(
    server: WireServer,
) -> None:
    anonymous = calls(("t1", "tool_search", {"query": "weather"}))
    anonymous["content"][0]["id"] = None
    server.script(anonymous)
    with pytest.raises(AdvisorLoopError, match=r"\('tool_search'\) has no id to answer it by"):
        advisor(server).run("x")
