"""The standard integration suite (`toolscout.testing.integration`) on ToolscoutTools, in
real Agents SDK runs with the SDK's real models, over the Responses API (the SDK's
default) and Chat Completions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner, function_tool
from apis import API
from toolscout.testing.integration import IntegrationConformance
from toolscout_openai_agents import ToolscoutTools


def run_config(scout: ToolscoutTools) -> RunConfig:
    """As the docs say to run: a call to a tool not yet found goes back to the model."""
    return RunConfig(
        tool_not_found_behavior="return_error_to_model",
        tool_error_formatter=scout.format_tool_error,
    )


class TestOpenAIAgentsTools(IntegrationConformance):
    @pytest.fixture
    def wire(self, api: API) -> API:
        # conftest's `api` runs each test over both formats, with the SDK's model for each.
        return api

    def make_tool(
        self, function: Callable[..., Any], name: str | None = None, description: str | None = None
    ) -> FunctionTool:
        return function_tool(function, name_override=name, description_override=description)

    def agent(
        self, model: Any, tools: Any, instructions: str | None, options: Any
    ) -> tuple[Agent[Any], ToolscoutTools]:
        scout = ToolscoutTools(tools, **options)
        text = "\n\n".join(part for part in (instructions, scout.instructions) if part)
        agent = Agent(name="assistant", instructions=text or None, tools=scout.tools, model=model)
        return agent, scout

    def run(
        self,
        model: Any,
        tools: Any,
        prompt: str,
        *,
        instructions: str | None = None,
        **options: Any,
    ) -> str:
        agent, scout = self.agent(model, tools, instructions, options)
        result = Runner.run_sync(agent, prompt, run_config=run_config(scout), hooks=scout.hooks)
        return str(result.final_output)

    async def run_async(
        self,
        model: Any,
        tools: Any,
        prompt: str,
        *,
        instructions: str | None = None,
        **options: Any,
    ) -> str:
        agent, scout = self.agent(model, tools, instructions, options)
        result = await Runner.run(agent, prompt, run_config=run_config(scout), hooks=scout.hooks)
        return str(result.final_output)
