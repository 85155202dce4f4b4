"""Test helpers shared by the regex backend's tests: a tool builder and a small catalog."""

from __future__ import annotations

from typing import Any

from toolscout import ToolReference
from toolscout_regex import RegexToolIndex

SESSION = "s1"


def keyword_index(**options: Any) -> RegexToolIndex:
    """The regex engine alone (`embedder="none"`): these tests specify its own scores and
    order; core's hybrid ranking over it has tests of its own, and the conformance suite
    runs the default, hybrid where an embedder is installed."""
    return RegexToolIndex(embedder="none", **options)


def tool(name: str, description: str = "", **parameters: str) -> ToolReference:
    """A tool whose parameters are strings described by the keyword values."""
    schema = {
        "type": "object",
        "properties": {
            key: {"type": "string", "description": text} for key, text in parameters.items()
        },
    }
    return ToolReference(name, description, schema if parameters else None)


CATALOG = [
    tool("get_weather_data", "Current weather conditions for a city.", city="City name"),
    tool("get_stock_data", "Latest stock quote for a ticker symbol.", symbol="Ticker symbol"),
    tool("get_weather", "Weather forecast for the next days.", location="Place to forecast"),
    tool("fetch_data", "Download a file from a URL.", url="Address of the file"),
    tool("github_create_issue", "Open an issue in a GitHub repository.", repo="owner/name"),
    tool("github_list_pulls", "List pull requests of a repository.", repo="owner/name"),
    tool("create_github_gist", "Create a gist on GitHub.", content="Gist body"),
    tool("slack_send_message", "Send a message to a Slack channel.", channel="Channel id"),
    tool("calculate_mortgage", "Monthly payment of a home loan.", principal="Loan amount"),
    tool("calendar_create_event", "Add an event to a calendar.", title="Event title"),
]
