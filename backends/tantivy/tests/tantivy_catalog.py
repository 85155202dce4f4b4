"""A small catalog of realistic tools shared by the tests."""

from __future__ import annotations

from typing import Any

from toolscout import ToolReference
from toolscout_tantivy import TantivyToolIndex


def keyword_index(**options: Any) -> TantivyToolIndex:
    """The tantivy engine alone (`embedder="none"`): these tests specify its own scores,
    matches and order; core's hybrid ranking over it has tests of its own, and the
    conformance suite runs the default, hybrid where an embedder is installed."""
    return TantivyToolIndex(embedder="none", **options)


def tool(name: str, description: str, **params: str) -> ToolReference:
    schema = {
        "type": "object",
        "properties": {
            key: {"type": "string", "description": text} for key, text in params.items()
        },
    }
    return ToolReference(name, description, schema)


CATALOG = [
    tool("get_weather", "Get the current weather for a city.", city="Name of the city."),
    tool("getForecast", "Forecast temperature and rain for the coming days.", days="How many."),
    tool("send_email", "Send an email message to a recipient.", to="Recipient address."),
    tool("calendar.create_event", "Create a calendar event.", start="Start time, ISO 8601."),
    tool("search_flights", "Find flights between two airports.", origin="IATA code."),
    tool("book_hotel", "Reserve a hotel room.", check_in="Arrival date."),
    tool("translate_text", "Translate text into another language.", target_lang="Language."),
    tool("stock_price", "Look up the latest share price of a company.", ticker="Symbol."),
    tool("convert_currency", "Convert an amount between currencies.", amount="The amount."),
    tool("github.list_repos", "List repositories of a GitHub user.", username="Login."),
]
