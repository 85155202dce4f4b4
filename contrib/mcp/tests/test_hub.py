"""`McpToolHub` against real MCP servers: indexing, naming, routing, changes and failures.

The upstreams are the SDK servers in upstreams.py, started over stdio (and one over
streamable HTTP); the index is the regex backend, the default one.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from conftest import entry
from toolscout.advisor.tools import ToolArgumentsError
from toolscout_mcp.hub import McpToolHub, UnknownTool, result_text
from toolscout_mcp.servers import parse_servers
from toolscout_mcp.upstream import RestartPolicy, ServerUnavailable, ToolCallTimeout

pytestmark = pytest.mark.anyio


def servers(**entries: dict[str, Any]) -> list[Any]:
    return parse_servers({"mcpServers": entries})


@pytest.fixture(scope="module")
async def hub(web_url: str) -> AsyncIterator[McpToolHub]:
    """Several servers: two that share a tool name, one over HTTP, one slow, two broken."""
    configured = servers(
        calendar=entry("calendar"),
        chat=entry("chat"),
        web={"url": web_url},
        slow=entry("slow", timeout=1),
        broken={"command": "/nonexistent/mcp-server", "args": ["--stdio"]},
        stuck=entry("never_ready", startupTimeout=2),
    )
    async with McpToolHub(configured) as started:
        yield started


async def test_the_tools_of_every_started_server_are_indexed(hub: McpToolHub) -> None:
    assert set(hub.tools) == {
        "create_event",
        "list_events",
        "calendar__send_message",
        "chat__send_message",
        "list_channels",
        "fetch_page",
        "render_report",
    }


async def test_only_colliding_names_are_namespaced_and_metadata_keeps_the_origin(
    hub: McpToolHub,
) -> None:
    tool = hub.tools["chat__send_message"]
    assert (tool.server, tool.original) == ("chat", "send_message")
    assert tool.reference.metadata == {"server": "chat", "tool": "send_message"}
    assert hub.tools["create_event"].reference.metadata["server"] == "calendar"


async def test_a_call_reaches_the_owning_server_under_its_own_name(hub: McpToolHub) -> None:
    chat = await hub.call_text("chat__send_message", {"channel": "general", "text": "hi"})
    calendar = await hub.call_text("calendar__send_message", {"channel": "general", "text": "hi"})
    assert chat == "chat: posted to general: hi"
    assert calendar == "calendar: reminder to general: hi"


async def test_a_streamable_http_server_is_indexed_and_callable(hub: McpToolHub) -> None:
    assert hub.tools["fetch_page"].server == "web"
    assert await hub.call_text("fetch_page", {"url": "https://example.org"}) == (
        "web: title of https://example.org"
    )


async def test_search_ranks_the_tool_that_fits_first(hub: McpToolHub) -> None:
    found = await hub.search("create a calendar event", 3)
    assert found[0].name == "create_event"
    assert len(found) <= 3


async def test_search_can_keep_one_servers_tools(hub: McpToolHub) -> None:
    found = await hub.search("send a message to a channel", 5, server="chat")
    assert found
    assert {tool.server for tool in found} == {"chat"}


async def test_a_search_is_a_retrieval_span_of_the_genai_conventions(hub: McpToolHub) -> None:
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from toolscout import telemetry

    spans = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry.configure(tracer_provider=provider)
    try:
        await hub.search("create a calendar event", 3)
    finally:
        telemetry.configure()
    (span,) = spans.get_finished_spans()
    assert span.name == "retrieval"
    assert span.attributes["gen_ai.operation.name"] == "retrieval"
    assert span.attributes["gen_ai.data_source.id"] == span.attributes["toolscout.backend"]
    assert span.attributes["toolscout.search.hits"] >= 1
    assert "calendar" not in str(dict(span.attributes))  # no query text unless asked


async def test_search_for_an_unknown_server_names_the_configured_ones(hub: McpToolHub) -> None:
    with pytest.raises(ValueError, match="unknown server 'nope'; configured: calendar, chat"):
        await hub.search("message", server="nope")


async def test_a_server_that_cannot_start_is_reported_by_kind_and_logged_in_detail(
    hub: McpToolHub,
) -> None:
    # What clients see names the kind of failure; the log adds the error, paths blanked.
    assert hub.failures["broken"] == "failed to start: its command was not found"
    detail = hub.upstreams["broken"].detail or ""
    assert detail.startswith("failed to start: its command was not found [command 'mcp-server'")
    assert "FileNotFoundError: [Errno 2] No such file or directory" in detail
    assert "/nonexistent" not in detail


async def test_a_server_that_never_answers_fails_after_its_startup_timeout(
    hub: McpToolHub,
) -> None:
    assert "did not start within 2s (startupTimeout)" in hub.failures["stuck"]


async def test_a_failed_servers_tools_get_its_error_and_the_others_keep_working(
    hub: McpToolHub,
) -> None:
    with pytest.raises(ServerUnavailable, match="MCP server 'broken' is unavailable: failed"):
        await hub.call("broken__anything", {})
    assert "general" in await hub.call_text("list_channels")


async def test_an_unknown_tool_says_so_and_names_the_servers_that_are_down(
    hub: McpToolHub,
) -> None:
    with pytest.raises(UnknownTool) as caught:
        await hub.call("launch_rocket", {})
    assert "unknown tool 'launch_rocket'" in str(caught.value)
    assert "broken, stuck" in str(caught.value)


async def test_a_shared_bare_name_lists_the_namespaced_choices(hub: McpToolHub) -> None:
    with pytest.raises(UnknownTool, match="calendar__send_message, chat__send_message"):
        await hub.call("send_message", {"channel": "a", "text": "b"})


async def test_bad_arguments_are_refused_before_the_server_is_called(hub: McpToolHub) -> None:
    with pytest.raises(ToolArgumentsError, match="missing required argument 'start'"):
        await hub.call("create_event", {"title": "Demo"})
    with pytest.raises(ToolArgumentsError, match="must be a JSON object"):
        await hub.call("create_event", ["Demo"])


async def test_a_slow_call_times_out_while_other_servers_answer(hub: McpToolHub) -> None:
    answers: list[tuple[str, float]] = []
    started = time.perf_counter()

    async def fast() -> None:
        text = await hub.call_text("list_events", {"day": "monday"})
        answers.append((text, time.perf_counter() - started))

    async with anyio.create_task_group() as tg:
        tg.start_soon(fast)
        with pytest.raises(ToolCallTimeout, match="'slow' did not answer the call to 'render_re"):
            await hub.call("render_report", {"seconds": 30})
    elapsed = time.perf_counter() - started
    assert elapsed < 10, "the call should be abandoned after the 1 s timeout"
    assert answers and answers[0][1] < elapsed
    # A timeout is not a crash: the server still serves quick calls.
    assert await hub.call_text("render_report", {"seconds": 0}) == "report rendered in 0.0s"


async def test_the_hub_tools_run_as_advisor_tools(hub: McpToolHub) -> None:
    registry = hub.tool_registry()
    assert "create_event" in registry
    result = await registry["create_event"].acall({"title": "Demo", "start": "9:00"})
    assert result == "calendar: created 'Demo' at 9:00 with 0 attendees"


async def test_result_text_prefers_text_blocks(hub: McpToolHub) -> None:
    result = await hub.call("list_channels", {})
    assert not result.is_error
    assert "general" in result_text(result)


async def test_always_namespace_prefixes_every_tool() -> None:
    async with McpToolHub(servers(chat=entry("chat")), always_namespace=True) as hub:
        assert set(hub.tools) == {"chat__send_message", "chat__list_channels"}
        assert await hub.call_text("chat__list_channels") != ""


async def test_a_crashed_server_loses_only_its_own_tools() -> None:
    configured = servers(crashy=entry("crashy"), chat=entry("chat"))
    # Restarts are tested on their own; here the server stays down.
    async with McpToolHub(configured, restart=RestartPolicy(enabled=False)) as hub:
        assert await hub.call_text("echo_back", {"text": "ok"}) == "ok"
        with pytest.raises(ServerUnavailable, match="'crashy' is unavailable: its process exited"):
            await hub.call("crash_now", {})
        with pytest.raises(ServerUnavailable, match="'crashy' is unavailable"):
            await hub.call("echo_back", {"text": "again"})
        with pytest.raises(ServerUnavailable, match="'crashy' is unavailable"):
            await hub.call("crashy__anything", {})
        assert "echo_back" not in hub.tools
        assert "echo_back" not in [tool.name for tool in await hub.search("echo text back")]
        assert "posted" in await hub.call_text(
            "chat__send_message" if "chat__send_message" in hub.tools else "send_message",
            {"channel": "general", "text": "still here"},
        )
        assert "crashy" in hub.failures


async def test_tools_list_changed_reindexes_that_server() -> None:
    changed = anyio.Event()
    seen: list[str] = []

    async def listener(server: str) -> None:
        seen.append(server)
        changed.set()

    async with McpToolHub(servers(changing=entry("changing"), chat=entry("chat"))) as hub:
        hub.add_listener(listener)
        assert not await hub.search("convert currency amounts")
        await hub.call(
            "install_plugin",
            {"tool_name": "convert_currency", "description": "Convert currency amounts."},
        )
        with anyio.fail_after(20):
            await changed.wait()
        assert seen == ["changing"]
        found = await hub.search("convert currency amounts")
        assert found[0].name == "convert_currency"
        assert await hub.call_text("convert_currency") == "convert_currency ran"

        changed = anyio.Event()
        await hub.call("uninstall_plugin", {"tool_name": "convert_currency"})
        with anyio.fail_after(20):
            await changed.wait()
        assert "convert_currency" not in hub.tools
        with pytest.raises(UnknownTool):
            await hub.call("convert_currency", {})
