"""The standard integration suite (`toolscout.testing.integration`) on ToolscoutToolset, in
a real PydanticAI agent with the real OpenAIChatModel on the local wire server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_ai import Agent, Tool
from toolscout.testing.integration import IntegrationConformance
from toolscout_pydantic_ai import ToolscoutToolset


class TestPydanticAIToolset(IntegrationConformance):
    def make_tool(
        self, function: Callable[..., Any], name: str | None = None, description: str | None = None
    ) -> Tool[Any]:
        return Tool(function, name=name, description=description)

    def agent(self, model: Any, tools: Any, instructions: str | None, options: Any) -> Agent[Any]:
        toolset: ToolscoutToolset[Any] = ToolscoutToolset(tools, **options)
        # The telemetry capability records each reply's prompt and cached tokens.
        return Agent(
            model, instructions=instructions, toolsets=[toolset], capabilities=[toolset.telemetry]
        )

    def run(
        self,
        model: Any,
        tools: Any,
        prompt: str,
        *,
        instructions: str | None = None,
        **options: Any,
    ) -> str:
        return str(self.agent(model, tools, instructions, options).run_sync(prompt).output)

    async def run_async(
        self,
        model: Any,
        tools: Any,
        prompt: str,
        *,
        instructions: str | None = None,
        **options: Any,
    ) -> str:
        result = await self.agent(model, tools, instructions, options).run(prompt)
        return str(result.output)
