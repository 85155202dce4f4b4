"""The way in from MCP servers: a toolscout-mcp hub's tools in each framework integration.

A real MCP server (tests/mcp_calendar.py, over stdio) behind `McpToolHub`; its
`tool_registry()` goes into the integration as its tools; the framework's own test model
searches, calls the tool it found, and the call goes through the hub to the server.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import toolscout

pytest.importorskip("toolscout_mcp")
from toolscout_mcp import McpToolHub, parse_servers

SERVER = Path(__file__).with_name("mcp_calendar.py")


def hub() -> McpToolHub:
    servers = parse_servers(
        {"mcpServers": {"calendar": {"command": sys.executable, "args": [str(SERVER)]}}}
    )
    return McpToolHub(servers, toolscout.load_index("regex"), log=lambda line: None)


@pytest.mark.anyio
async def test_pydantic_ai_runs_an_mcp_servers_tools_found_by_search() -> None:
    pytest.importorskip("toolscout_pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from toolscout_pydantic_ai import ToolscoutToolset

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        offered = {tool.name for tool in info.function_tools}
        returns = [
            p for m in messages for p in getattr(m, "parts", ()) if isinstance(p, ToolReturnPart)
        ]
        if not returns:
            return ModelResponse(
                parts=[ToolCallPart("tool_search", {"query": "create calendar event"})]
            )
        if len(returns) == 1 and "create_event" in offered:
            arguments = {"title": "Review", "start": "2026-12-05T10:00"}
            return ModelResponse(parts=[ToolCallPart("create_event", arguments)])
        return ModelResponse(parts=[TextPart(str(returns[-1].content))])

    async with hub() as mcp:
        toolset = ToolscoutToolset(mcp.tool_registry(), toolscout.load_index("regex"), auto=False)
        result = await Agent(FunctionModel(model), toolsets=[toolset]).run("Book the review")
    assert result.output == "calendar: created 'Review' at 2026-12-05T10:00"


@pytest.mark.anyio
async def test_langchain_runs_an_mcp_servers_tools_found_by_search() -> None:
    pytest.importorskip("toolscout_langchain")
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from toolscout_langchain import ToolSearchMiddleware

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    search = {"id": "s1", "name": "tool_search", "args": {"query": "create calendar event"}}
    create = {
        "id": "c1",
        "name": "create_event",
        "args": {"title": "Review", "start": "2026-12-05T10:00"},
    }
    model = Scripted(
        messages=iter(
            [
                AIMessage("", tool_calls=[search]),
                AIMessage("", tool_calls=[create]),
                AIMessage("Booked."),
            ]
        )
    )
    async with hub() as mcp:
        middleware = ToolSearchMiddleware(
            toolscout.load_index("regex"), tools=mcp.tool_registry(), auto=False
        )
        agent = create_agent(model, middleware=[middleware])
        state = await agent.ainvoke({"messages": [{"role": "user", "content": "Book it"}]})
    results = {m.tool_call_id: m.content for m in state["messages"] if m.type == "tool"}
    assert "create_event" in results["s1"]
    assert results["c1"] == "calendar: created 'Review' at 2026-12-05T10:00"
    assert state["toolscout_loaded"][0] == "create_event"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_openai_agents_runs_an_mcp_servers_tools_found_by_search() -> None:
    pytest.importorskip("toolscout_openai_agents")
    import json

    from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage, set_tracing_disabled
    from openai.types.responses import ResponseFunctionToolCall
    from toolscout_openai_agents import ToolscoutTools

    set_tracing_disabled(True)

    class Scripted(Model):
        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            given = kwargs.get("input")
            items = given if isinstance(given, list) else []
            outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
            offered = {tool.name for tool in kwargs.get("tools") or ()}
            if not outputs:
                name, arguments = "tool_search", {"query": "create calendar event"}
            elif len(outputs) == 1 and "create_event" in offered:
                name, arguments = "create_event", {"title": "Review", "start": "2026-12-05T10:00"}
            else:
                from openai.types.responses import ResponseOutputMessage, ResponseOutputText

                text = ResponseOutputText(type="output_text", text=outputs[-1], annotations=[])
                message = ResponseOutputMessage(
                    id="m", type="message", role="assistant", status="completed", content=[text]
                )
                return ModelResponse(output=[message], usage=Usage(), response_id=None)
            call = ResponseFunctionToolCall(
                type="function_call",
                call_id=f"c{len(outputs)}",
                name=name,
                arguments=json.dumps(arguments),
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    async with hub() as mcp:
        scout = ToolscoutTools(mcp.tool_registry(), toolscout.load_index("regex"), auto=False)
        agent = Agent(
            name="a", instructions=scout.instructions, tools=scout.tools, model=Scripted()
        )
        config = RunConfig(
            tool_not_found_behavior="return_error_to_model",
            tool_error_formatter=scout.format_tool_error,
        )
        result = await Runner.run(agent, "Book the review", run_config=config)
    assert result.final_output == "calendar: created 'Review' at 2026-12-05T10:00"
