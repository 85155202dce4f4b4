"""The advisor loop against the reference index and a scripted chat model.

The scripted model is a real implementation of the chat-model protocol that replays model
turns; every request the loop sent is recorded and asserted on.
"""

from __future__ import annotations

import asyncio
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from toolscout import LruEvictionStrategy, SessionManager, load_settings
from toolscout.advisor import (
    Advisor,
    AdvisorLoopError,
    ChatRequest,
    ChatResponse,
    Message,
    Tool,
    ToolCall,
    ToolRegistry,
    Usage,
    tool,
)
from toolscout.advisor.chat import MalformedReplyError
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout.config import DEFAULT_SYSTEM_MESSAGE_SUFFIX
from toolscout.testing import ReferenceToolIndex


def get_weather(city: str) -> str:
    """Get the weather forecast for a city."""
    return f"sunny in {city}"


def send_email(to: str, body: str) -> str:
    """Send an email to a recipient."""
    return f"sent to {to}"


def create_invoice(customer: str, amount: float) -> dict[str, object]:
    """Create an invoice for a customer."""
    return {"customer": customer, "amount": amount, "id": 7}


def convert_currency(amount: float, target: str) -> float:
    """Convert an amount of money to another currency."""
    return amount * 2


def explode() -> str:
    """Explode the reactor core."""
    raise RuntimeError("core breach")


ALL = [get_weather, send_email, create_invoice, convert_currency, explode]


def make_advisor(model: ScriptedChatModel, **kwargs: object) -> Advisor:
    kwargs.setdefault("index", ReferenceToolIndex())
    kwargs.setdefault("auto", False)  # a handful of tools: auto mode would send them all
    tools = kwargs.pop("tools", ALL)
    return Advisor(model, tools, **kwargs)  # type: ignore[arg-type]


def names(request: ChatRequest) -> list[str]:
    return [t.name for t in request.tools]


def tool_messages(request: ChatRequest) -> list[Message]:
    return [m for m in request.messages if m.role == "tool"]


# --- the basic cycle -------------------------------------------------------------------


def test_search_then_call_then_answer() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="weather forecast")),
            calls(call("get_weather", city="Paris")),
            answer("It is sunny in Paris."),
        ]
    )
    result = make_advisor(model).run("Weather in Paris?")
    assert result.text == "It is sunny in Paris."
    assert names(model.requests[0]) == ["tool_search"]
    assert "get_weather" in names(model.requests[1])
    assert tool_messages(model.requests[2])[-1].content == "sunny in Paris"
    assert [m.role for m in result.messages] == [
        "system", "user", "assistant", "tool", "assistant", "tool", "assistant",
    ]  # fmt: skip


def test_first_request_carries_only_the_search_tool_and_the_next_exactly_the_found_ones() -> None:
    model = ScriptedChatModel(
        [calls(call("tool_search", query="select:send_email,create_invoice")), answer("ok")]
    )
    make_advisor(model).run("hi")
    assert names(model.requests[0]) == ["tool_search"]
    assert names(model.requests[1]) == ["tool_search", "send_email", "create_invoice"]


def test_tool_results_that_are_not_text_are_sent_as_json() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:create_invoice")),
            calls(call("create_invoice", customer="ACME", amount="12.5")),
            answer("done"),
        ]
    )
    make_advisor(model).run("bill ACME")
    assert tool_messages(model.requests[2])[-1].content == (
        '{"customer": "ACME", "amount": 12.5, "id": 7}'
    )


# --- accumulation ----------------------------------------------------------------------


def two_searches_then_answer() -> list[ChatResponse]:
    return [
        calls(call("tool_search", query="select:get_weather")),
        calls(call("tool_search", query="select:send_email")),
        answer("done"),
    ]


def test_discovered_tools_accumulate_across_iterations() -> None:
    model = ScriptedChatModel(two_searches_then_answer())
    make_advisor(model).run("hi")
    assert names(model.requests[2]) == ["tool_search", "get_weather", "send_email"]


