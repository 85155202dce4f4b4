"""The demo catalog shipped in `toolscout/data/demo_tools.jsonl`.

`toolscout search` falls back to it when no catalog is given, so it has to load with
`load_catalog` from the installed package, be big and varied enough to show what tool
search saves, and hold schemas that model providers accept.
"""

from __future__ import annotations

import importlib.resources
import json
import re
import runpy
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import toolscout
from toolscout.tokens import count_tokens, tool_definition, tool_tokens
from toolscout.types import ToolReference, thaw

RESOURCE = importlib.resources.files("toolscout") / "data" / "demo_tools.jsonl"

#: Service name → the name prefix its tools share (naming styles differ per service).
SERVICES = {
    "slack": "slack_",
    "microsoft_teams": "teams_",
    "discord": "discord_",
    "github": "github.",
    "gitlab": "gitlab_",
    "jira": "jira-",
    "linear": "linear_",
    "google_calendar": "calendar",
    "outlook_calendar": "outlook_calendar_",
    "gmail": "gmail_",
    "google_drive": "gdrive_",
    "dropbox": "dropbox_",
    "filesystem": "fs_",
    "stripe": "stripe_",
    "paypal": "paypal_",
    "shopify": "shopify_",
    "weather": "weather_",
    "notion": "notion-",
    "confluence": "confluence_",
    "zoom": "zoom_",
    "salesforce": "salesforce_",
    "hubspot": "hubspot",
    "twilio": "twilio_",
    "aws_s3": "s3.",
    "postgresql": "postgres_",
    "web_search": "web_",
    "maps": "maps_",
    "translation": "translate_",
}

#: The kinds of service issue 2 asks the demo catalog to cover.
CATEGORIES = {
    "chat": {"slack", "microsoft_teams", "discord"},
    "code hosting": {"github", "gitlab"},
    "issue tracking": {"jira", "linear"},
    "calendars": {"google_calendar", "outlook_calendar"},
    "files": {"google_drive", "dropbox", "filesystem", "aws_s3"},
    "payments": {"stripe", "paypal"},
    "weather": {"weather"},
}

JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}

# Abbreviations whose period does not end a sentence.
SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)(?<!etc)[.!?](?=\s|$)")


