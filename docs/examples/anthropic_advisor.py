"""Progressive tool disclosure with Claude, in classic or native (deferred-tool) mode.

    pip install ./core ./backends/regex ./contrib/anthropic    # from a clone of the repository
    python docs/examples/anthropic_advisor.py           # offline: a scripted test model
    export ANTHROPIC_API_KEY=sk-ant-...
    python docs/examples/anthropic_advisor.py           # classic: discovered tools are sent
    python docs/examples/anthropic_advisor.py native    # native: defer_loading + tool_reference

Classic mode sends `tool_search` plus the tools found so far; native mode sends every tool
with `defer_loading: true` on every request and answers searches with `tool_reference`
blocks, so the tools array (and the prompt cache) never changes. See docs/advisor.md.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anthropic
import toolscout
from toolscout import Advisor, ToolRegistry
from toolscout.advisor import ChatRequest, ChatResponse
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout_anthropic import AnthropicChatModel

registry = ToolRegistry()


@registry.register()
def get_weather(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. "Lisbon".
    """
    return f"18 degrees and sunny in {city}"


@registry.register()
def create_invoice(customer: str, amount: float, currency: str = "EUR") -> dict[str, Any]:
    """Create an invoice for a customer and return its number.

    Args:
        customer: Customer name or id.
        amount: Invoice total.
        currency: ISO currency code.
    """
    return {"invoice": "INV-0042", "customer": customer, "total": f"{amount} {currency}"}


@registry.register()
async def lookup_order(order_id: str) -> str:
    """Look up the shipping status of an order.

    Args:
        order_id: The order number, e.g. A-1001.
    """
    return f"order {order_id}: shipped, arriving Friday"


def offline_model(native: bool = False) -> ScriptedChatModel:
    """Offline: toolscout's scripted test model playing the part of a real one.

    It searches, calls the tools its request offers (or, natively, references), and
    answers from their results.
    """

    def search(request: ChatRequest) -> ChatResponse:
        return calls(
            call("tool_search", query="order status"),
            call("tool_search", query="create invoice"),
        )

    def use(request: ChatRequest) -> ChatResponse:
        return calls(
            call("lookup_order", {"order_id": "A-1001"}),
            call("create_invoice", {"customer": "ACME", "amount": 120}),
        )

    def conclude(request: ChatRequest) -> ChatResponse:
        results = [m.content for m in request.messages if m.role == "tool"][-2:]
        return answer("From the tools (offline model): " + "; ".join(results))

    return ScriptedChatModel([search, use, conclude], supports_tool_references=native)


def main(mode: str = "classic", index: Any = None, prompt: str | None = None) -> str:
    """Run one question through the advisor and print what each request carried."""
    model: Any
    if os.environ.get("ANTHROPIC_API_KEY"):
        client = anthropic.Anthropic()  # reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL
        name = os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5")
        model = AnthropicChatModel(client, name, native=mode == "native", max_tokens=1024)
    else:
        print("no ANTHROPIC_API_KEY: the model is toolscout's scripted test model (offline)")
        model = offline_model(native=mode == "native")
    # Five tools: auto mode (the default) would send them all; off here to show search.
    index = index if index is not None else toolscout.load_index()
    advisor = Advisor(model, registry, index, auto=False)
    result = advisor.run(
        prompt or "Where is order A-1001, and please invoice ACME 120 EUR for it.",
        context={"toolscout_session_id": "example-user"},
    )
    for iteration in result.iterations:
        usage = iteration.usage
        print(
            f"request {iteration.number}: tools={list(iteration.tools)} "
            f"deferred={iteration.deferred_tools} "
            f"input_tokens={usage.input_tokens if usage else '?'} "
            f"cache_read={usage.cache_read_tokens if usage else '?'}"
        )
    print(f"total usage: {result.usage}")
    print(result.text)
    return result.text


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "classic")
