"""Fixtures: a tiny evaluation data folder in the format of ../shared/eval, written to tmp.

Two data sets, `alpha` and `beta`, that share one tool name (`get_weather`), so joining
them has a duplicate to rename.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]


def tool(name: str, description: str, *params: str) -> dict[str, Any]:
    """A tool line of tools.jsonl, with string parameters."""
    return {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {p: {"type": "string", "description": f"the {p}"} for p in params},
        },
    }


ALPHA_TOOLS = [
    tool("get_weather", "Current weather conditions for a city.", "city", "units"),
    tool("sendSlackMessage", "Post a chat message to a Slack channel.", "channel", "text"),
    tool("create_invoice", "Create an invoice for a customer order.", "customer_id", "amount"),
    tool("refund_payment", "Refund a card payment to the customer.", "payment_id"),
    tool("book_flight", "Book a flight ticket between two airports.", "origin", "destination"),
    tool("translate_text", "Translate text into another language.", "text", "target_language"),
    tool("resize_image", "Resize an image to a new width and height.", "image_url", "width"),
    tool("list_calendar_events", "List events in a calendar for a date range.", "start", "end"),
    tool("upload_file", "Upload a file to cloud storage.", "path", "bucket"),
    tool("convert_currency", "Convert an amount between currencies.", "amount", "to_currency"),
]

ALPHA_QUERIES = [
    {"query": "what is the weather in Paris", "relevant": ["get_weather"]},
    {"query": "post a message on slack", "relevant": ["sendSlackMessage"]},
    {"query": "create an invoice for order 42", "relevant": ["create_invoice"]},
    {"query": "refund the card payment", "relevant": ["refund_payment"]},
    {"query": "book a flight from Boston to Denver", "relevant": ["book_flight"]},
    {"query": "translate this text into French", "relevant": ["translate_text"]},
    {"query": "resize the image to 200 pixels wide", "relevant": ["resize_image"]},
    {"query": "list my calendar events next week", "relevant": ["list_calendar_events"]},
    {
        "query": "upload the report and convert 10 dollars to euros",
        "relevant": ["upload_file", "convert_currency"],
        "match": "groups",
        "groups": [["upload_file"], ["convert_currency"]],
    },
    {
        "query": "exchange currency or refund",
        "relevant": ["convert_currency", "refund_payment"],
        "match": "any",
    },
]

BETA_TOOLS = [
    tool("get_weather", "Weather forecast for the next days.", "location", "days"),
    tool("getStockPrice", "Latest stock price for a ticker symbol.", "ticker"),
    tool("search_recipes", "Search cooking recipes by ingredient.", "ingredient"),
    tool("play_music", "Play a song or playlist on the speaker.", "song"),
    tool("set_alarm", "Set an alarm clock for a time.", "time"),
    tool("order_pizza", "Order a pizza for delivery.", "size", "toppings"),
]

BETA_QUERIES = [
    {"query": "weather forecast for three days", "relevant": ["get_weather"]},
    {"query": "stock price of ACME", "relevant": ["getStockPrice"]},
    {"query": "recipes with tomato", "relevant": ["search_recipes"]},
    {"query": "play my favourite song", "relevant": ["play_music"]},
    {"query": "set an alarm for 7am", "relevant": ["set_alarm"]},
    {"query": "order a large pizza", "relevant": ["order_pizza"]},
]


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_dataset(
    folder: Path, tools: Sequence[dict[str, Any]], queries: Sequence[dict[str, Any]]
) -> Path:
    write_jsonl(folder / "tools.jsonl", tools)
    write_jsonl(folder / "queries.jsonl", queries)
    return folder


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """An evaluation data folder with the data sets `alpha` and `beta`."""
    root = tmp_path / "eval"
    write_dataset(root / "alpha", ALPHA_TOOLS, ALPHA_QUERIES)
    write_dataset(root / "beta", BETA_TOOLS, BETA_QUERIES)
    return root
