"""ToolscoutSearchTransform through FastMCP's real in-memory client, on a real backend."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.server.transforms.search import serialize_tools_for_output_markdown
from fastmcp.tools.base import Tool
from toolscout.errors import ConfigError, UnknownBackendError
from toolscout.testing.reference import ReferenceToolIndex
from toolscout_fastmcp import ToolscoutSearchTransform

pytestmark = pytest.mark.anyio


def catalog_server(transform: ToolscoutSearchTransform) -> FastMCP:
    server = FastMCP("catalog")

    @server.tool
    def get_weather(city: str) -> str:
        """Get the current weather forecast for a city."""
        return f"sunny in {city}"

    @server.tool
    def send_email(to: str, subject: str, body: str) -> str:
        """Send an email message to a recipient."""
        return f"sent to {to}"

    @server.tool
    def convert_currency(amount: float, source: str, target: str) -> str:
        """Convert an amount of money from one currency to another."""
        return f"{amount} {source} in {target}"

    @server.tool
    def create_invoice(customer: str, amount: float) -> str:
        """Create an invoice for a customer."""
        return "invoice 1"

    @server.tool
    def list_files(folder: str) -> list[str]:
        """List the files in a folder."""
        return ["a.txt"]

    server.add_transform(transform)
    return server


async def search(server: FastMCP, query: str) -> dict[str, Any]:
    async with Client(server) as client:
        result = await client.call_tool("search_tools", {"query": query})
    answer: dict[str, Any] = json.loads(result.content[0].text)
    return answer


def names(answer: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in answer["tools"]]


async def test_the_listing_is_the_pinned_tools_and_the_search_pair() -> None:
    server = catalog_server(ToolscoutSearchTransform(always_visible=["list_files"]))
    async with Client(server) as client:
        listed = [tool.name for tool in await client.list_tools()]
    assert listed == ["list_files", "search_tools", "call_tool"]


async def test_a_search_answers_definitions_with_confidence_best_first() -> None:
    answer = await search(catalog_server(ToolscoutSearchTransform()), "weather forecast")
    assert names(answer)[0] == "get_weather"
    best = answer["tools"][0]
    assert best["inputSchema"]["required"] == ["city"]  # callable from the answer
    assert 0.5 < best["confidence"] <= 1.0


async def test_a_found_tool_is_called_through_call_tool() -> None:
    server = catalog_server(ToolscoutSearchTransform())
    async with Client(server) as client:
        found = await client.call_tool("search_tools", {"query": "convert money currency"})
        name = json.loads(found.content[0].text)["tools"][0]["name"]
        result = await client.call_tool(
            "call_tool",
            {"name": name, "arguments": {"amount": 2, "source": "EUR", "target": "USD"}},
        )
    assert result.content[0].text == "2.0 EUR in USD"


async def test_a_pinned_tool_is_never_a_search_result() -> None:
    server = catalog_server(ToolscoutSearchTransform(always_visible=["list_files"]))
    answer = await search(server, "list the files in a folder")
    assert "list_files" not in names(answer)


async def test_words_no_tool_has_are_named() -> None:
    answer = await search(catalog_server(ToolscoutSearchTransform()), "weather forecast Lisbon")
    assert names(answer)[0] == "get_weather"
    assert answer["words_no_tool_has"] == ["Lisbon"]


async def test_an_unrelated_query_is_empty_and_says_why() -> None:
    answer = await search(
        catalog_server(ToolscoutSearchTransform()), "quantum chromodynamics lattice"
    )
    assert answer["tools"] == []
    assert answer["empty_reason"] in {"no_match", "below_confidence"}
    # Core's tool_search guidance: what to try, and the words no tool has.
    assert "rephrase" in answer["note"]
    assert "'quantum'" in answer["note"]


async def test_backend_options_reach_the_index() -> None:
    # A confidence floor no hit reaches empties every answer, and the answer says so.
    strict = ToolscoutSearchTransform(backend="regex", options={"min_confidence": 0.999})
    answer = await search(catalog_server(strict), "send an email message")
    assert answer["tools"] == []
    assert answer["empty_reason"] == "below_confidence"
    assert 0 < answer["confidence"] < 0.999


async def test_more_matches_than_shown_are_counted() -> None:
    server = catalog_server(ToolscoutSearchTransform(max_results=1))
    answer = await search(server, "amount")  # convert_currency and create_invoice have it
    assert len(answer["tools"]) == 1
    assert answer["matched"] >= 2


async def test_an_unchanged_catalog_is_not_indexed_again() -> None:
    transform = ToolscoutSearchTransform()
    server = catalog_server(transform)
    await search(server, "weather")
    await search(server, "send an email")
    assert transform.index_builds == 1


async def test_an_added_tool_is_indexed_and_found() -> None:
    transform = ToolscoutSearchTransform()
    server = catalog_server(transform)
    await search(server, "weather")

    @server.tool
    def book_flight(origin: str, destination: str) -> str:
        """Book a flight ticket between two airports."""
        return "booked"

    answer = await search(server, "book a flight ticket")
    assert transform.index_builds == 2
    assert names(answer)[0] == "book_flight"


async def test_a_redescribed_tool_is_indexed_again() -> None:
    transform = ToolscoutSearchTransform()
    server = catalog_server(transform)
    await search(server, "weather")
    server.local_provider.remove_tool("list_files")

    @server.tool(name="list_files")
    def list_files_again(folder: str) -> list[str]:
        """Show the photos stored in an album."""
        return []

    answer = await search(server, "photos album")
    assert transform.index_builds == 2
    assert names(answer)[0] == "list_files"


async def test_catalogs_seen_in_turn_are_each_indexed_once() -> None:
    # Principals whose auth shows them different tools keep their own index session.
    transform = ToolscoutSearchTransform()
    first = [Tool.from_function(fn=_weather), Tool.from_function(fn=_email)]
    second = first[:1]
    for tools in (first, second, first, second):
        await transform.search_answer(tools, "weather")
    assert transform.index_builds == 2


async def test_a_serializer_of_its_own_renders_the_tools() -> None:
    transform = ToolscoutSearchTransform(
        search_result_serializer=serialize_tools_for_output_markdown
    )
    answer = await search(catalog_server(transform), "weather forecast")
    assert answer["tools"].startswith("### get_weather")
    assert answer["confidence"]["get_weather"] > 0.5


async def test_a_blank_query_is_a_tool_error_saying_what_to_send() -> None:
    server = catalog_server(ToolscoutSearchTransform())
    async with Client(server) as client:
        result = await client.call_tool("search_tools", {"query": "  "}, raise_on_error=False)
    assert result.is_error
    assert result.content[0].text.startswith("search_tools needs a query")


def test_an_unknown_backend_names_the_installed_ones() -> None:
    with pytest.raises(UnknownBackendError) as error:
        ToolscoutSearchTransform(backend="nosuch")
    message = str(error.value)
    assert "'nosuch'" in message and "regex" in message
    assert "\n" not in message


def test_an_unknown_option_names_the_allowed_ones() -> None:
    with pytest.raises(ConfigError, match=r"'bogus'.*allowed keys: .*name_weight"):
        ToolscoutSearchTransform(backend="regex", options={"bogus": 1})


def test_a_bad_max_results_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="max_results"):
        ToolscoutSearchTransform(max_results=0)


def test_an_index_and_a_backend_together_are_refused() -> None:
    index = ToolscoutSearchTransform().index
    with pytest.raises(ValueError, match="either index or backend"):
        ToolscoutSearchTransform(index=index, backend="regex")


def _weather(city: str) -> str:
    """Get the weather for a city."""
    return city


def _email(to: str) -> str:
    """Send an email."""
    return to


def test_a_secret_in_a_bad_option_is_not_repeated() -> None:
    with pytest.raises(ConfigError) as error:
        ToolscoutSearchTransform(backend="regex", options={"bogus": "postgresql://u:hunter2@h/db"})
    assert "hunter2" not in str(error.value)


async def test_a_tool_edited_in_place_is_indexed_again() -> None:
    transform = ToolscoutSearchTransform()
    tools = [Tool.from_function(fn=_weather), Tool.from_function(fn=_email)]
    await transform.search_answer(tools, "weather")
    tools[1].description = "Book a table at a restaurant."
    answer = await transform.search_answer(tools, "book a restaurant table")
    assert transform.index_builds == 2
    assert answer["tools"][0]["name"] == "_email"


async def test_a_ready_index_is_searched() -> None:
    index = ReferenceToolIndex()
    transform = ToolscoutSearchTransform(index=index)
    answer = await search(catalog_server(transform), "convert currency")
    assert transform.index is index
    assert names(answer)[0] == "convert_currency"
