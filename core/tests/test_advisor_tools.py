"""Tools for the advisor: schemas from callables, pre-built definitions, validation, handlers."""

from __future__ import annotations

import asyncio
import json
from enum import Enum
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel
from toolscout.advisor import Tool, ToolArgumentsError, ToolRegistry, tool
from toolscout.advisor.tools import check_arguments, parse_docstring
from toolscout.types import ToolReference


class Unit(Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


def get_weather(city: str, days: int = 1, unit: Unit = Unit.CELSIUS) -> str:
    """Get the weather forecast for a city.

    Longer explanation that is still part of the description.

    Args:
        city: The city name, e.g. Paris.
        days: How many days ahead,
            counted from today.
        unit: Temperature unit.
    """
    return f"{city}:{days}:{unit.value}"


def test_schema_comes_from_signature_hints_and_docstring() -> None:
    weather = Tool.from_callable(get_weather)
    schema = dict(weather.reference.input_schema or {})
    assert weather.name == "get_weather"
    assert weather.reference.description.startswith("Get the weather forecast for a city.")
    assert "Longer explanation" in weather.reference.description
    assert "Args:" not in weather.reference.description
    props = schema["properties"]
    assert props["city"]["type"] == "string"
    assert props["city"]["description"] == "The city name, e.g. Paris."
    assert props["days"]["type"] == "integer"
    assert props["days"]["default"] == 1
    assert props["days"]["description"] == "How many days ahead, counted from today."
    assert list(schema["required"]) == ["city"]
    assert schema["additionalProperties"] is False
    assert "title" not in schema and "title" not in props["city"]
    assert "celsius" in json.dumps(schema)


def test_sphinx_and_numpy_docstrings_give_parameter_descriptions() -> None:
    _, sphinx = parse_docstring("Do it.\n\n:param x: the x value\n:param int y: the y\n:returns: z")
    assert sphinx == {"x": "the x value", "y": "the y"}
    _, numpy = parse_docstring(
        "Do it.\n\nParameters\n----------\nx : int\n    The x value.\ny : str\n    Why.\n"
    )
    assert numpy == {"x": "The x value.", "y": "Why."}


def test_decorator_with_and_without_options() -> None:
    @tool
    def ping() -> str:
        """Check the service is up."""
        return "pong"

    @tool(name="send", description="Send a message.", pinned=True)
    def send_message(to: str, text: str) -> str:
        return f"{to}<-{text}"

    assert isinstance(ping, Tool) and ping.call({}) == "pong"
    assert send_message.name == "send"
    assert send_message.pinned
    assert send_message.reference.description == "Send a message."
    assert send_message.call({"to": "ann", "text": "hi"}) == "ann<-hi"


def test_registry_register_keeps_the_function_callable() -> None:
    registry = ToolRegistry()

    @registry.register()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    assert add(2, 3) == 5
    assert registry["add"].call({"a": "2", "b": 3}) == 5  # pydantic coerces "2"


def test_invalid_arguments_raise_naming_the_argument() -> None:
    weather = Tool.from_callable(get_weather)
    with pytest.raises(ToolArgumentsError, match="missing required argument 'city'"):
        weather.call({})
    with pytest.raises(ToolArgumentsError, match="days"):
        weather.call({"city": "Paris", "days": "many"})
    with pytest.raises(ToolArgumentsError, match="unexpected argument 'colour'"):
        weather.call({"city": "Paris", "colour": "red"})
    with pytest.raises(ToolArgumentsError, match="must be a JSON object"):
        weather.call(["Paris"])  # type: ignore[arg-type]


class Address(BaseModel):
    street: str
    zip: str


def test_pydantic_models_literals_and_lists_as_parameters() -> None:
    def ship(to: Address, speed: Literal["fast", "slow"], items: list[str]) -> str:
        """Ship items."""
        return f"{to.street}/{speed}/{len(items)}"

    shipping = Tool.from_callable(ship)
    assert "$defs" in json.dumps(shipping.reference.input_schema)
    result = shipping.call(
        {"to": {"street": "Main", "zip": "1"}, "speed": "fast", "items": ["a", "b"]}
    )
    assert result == "Main/fast/2"
    with pytest.raises(ToolArgumentsError, match="speed"):
        shipping.call({"to": {"street": "Main", "zip": "1"}, "speed": "warp", "items": []})


def test_unresolvable_type_hint_is_named() -> None:
    def broken(x: NoSuchType) -> None:  # type: ignore[name-defined]  # noqa: F821
        """Broken."""

    with pytest.raises(TypeError, match=r"NoSuchType.*parameter 'x'"):
        Tool.from_callable(broken)


def test_var_args_and_positional_only_parameters_are_refused() -> None:
    def spread(*names: str) -> None: ...

    def positional(a: int, /) -> None: ...

    with pytest.raises(TypeError, match=r"takes \*names"):
        Tool.from_callable(spread)
    with pytest.raises(TypeError, match="positional-only"):
        Tool.from_callable(positional)
    with pytest.raises(ValueError, match="pass name="):
        Tool.from_callable(lambda: None)


def test_async_handlers_run_from_sync_and_async_calls() -> None:
    async def lookup(key: str) -> str:
        """Look a key up."""
        await asyncio.sleep(0)
        return key.upper()

    def sync_lookup(key: str) -> str:
        return key * 2

    async_tool = Tool.from_callable(lookup)
    sync_tool = Tool.from_callable(sync_lookup)
    assert async_tool.is_async and not sync_tool.is_async
    assert async_tool.call({"key": "a"}) == "A"
    assert asyncio.run(async_tool.acall({"key": "b"})) == "B"
    assert asyncio.run(sync_tool.acall({"key": "c"})) == "cc"


def test_definition_in_openai_form_with_a_handler() -> None:
    definition = {
        "type": "function",
        "function": {
            "name": "create_issue",
            "description": "Create an issue.",
            "parameters": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "priority": {"type": "integer", "enum": [1, 2, 3]},
                },
                "required": ["title"],
                "additionalProperties": False,
            },
        },
    }
    issue = Tool.from_definition(definition, lambda title, priority=2: f"{title}#{priority}")
    assert issue.name == "create_issue"
    assert issue.call({"title": "bug", "priority": 1}) == "bug#1"
    with pytest.raises(ToolArgumentsError, match="missing required argument 'title'"):
        issue.call({})
    with pytest.raises(ToolArgumentsError, match="must be one of"):
        issue.call({"title": "bug", "priority": 9})
    with pytest.raises(ToolArgumentsError, match="unexpected argument 'owner'"):
        issue.call({"title": "bug", "owner": "me"})
    with pytest.raises(ToolArgumentsError, match="expected string"):
        issue.call({"title": 5})