def test_without_accumulation_only_the_last_search_turn_counts() -> None:
    model = ScriptedChatModel(two_searches_then_answer())
    make_advisor(model, accumulate_references=False).run("hi")
    assert names(model.requests[1]) == ["tool_search", "get_weather"]
    assert names(model.requests[2]) == ["tool_search", "send_email"]


def test_every_parallel_search_in_a_turn_counts_without_accumulation() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:get_weather")),
            calls(
                call("tool_search", query="select:send_email"),
                call("tool_search", query="select:create_invoice"),
            ),
            answer("done"),
        ]
    )
    make_advisor(model, accumulate_references=False).run("hi")
    assert names(model.requests[2]) == ["tool_search", "send_email", "create_invoice"]


def test_a_turn_without_searches_keeps_the_loaded_tools_without_accumulation() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:get_weather")),
            calls(call("get_weather", city="Rome")),
            answer("done"),
        ]
    )
    make_advisor(model, accumulate_references=False).run("hi")
    assert names(model.requests[2]) == ["tool_search", "get_weather"]


def test_a_tool_found_in_the_same_turn_is_not_callable_until_the_next() -> None:
    model = ScriptedChatModel(
        [
            calls(
                call("tool_search", query="select:get_weather"),
                call("get_weather", city="Oslo"),
            ),
            answer("done"),
        ]
    )
    make_advisor(model).run("hi")
    results = tool_messages(model.requests[1])
    assert not results[0].is_error
    assert results[1].is_error and "not loaded" in results[1].content


# --- better than Spring AI ---------------------------------------------------------------


def test_pinned_tools_are_always_sent_without_a_search() -> None:
    model = ScriptedChatModel([calls(call("send_email", to="a@b.c", body="x")), answer("ok")])
    make_advisor(model, pinned=["send_email"]).run("mail")
    assert names(model.requests[0]) == ["send_email", "tool_search"]
    assert tool_messages(model.requests[1])[0].content == "sent to a@b.c"


def test_tools_marked_pinned_by_the_decorator_are_always_sent() -> None:
    @tool(pinned=True)
    def now() -> str:
        """The current time."""
        return "noon"

    model = ScriptedChatModel([answer("ok")])
    make_advisor(model, tools=[*ALL, now]).run("time?")
    assert names(model.requests[0]) == ["now", "tool_search"]


def test_pinning_an_unknown_tool_is_refused() -> None:
    with pytest.raises(ValueError, match="'nope' are not among the tools"):
        make_advisor(ScriptedChatModel([]), pinned=["nope"])


def test_a_tool_may_not_take_the_search_tools_name() -> None:
    with pytest.raises(ValueError, match="search_tool_name="):
        make_advisor(ScriptedChatModel([]), tools=[Tool.from_callable(explode, name="tool_search")])


def test_the_search_tool_can_be_renamed_when_a_catalog_takes_its_name() -> None:
    taken = Tool.from_callable(get_weather, name="tool_search")
    model = ScriptedChatModel(
        [
            calls(call("find_tools", query="select:tool_search")),
            calls(call("tool_search", city="Bonn")),
            answer("ok"),
        ]
    )
    make_advisor(model, tools=[taken], search_tool_name="find_tools").run("x")
    assert names(model.requests[0]) == ["find_tools"]
    assert "call find_tools" in model.requests[0].messages[0].content
    assert names(model.requests[1]) == ["find_tools", "tool_search"]
    assert tool_messages(model.requests[2])[-1].content == "sunny in Bonn"


def test_free_text_search_feeds_names_with_summaries_back() -> None:
    model = ScriptedChatModel([calls(call("tool_search", query="invoice customer")), answer("ok")])
    make_advisor(model).run("bill")
    text = tool_messages(model.requests[1])[0].content
    assert "- create_invoice: Create an invoice for a customer." in text


