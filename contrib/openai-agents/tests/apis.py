"""The two OpenAI wire formats the Agents SDK speaks, for scripting the local server.

Each class builds the replies the server sends (tool calls, an answer) and reads what a
request body carried (tool names, tool results, instructions), so one test runs over the
Responses API (the SDK's default model) and over Chat Completions.
"""

from __future__ import annotations

import json
from typing import Any

from agents import OpenAIChatCompletionsModel, OpenAIResponsesModel
from openai import AsyncOpenAI
from toolscout.testing import wire as chat_wire

Call = tuple[str, str, dict[str, Any]]


class ChatCompletions:
    """POST /v1/chat/completions through `OpenAIChatCompletionsModel`."""

    path = "/v1/chat/completions"

    def model(self, client: AsyncOpenAI) -> Any:
        return OpenAIChatCompletionsModel("gpt-test", client)

    def calls(self, *calls: Call) -> dict[str, Any]:
        return chat_wire.calls(*calls)

    def answer(self, text: str) -> dict[str, Any]:
        return chat_wire.answer(text)

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        return chat_wire.tool_names(body)

    def results(self, body: dict[str, Any]) -> dict[str, str]:
        return chat_wire.results(body)

    def system(self, body: dict[str, Any]) -> str:
        return chat_wire.system(body)


class Responses:
    """POST /v1/responses through `OpenAIResponsesModel` (the SDK's default)."""

    path = "/v1/responses"

    def model(self, client: AsyncOpenAI) -> Any:
        return OpenAIResponsesModel("gpt-test", client)

    def calls(self, *calls: Call) -> dict[str, Any]:
        output = [
            {
                "type": "function_call",
                "id": f"fc_{cid}",
                "call_id": cid,
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
            for cid, name, arguments in calls
        ]
        return self._reply(output)

    def answer(self, text: str) -> dict[str, Any]:
        message = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return self._reply([message])

    def _reply(self, output: list[dict[str, Any]]) -> dict[str, Any]:
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
                "input_tokens": 100,
                "output_tokens": 10,
                "total_tokens": 110,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        return [t.get("name") or t["type"] for t in body.get("tools", [])]

    def results(self, body: dict[str, Any]) -> dict[str, str]:
        return {
            item["call_id"]: item["output"]
            for item in body["input"]
            if item.get("type") == "function_call_output"
        }

    def system(self, body: dict[str, Any]) -> str:
        return str(body.get("instructions") or "")


API = ChatCompletions | Responses