def test_check_arguments_accepts_python_type_names_used_by_catalogs() -> None:
    schema = {"type": "dict", "properties": {"n": {"type": "float"}, "xs": {"type": "list"}}}
    assert check_arguments(schema, {"n": 1.5, "xs": [1]}) == []
    assert check_arguments(schema, {"n": "x"}) == ['n: expected number, got "x"']


def test_catalog_file_with_one_dispatch_handler(tmp_path: Path) -> None:
    catalog = tmp_path / "tools.jsonl"
    catalog.write_text(
        "\n".join(
            json.dumps(t)
            for t in [
                {
                    "name": "math.sum",
                    "description": "Sum numbers.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"xs": {"type": "array"}},
                        "required": ["xs"],
                    },
                },
                {
                    "name": "echo",
                    "description": "Echo text.",
                    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                },
            ]
        )
    )
    seen: list[tuple[str, dict[str, object]]] = []

    def dispatch(name: str, arguments: dict[str, object]) -> str:
        seen.append((name, arguments))
        return "ok"

    registry = ToolRegistry()
    registry.add_catalog(catalog, dispatch)
    assert registry.names == ["math.sum", "echo"]
    assert registry["math.sum"].call({"xs": [1, 2]}) == "ok"
    assert seen == [("math.sum", {"xs": [1, 2]})]


def test_catalog_with_missing_handlers_names_them() -> None:
    refs = [ToolReference("a"), ToolReference("b"), ToolReference("c")]
    with pytest.raises(ValueError, match=r"no handler for 2 catalog tool.*b, c"):
        ToolRegistry().add_catalog(refs, {"a": lambda: 1})


def test_duplicate_tool_names_are_refused() -> None:
    registry = ToolRegistry([get_weather])
    with pytest.raises(ValueError, match="already registered"):
        registry.add(get_weather)


def test_fingerprint_is_cached_and_changes_with_the_tool_set() -> None:
    registry = ToolRegistry([get_weather])
    first = registry.fingerprint
    assert registry.fingerprint is first
    registry.add(lambda x: x, name="identity")
    assert registry.fingerprint != first
    registry.remove("identity")
    assert registry.fingerprint == first