def test_out_of_range_max_results_from_the_model_is_clamped_not_fatal() -> None:
    model = ScriptedChatModel(
        [calls(call("tool_search", query="weather email invoice", max_results=0)), answer("ok")]
    )
    result = make_advisor(model).run("x")
    assert len(result.iterations[0].searches[0].names) == 1
    assert len(names(model.requests[1])) == 2


def test_empty_search_tells_the_model_to_rephrase() -> None:
    model = ScriptedChatModel([calls(call("tool_search", query="teleport")), answer("sorry")])
    make_advisor(model).run("x")
    assert "Rephrase" in tool_messages(model.requests[1])[0].content
    assert names(model.requests[1]) == ["tool_search"]


@pytest.mark.parametrize(
    ("bad_call", "expected"),
    [
        (ToolCall("c1", "launch_rocket", {}), "there is no tool named 'launch_rocket'"),
        (ToolCall("c1", "get_weather", {"city": "Rome"}), "'get_weather' is not loaded"),
    ],
)
def test_unknown_and_undiscovered_tools_come_back_as_tool_errors(
    bad_call: ToolCall, expected: str
) -> None:
    model = ScriptedChatModel([calls(bad_call), answer("ok")])
    result = make_advisor(model).run("x")
    error = tool_messages(model.requests[1])[0]
    assert error.is_error and expected in error.content
    assert error.tool_call_id == "c1"
    assert result.text == "ok"


@pytest.mark.parametrize(
    ("bad_call", "expected"),
    [
        (ToolCall("c2", "get_weather", {"town": "Rome"}), "missing required argument 'city'"),
        (ToolCall("c2", "get_weather", None, "{city: Rome"), "not a JSON object"),
        (ToolCall("c2", "explode", {}), "RuntimeError: core breach"),
    ],
)
def test_invalid_arguments_and_raising_tools_come_back_as_tool_errors(
    bad_call: ToolCall, expected: str
) -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:get_weather,explode")),
            calls(bad_call),
            answer("ok"),
        ]
    )
    make_advisor(model).run("x")
    error = tool_messages(model.requests[2])[-1]
    assert error.is_error and expected in error.content


def test_a_search_backend_failure_is_a_tool_error() -> None:
    class BrokenIndex(ReferenceToolIndex):
        def _search_set(self, *args: object) -> tuple[list[object], int]:  # type: ignore[override]
            raise OSError("disk gone")

    model = ScriptedChatModel([calls(call("tool_search", query="weather")), answer("ok")])
    make_advisor(model, index=BrokenIndex()).run("x")
    error = tool_messages(model.requests[1])[0]
    assert error.is_error and "OSError: disk gone" in error.content


def test_the_loop_guard_ends_a_runaway_loop_with_a_clear_error() -> None:
    model = ScriptedChatModel([calls(call("tool_search", query="weather"))] * 10)
    with pytest.raises(AdvisorLoopError, match="after 3 model calls") as caught:
        make_advisor(model, max_iterations=3).run("x")
    assert len(model.requests) == 3
    assert len(caught.value.result.iterations) == 3


def test_a_tool_call_without_a_name_ends_the_loop_with_an_error_quoting_it() -> None:
    nameless = ToolCall("call_x", None, {"query": "weather"})  # type: ignore[arg-type]
    model = ScriptedChatModel(
        [calls(call("tool_search", query="select:get_weather")), calls(nameless), answer("x")]
    )
    with pytest.raises(AdvisorLoopError, match="tool call 1 of 1 has no tool name") as caught:
        make_advisor(model).run("x")
    error = caught.value
    assert error.reason == "malformed_reply"
    assert "model call 2 in session 'default'" in str(error)
    assert '"id": "call_x", "name": null' in str(error)  # what the model sent
    assert "retry the run, or use another model" in str(error)
    assert isinstance(error.__cause__, MalformedReplyError)
    # The run so far is kept: the first search and its result, not the malformed reply.
    assert len(model.requests) == 2
    assert len(error.result.iterations) == 1
    assert error.result.messages[-1].role == "tool"


