"""The two OpenAI wire formats the Agents SDK speaks, each with the SDK's model class for it.

The reply builders and request readers are core's (`toolscout.testing.wire`), so one test
runs over the Responses API (the SDK's default model) and over Chat Completions.
"""

from __future__ import annotations

from typing import Any

from agents import OpenAIChatCompletionsModel, OpenAIResponsesModel
from openai import AsyncOpenAI
from toolscout.testing import wire


class ChatCompletions(wire.ChatCompletions):
    """POST /v1/chat/completions through `OpenAIChatCompletionsModel`."""

    def model(self, client: AsyncOpenAI) -> Any:
        return OpenAIChatCompletionsModel("gpt-test", client)


class Responses(wire.Responses):
    """POST /v1/responses through `OpenAIResponsesModel` (the SDK's default)."""

    def model(self, client: AsyncOpenAI) -> Any:
        return OpenAIResponsesModel("gpt-test", client)


API = ChatCompletions | Responses
