"""The standard integration suite (`toolscout.testing.integration`) on ToolSearchMiddleware,
in a real `create_agent` graph with the real ChatOpenAI on the local wire server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain.agents import create_agent
from langchain_core.tools import StructuredTool
from toolscout import ToolRegistry
from toolscout.testing.integration import IntegrationConformance
from toolscout_langchain import ToolSearchMiddleware


class TestLangChainMiddleware(IntegrationConformance):
    def make_tool(
        self, function: Callable[..., Any], name: str | None = None, description: str | None = None
    ) -> StructuredTool:
        return StructuredTool.from_function(function, name=name, description=description)

    def agent(self, model: Any, tools: Any, instructions: str | None, options: Any) -> Any:
        # A registry is handed to the middleware; tools of the framework go to the agent.
        if isinstance(tools, ToolRegistry):
            middleware, tools = ToolSearchMiddleware(tools=tools, **options), []
        else:
            middleware = ToolSearchMiddleware(**options)
        return create_agent(model, tools=tools, middleware=[middleware], system_prompt=instructions)

    def run(
        self,
        model: Any,
        tools: Any,
        prompt: str,
        *,
        instructions: str | None = None,
        **options: Any,
    ) -> str:
        agent = self.agent(model, tools, instructions, options)
        out = agent.invoke({"messages": [{"role": "user", "content": prompt}]})
        return str(out["messages"][-1].content)

    async def run_async(
        self,
        model: Any,
        tools: Any,
        prompt: str,
        *,
        instructions: str | None = None,
        **options: Any,
    ) -> str:
        agent = self.agent(model, tools, instructions, options)
        out = await agent.ainvoke({"messages": [{"role": "user", "content": prompt}]})
        return str(out["messages"][-1].content)