def test_a_tool_call_without_a_name_ends_the_async_loop_too() -> None:
    model = ScriptedChatModel([calls(ToolCall("c1", "", {}))])
    with pytest.raises(AdvisorLoopError, match="has no tool name") as caught:
        asyncio.run(make_advisor(model).arun("x"))
    assert caught.value.reason == "malformed_reply"


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (calls(ToolCall(None, "tool_search", {})), "('tool_search') has no id"),  # type: ignore[arg-type]
        (
            calls(ToolCall("c1", "tool_search", {}), ToolCall("c1", "get_weather", {})),
            "tool call 2 of 2 ('get_weather') repeats the id 'c1'",
        ),
        (calls(ToolCall("c1", 7, {})), "tool call 1 of 1 has no tool name"),  # type: ignore[arg-type]
    ],
    ids=["no-id", "repeated-id", "name-not-text"],
)
def test_tool_calls_without_a_usable_id_or_name_end_the_loop(
    reply: ChatResponse, problem: str
) -> None:
    model = ScriptedChatModel([reply])
    with pytest.raises(AdvisorLoopError, match=re.escape(problem)):
        make_advisor(model).run("x")


def test_a_malformed_reply_error_from_an_adapter_ends_the_loop() -> None:
    def no_choices(request: ChatRequest) -> ChatResponse:
        raise MalformedReplyError("the reply has no choices", {"choices": []})

    model = ScriptedChatModel([no_choices])
    with pytest.raises(AdvisorLoopError) as caught:
        make_advisor(model).run("x")
    assert 'the reply has no choices; the model sent {"choices": []}' in str(caught.value)
    assert caught.value.reason == "malformed_reply"


def test_arguments_that_are_not_an_object_stay_a_tool_error_not_a_loop_error() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:get_weather")),
            calls(ToolCall("c2", "get_weather", None, "{city: Rome")),
            answer("ok"),
        ]
    )
    assert make_advisor(model).run("x").text == "ok"
    assert "not a JSON object: '{city: Rome'" in tool_messages(model.requests[2])[-1].content


def test_loaded_tools_are_capped_least_recently_used_first() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:get_weather,send_email")),
            calls(call("get_weather", city="Rome")),  # get_weather is now the most recent
            calls(call("tool_search", query="select:create_invoice")),
            answer("ok"),
        ]
    )
    result = make_advisor(model, max_loaded_tools=2).run("x")
    assert names(model.requests[3]) == ["tool_search", "get_weather", "create_invoice"]
    assert result.loaded_tools == ["get_weather", "create_invoice"]


def test_usage_is_reported_per_iteration_and_in_total() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="weather"), usage=Usage(100, 10)),
            answer("ok", usage=Usage(150, 20, cache_read_tokens=80)),
        ]
    )
    result = make_advisor(model).run("x")
    assert [i.usage for i in result.iterations] == [
        Usage(100, 10),
        Usage(150, 20, cache_read_tokens=80),
    ]
    assert result.usage == Usage(250, 30, cache_read_tokens=80)
    assert result.usage.total_tokens == 280


def test_iterations_record_what_was_sent_and_the_loop_overhead() -> None:
    model = ScriptedChatModel(
        [calls(call("tool_search", query="select:get_weather")), answer("ok")]
    )
    result = make_advisor(model).run("x")
    first, second = result.iterations
    assert first.tools == ("tool_search",) and second.tools == ("tool_search", "get_weather")
    assert first.searches[0].names == ("get_weather",)
    assert first.overhead_ms >= 0 and first.model_ms >= 0


# --- sessions and indexing -------------------------------------------------------------