@pytest.fixture(scope="module")
def lines() -> list[dict[str, Any]]:
    """The raw JSON objects of the file, one per line."""
    return [json.loads(line) for line in RESOURCE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def tools() -> list[ToolReference]:
    """The catalog as `load_catalog` reads it from the installed package."""
    with importlib.resources.as_file(RESOURCE) as path:
        return toolscout.load_catalog(path)


def service_of(name: str) -> str:
    """The service whose prefix `name` starts with (longest prefix wins)."""
    matches = [service for service, prefix in SERVICES.items() if name.startswith(prefix)]
    assert matches, f"{name!r} does not start with any known service prefix"
    return max(matches, key=lambda service: len(SERVICES[service]))


def is_type(value: object, kind: str) -> bool:
    """Whether `value` is an instance of JSON Schema type `kind` (bool is not a number)."""
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    return isinstance(value, JSON_TYPES[kind])


def schema_problems(schema: Any, where: str, *, needs_description: bool) -> Iterator[str]:
    """Every way in which `schema` (and what it nests) is not a well-formed typed schema."""
    if not isinstance(schema, dict):
        yield f"{where}: not an object"
        return
    kind = schema.get("type")
    if kind not in JSON_TYPES:
        yield f"{where}: type {kind!r} is not one of {sorted(JSON_TYPES)}"
        return
    description = schema.get("description")
    if needs_description and not (isinstance(description, str) and description.strip()):
        yield f"{where}: no description"
    if "enum" in schema:
        enum = schema["enum"]
        if not isinstance(enum, list) or not enum or len(set(map(repr, enum))) != len(enum):
            yield f"{where}: enum must be a non-empty list of distinct values"
        elif not all(is_type(value, kind) for value in enum):
            yield f"{where}: enum values are not all of type {kind}"
    if "default" in schema:
        default = schema["default"]
        if not is_type(default, kind):
            yield f"{where}: default {default!r} is not of type {kind}"
        elif "enum" in schema and default not in schema["enum"]:
            yield f"{where}: default {default!r} is not among the enum values"
        if "minimum" in schema and default < schema["minimum"]:
            yield f"{where}: default {default!r} is below the minimum"
        if "maximum" in schema and default > schema["maximum"]:
            yield f"{where}: default {default!r} is above the maximum"
    if "minimum" in schema and "maximum" in schema and schema["minimum"] > schema["maximum"]:
        yield f"{where}: minimum is above maximum"
    if "pattern" in schema:
        try:
            pattern = re.compile(schema["pattern"])
        except re.error as error:
            yield f"{where}: pattern does not compile ({error})"
        else:
            if "default" in schema and not pattern.search(schema["default"]):
                yield f"{where}: default does not match the pattern"
    if kind == "array":
        yield from schema_problems(schema.get("items"), f"{where}[]", needs_description=False)
    if kind == "object":
        properties = schema.get("properties", {})
        if not isinstance(properties, dict):
            yield f"{where}: properties is not an object"
            return
        if not properties and "additionalProperties" not in schema:
            yield f"{where}: an object needs properties or additionalProperties"
        for name, sub in properties.items():
            yield from schema_problems(sub, f"{where}.{name}", needs_description=True)
        required = schema.get("required", [])
        if not set(required) <= set(properties):
            yield f"{where}: required {sorted(set(required) - set(properties))} not in properties"
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            yield from schema_problems(extra, f"{where}{{*}}", needs_description=False)


def test_loads_from_the_installed_package_with_load_catalog(tools: list[ToolReference]) -> None:
    """The packaged file parses as a catalog with no errors and no stray metadata."""
    assert tools
    assert all(isinstance(tool, ToolReference) for tool in tools)
    assert all(tool.metadata is None for tool in tools)


def test_holds_a_few_hundred_tools(tools: list[ToolReference]) -> None:
    assert 250 <= len(tools) <= 400


def test_each_line_is_one_tool_in_anthropic_form(lines: list[dict[str, Any]]) -> None:
    for line in lines:
        assert set(line) == {"name", "description", "input_schema"}, line.get("name")


def test_names_are_unique(lines: list[dict[str, Any]]) -> None:
    counts = Counter(line["name"] for line in lines)
    assert [name for name, count in counts.items() if count > 1] == []


def test_names_use_only_characters_tool_apis_and_mcp_allow(tools: list[ToolReference]) -> None:
    bad = [t.name for t in tools if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", t.name)]
    assert bad == []


def test_names_mix_real_world_naming_styles(tools: list[ToolReference]) -> None:
    """Snake, dotted, kebab and camel case all occur, so identifier splitting is exercised."""
    names = [tool.name for tool in tools]
    styles = {
        "snake_case": [n for n in names if re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", n)],
        "dotted": [n for n in names if "." in n],
        "kebab-case": [n for n in names if re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", n)],
        "camelCase": [n for n in names if re.fullmatch(r"[a-z]+([A-Z][a-z0-9]*)+", n)],
    }
    assert all(len(found) >= 8 for found in styles.values()), {k: len(v) for k, v in styles.items()}
    assert len(styles["snake_case"]) > len(names) / 2


def test_every_tool_belongs_to_a_known_service(tools: list[ToolReference]) -> None:
    for tool in tools:
        service_of(tool.name)


def test_at_least_eight_services_have_eight_or_more_tools(tools: list[ToolReference]) -> None:
    per_service = Counter(service_of(tool.name) for tool in tools)
    assert sum(1 for count in per_service.values() if count >= 8) >= 8, per_service


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_covers_each_kind_of_service_issue_2_names(
    tools: list[ToolReference], category: str
) -> None:
    services = {service_of(tool.name) for tool in tools}
    assert services & CATEGORIES[category], f"no {category} service in the demo catalog"


def test_descriptions_are_one_to_three_sentences(tools: list[ToolReference]) -> None:
    for tool in tools:
        text = tool.description
        assert text.strip() and text[0].isupper() and text.endswith("."), tool.name
        assert 1 <= len(SENTENCE_END.findall(text)) <= 3, tool.name


def test_every_schema_is_an_object_with_typed_described_properties(
    tools: list[ToolReference],
) -> None:
    problems = []
    for tool in tools:
        schema = thaw(tool.input_schema)
        assert isinstance(schema, dict) and schema.get("type") == "object", tool.name
        assert schema.get("properties"), f"{tool.name}: no properties"
        problems += list(schema_problems(schema, tool.name, needs_description=False))
    assert problems == []


def test_schema_checker_reports_broken_schemas() -> None:
    """The checker above can fail: each kind of defect it looks for is reported."""
    broken = {
        "type": "object",
        "properties": {
            "untyped": {"description": "no type"},
            "undescribed": {"type": "string"},
            "bad_enum": {"type": "integer", "description": "d", "enum": ["one"]},
            "bad_default": {"type": "string", "description": "d", "enum": ["a"], "default": "b"},
            "bounds": {"type": "integer", "description": "d", "minimum": 5, "maximum": 1},
            "items": {"type": "array", "description": "d", "items": {"type": "strin"}},
        },
        "required": ["missing"],
    }
    problems = list(schema_problems(broken, "t", needs_description=False))
    for fragment in (
        "t.untyped: type",
        "t.undescribed: no description",
        "t.bad_enum: enum values",
        "t.bad_default: default 'b' is not among",
        "t.bounds: minimum is above maximum",
        "t.items[]: type 'strin'",
        "required ['missing']",
    ):
        assert any(fragment in problem for problem in problems), (fragment, problems)


def test_sending_the_whole_catalog_costs_tens_of_thousands_of_tokens(
    tools: list[ToolReference],
) -> None:
    """The demo is meant to show what tool search saves, so the full catalog must be costly."""
    total = tool_tokens(tools)
    texts = [json.dumps(tool_definition(tool), separators=(",", ":")) for tool in tools]
    largest = max(count_tokens(texts))
    assert total > 30_000
    assert total > 50 * largest


#: The generator's source, kept out of the package (and so out of the wheel).
GENERATOR = Path(__file__).resolve().parents[1] / "scripts" / "generate_demo_catalog.py"


def test_file_is_what_the_generator_writes() -> None:
    """demo_tools.jsonl is regenerated from the generator script, never edited by hand."""
    namespace = runpy.run_path(str(GENERATOR))
    assert namespace["render"](namespace["TOOLS"]) == RESOURCE.read_text(encoding="utf-8"), (
        "demo_tools.jsonl is stale: run python core/scripts/generate_demo_catalog.py"
    )


def test_the_generator_writes_the_packaged_file() -> None:
    namespace = runpy.run_path(str(GENERATOR))
    core = Path(__file__).resolve().parents[1]
    assert namespace["TARGET"] == core / "src" / "toolscout" / "data" / "demo_tools.jsonl"


def test_the_generator_source_is_not_in_the_package() -> None:
    """Only the catalog ships: the 4,000-line source stays in the repository."""
    data = importlib.resources.files("toolscout") / "data"
    assert sorted(entry.name for entry in data.iterdir() if entry.name.endswith(".py")) == []