def test_session_id_comes_from_the_configured_context_key() -> None:
    index = ReferenceToolIndex()
    model = ScriptedChatModel([answer("a")])
    advisor = make_advisor(model, index=index, session_id_key="conversation")
    result = advisor.run("x", context={"conversation": "conv-42"})
    assert result.session_id == "conv-42"
    assert set(index.tools("conv-42")) == {t.__name__ for t in ALL}


def test_indexing_is_skipped_when_the_tool_set_is_unchanged() -> None:
    index = ReferenceToolIndex()
    calls_to_index: list[str] = []
    original = index.replace_tools

    def counting(session_id: str, tools: object) -> None:
        calls_to_index.append(session_id)
        original(session_id, tools)

    index.replace_tools = counting  # type: ignore[method-assign]
    model = ScriptedChatModel([answer("a"), answer("b")])
    advisor = make_advisor(model, index=index)
    assert advisor.run("x", session_id="s").indexed is True
    assert advisor.run("y", session_id="s").indexed is False
    assert calls_to_index == ["s"]


def test_a_changed_tool_set_is_reindexed() -> None:
    index = ReferenceToolIndex()
    model = ScriptedChatModel(
        [answer("a"), calls(call("tool_search", query="weather")), answer("b")]
    )
    advisor = make_advisor(model, index=index)
    advisor.run("x", session_id="s")
    fewer = ToolRegistry([get_weather])
    result = advisor.run("y", session_id="s", tools=fewer)
    assert result.indexed is True
    assert set(index.tools("s")) == {"get_weather"}


def test_eviction_is_applied_on_access() -> None:
    index = ReferenceToolIndex()
    sessions = SessionManager(index, LruEvictionStrategy(max_sessions=1))
    model = ScriptedChatModel([answer("a"), answer("b"), answer("c")])
    advisor = make_advisor(model, index=None, sessions=sessions)
    advisor.run("x", session_id="a")
    advisor.run("x", session_id="b")
    assert index.tools("a") == {} and index.tools("b") != {}
    assert advisor.run("x", session_id="a").indexed is True


def test_a_session_evicted_mid_run_is_reindexed_before_searching() -> None:
    index = ReferenceToolIndex()
    sessions = SessionManager(index)

    def evict_then_search(request: ChatRequest) -> ChatResponse:
        sessions.evict_session("s")
        return calls(call("tool_search", query="weather forecast"))

    model = ScriptedChatModel([evict_then_search, answer("ok")])
    make_advisor(model, index=None, sessions=sessions).run("x", session_id="s")
    assert "get_weather" in names(model.requests[1])


def test_concurrent_sessions_are_isolated() -> None:
    index = ReferenceToolIndex()
    per_session = {
        f"s{i}": ToolRegistry([Tool.from_callable(get_weather, name=f"weather_{i}")])
        for i in range(8)
    }
    barrier = threading.Barrier(8, timeout=10)

    def run(session_id: str) -> list[str]:
        def search(request: ChatRequest) -> ChatResponse:
            barrier.wait()  # every session is mid-run at once
            return calls(call("tool_search", query="weather"))

        model = ScriptedChatModel([search, answer("ok")])
        advisor = make_advisor(model, index=index, tools=per_session[session_id])
        advisor.run("x", session_id=session_id)
        return names(model.requests[1])

    with ThreadPoolExecutor(8) as pool:
        seen = dict(zip(per_session, pool.map(run, per_session), strict=True))
    for session_id, sent in seen.items():
        assert sent == ["tool_search", f"weather_{session_id[1:]}"]


# --- system message --------------------------------------------------------------------


def test_default_system_suffix_is_added() -> None:
    model = ScriptedChatModel([answer("a")])
    make_advisor(model).run("x")
    assert model.requests[0].messages[0] == Message.system(DEFAULT_SYSTEM_MESSAGE_SUFFIX)


def test_system_suffix_is_appended_to_an_existing_system_message_once() -> None:
    model = ScriptedChatModel([answer("a"), answer("b")])
    advisor = make_advisor(model)
    first = advisor.run([Message.system("Be brief."), Message.user("x")])
    advisor.run([*first.messages, Message.user("again")])
    for request in model.requests:
        system = request.messages[0].content
        assert system.startswith("Be brief.\n\n")
        assert system.count(DEFAULT_SYSTEM_MESSAGE_SUFFIX) == 1


def test_system_suffix_is_replaceable_from_config(tmp_path: Path) -> None:
    (tmp_path / "toolscout.toml").write_text('system_message_suffix = "Search first."\n')
    settings = load_settings(tmp_path)
    model = ScriptedChatModel([answer("a")])
    make_advisor(model, settings=settings).run([{"role": "user", "content": "x"}])
    assert model.requests[0].messages[0].content == "Search first."


def test_an_empty_suffix_sends_no_system_message() -> None:
    model = ScriptedChatModel([answer("a")])
    make_advisor(model, system_message_suffix="").run("x")
    assert [m.role for m in model.requests[0].messages] == ["user"]


def test_bad_options_are_config_errors_naming_the_key() -> None:
    from toolscout import ConfigError

    with pytest.raises(ConfigError, match="max_iterations"):
        make_advisor(ScriptedChatModel([]), settings=load_settings(), max_iterations=0)


def test_an_object_without_complete_is_refused() -> None:
    with pytest.raises(TypeError, match="not a chat model"):
        Advisor(object(), ALL, ReferenceToolIndex(), auto=False)


# --- async -----------------------------------------------------------------------------


def test_async_run_executes_parallel_calls_concurrently() -> None:
    started = asyncio.Event()
    other = asyncio.Event()

    async def first_half() -> str:
        """First half of a handshake."""
        started.set()
        await asyncio.wait_for(other.wait(), 5)
        return "first"

    async def second_half() -> str:
        """Second half of a handshake."""
        await asyncio.wait_for(started.wait(), 5)
        other.set()
        return "second"

    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:first_half,second_half")),
            calls(call("first_half"), call("second_half")),
            answer("shook hands"),
        ]
    )
    advisor = make_advisor(model, tools=[first_half, second_half])
    result = asyncio.run(advisor.arun("x"))
    assert result.text == "shook hands"
    assert [m.content for m in tool_messages(model.requests[2])][-2:] == ["first", "second"]


def test_async_run_works_with_a_sync_only_model_and_sync_handlers() -> None:
    class SyncOnly:
        def __init__(self) -> None:
            self.inner = ScriptedChatModel(
                [
                    calls(call("tool_search", query="select:get_weather")),
                    calls(call("get_weather", city="Lima")),
                    answer("ok"),
                ]
            )

        def complete(self, request: ChatRequest) -> ChatResponse:
            return self.inner.complete(request)

    model = SyncOnly()
    result = asyncio.run(Advisor(model, ALL, ReferenceToolIndex(), auto=False).arun("x"))
    assert result.text == "ok"
    assert tool_messages(model.inner.requests[2])[-1].content == "sunny in Lima"


def test_sync_run_works_with_an_async_only_model() -> None:
    class AsyncOnly:
        def __init__(self) -> None:
            self.inner = ScriptedChatModel([answer("async ok")])

        async def acomplete(self, request: ChatRequest) -> ChatResponse:
            await asyncio.sleep(0)
            return self.inner.complete(request)

    assert Advisor(AsyncOnly(), ALL, ReferenceToolIndex(), auto=False).run("x").text == "async ok"


# --- native deferred-tool mode ---------------------------------------------------------


def test_native_mode_sends_every_tool_deferred_and_answers_with_references() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="weather forecast")),
            calls(call("get_weather", city="Kyiv")),
            answer("ok"),
        ],
        supports_tool_references=True,
    )
    make_advisor(model, pinned=["send_email"]).run("x")
    for request in model.requests:
        assert names(request) == ["send_email", "tool_search"]  # never changes: cache holds
        assert {t.name for t in request.deferred_tools} == {
            "get_weather", "create_invoice", "convert_currency", "explode",
        }  # fmt: skip
    search_result = tool_messages(model.requests[1])[0]
    assert search_result.tool_references[0] == "get_weather"
    assert tool_messages(model.requests[2])[-1].content == "sunny in Kyiv"


def test_native_mode_still_refuses_tools_never_referenced() -> None:
    model = ScriptedChatModel([calls(call("explode")), answer("ok")], supports_tool_references=True)
    make_advisor(model).run("x")
    error = tool_messages(model.requests[1])[0]
    assert error.is_error and "not loaded" in error.content


def test_a_session_indexing_a_large_catalog_does_not_stall_other_sessions() -> None:
    release = threading.Event()
    indexing = threading.Event()

    class SlowIndex(ReferenceToolIndex):
        def replace_tools(self, session_id: str, tools: object) -> None:
            if session_id == "slow":
                indexing.set()
                assert release.wait(10), "the other session never finished"
            super().replace_tools(session_id, tools)

    index = SlowIndex()
    sessions = SessionManager(index)
    slow = make_advisor(ScriptedChatModel([answer("slow")]), index=None, sessions=sessions)
    fast = make_advisor(
        ScriptedChatModel([calls(call("tool_search", query="weather")), answer("fast")]),
        index=None,
        sessions=sessions,
    )
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(slow.run, "x", session_id="slow")
        assert indexing.wait(10)
        assert fast.run("x", session_id="fast").text == "fast"  # while "slow" is indexing
        release.set()
        assert pending.result(10).text == "slow"


def test_concurrent_async_sessions_are_isolated() -> None:
    index = ReferenceToolIndex()

    async def one(i: int) -> list[str]:
        registry = ToolRegistry([Tool.from_callable(get_weather, name=f"forecast_{i}")])

        async def search(request: ChatRequest) -> ChatResponse:
            await asyncio.sleep(0.01 * (5 - i))  # finish in reverse order of start
            return calls(call("tool_search", query="weather forecast"))

        class Model:
            def __init__(self) -> None:
                self.inner = ScriptedChatModel([answer("ok")])
                self.first = True

            async def acomplete(self, request: ChatRequest) -> ChatResponse:
                if self.first:
                    self.first = False
                    return await search(request)
                return self.inner.complete(request)

        model = Model()
        await Advisor(model, registry, index, auto=False).arun("x", session_id=f"a{i}")
        return names(model.inner.requests[0])

    async def everyone() -> list[list[str]]:
        return list(await asyncio.gather(*(one(i) for i in range(5))))

    for i, sent in enumerate(asyncio.run(everyone())):
        assert sent == ["tool_search", f"forecast_{i}"]


def test_no_answer_the_model_gets_grows_with_its_arguments() -> None:
    """Issue 38, 7: through the loop, a search or tool call's bad arguments were echoed
    whole (100,000-number `queries`: 300,114 characters; `select:` with 100,000 names)."""
    huge = "x" * 1_000_000
    model = ScriptedChatModel(
        [
            calls(
                call("tool_search", query="weather", queries=list(range(100_000))),
                call("tool_search", query="weather", max_results=huge),
                call("tool_search", query="select:" + ",".join(f"t{n}" for n in range(100_000))),
            ),
            calls(call("tool_search", query="select:get_weather")),
            calls(call("get_weather", city=list(range(100_000)))),
            answer("done"),
        ]
    )
    result = make_advisor(model).run("Weather?")
    answers = [m.content for m in result.messages if m.role == "tool"]
    assert len(answers) == 5
    for content in answers:
        assert len(content) < 1_000, (len(content), content[:200])
    assert "of 100,000 items)" in answers[0]
    assert "(1,000,000 characters)" in answers[1]
    assert "(and 99,995 more) (100,000 names)" in answers[2]
    assert "of 100,000 items)" in answers[4]
