"""Specification of the searchable text core builds once for every backend."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolscout import ToolReference, split_identifier
from toolscout.text import split_words, summarize, words

# --- identifier splitting ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("identifier", "expected"),
    [
        ("get_weather_data", ["get", "weather", "data"]),
        ("weather.get", ["weather", "get"]),
        ("send-message", ["send", "message"]),
        ("repos/list", ["repos", "list"]),
        ("github:create_issue", ["github", "create", "issue"]),
        ("a_b.c-d/e:f", ["a", "b", "c", "d", "e", "f"]),
    ],
)
def test_identifiers_split_on_separators(identifier: str, expected: list[str]) -> None:
    assert split_identifier(identifier) == expected


def test_repeated_and_leading_separators_leave_no_empty_words() -> None:
    assert split_identifier("__init__..x--y//z::") == ["init", "x", "y", "z"]


@pytest.mark.parametrize(
    ("identifier", "expected"),
    [
        ("getWeatherData", ["get", "Weather", "Data"]),
        ("GetWeather", ["Get", "Weather"]),
        ("createPullRequest", ["create", "Pull", "Request"]),
    ],
)
def test_camel_case_splits_into_words(identifier: str, expected: list[str]) -> None:
    assert split_identifier(identifier) == expected


@pytest.mark.parametrize(
    ("identifier", "expected"),
    [
        ("HTTPServer", ["HTTP", "Server"]),
        ("parseJSONBody", ["parse", "JSON", "Body"]),
        ("getID", ["get", "ID"]),
        ("IOError", ["IO", "Error"]),
        ("URL", ["URL"]),
    ],
)
def test_acronyms_stay_whole(identifier: str, expected: list[str]) -> None:
    assert split_identifier(identifier) == expected


@pytest.mark.parametrize(
    ("identifier", "expected"),
    [
        ("getURLs", ["get", "URLs"]),
        ("listIDsForUser", ["list", "IDs", "For", "User"]),
    ],
)
def test_plural_acronyms_stay_whole(identifier: str, expected: list[str]) -> None:
    assert split_identifier(identifier) == expected


@pytest.mark.parametrize(
    ("identifier", "expected"),
    [
        ("v2api", ["v2api"]),
        ("getHTTPResponse_v2", ["get", "HTTP", "Response", "v2"]),
        ("s3Upload", ["s3", "Upload"]),
        ("S3Bucket", ["S3", "Bucket"]),
        ("base64", ["base64"]),
        ("gpt-4o", ["gpt", "4o"]),
    ],
)
def test_digits_stay_with_their_letters(identifier: str, expected: list[str]) -> None:
    assert split_identifier(identifier) == expected


def test_non_ascii_identifiers_split_on_separators() -> None:
    assert split_identifier("météo_données") == ["météo", "données"]


def test_words_lower_cases_and_splits_identifiers_in_free_text() -> None:
    assert words("Call getWeather, then send_email!") == [
        "call",
        "get",
        "weather",
        "then",
        "send",
        "email",
    ]


def test_split_words_keeps_case_and_drops_punctuation() -> None:
    assert split_words("Use listRepos (GitHub).") == "Use list Repos Git Hub"


# --- searchable text of a tool -----------------------------------------------------------


def test_tool_text_name_holds_the_split_name() -> None:
    assert ToolReference("github.createPullRequest").text.name == "github create Pull Request"


def test_tool_text_description_splits_identifiers() -> None:
    ref = ToolReference("t", "Wraps the listRepos endpoint.")
    assert ref.text.description == "Wraps the list Repos endpoint"


def test_tool_text_includes_parameter_names_split() -> None:
    ref = ToolReference(
        "t", "", {"type": "object", "properties": {"repoOwner": {}, "issue_number": {}}}
    )
    assert words(ref.text.parameters) == ["repo", "owner", "issue", "number"]


def test_tool_text_includes_parameter_descriptions() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "Name of the town"}},
    }
    assert "Name of the town" in ToolReference("t", "", schema).text.parameters


def test_tool_text_includes_nested_object_parameters() -> None:
    schema = {
        "type": "object",
        "properties": {
            "options": {
                "type": "object",
                "properties": {
                    "unitSystem": {"type": "string", "description": "metric or imperial"}
                },
            }
        },
    }
    found = words(ToolReference("t", "", schema).text.parameters)
    assert {"options", "unit", "system", "metric", "imperial"} <= set(found)


def test_tool_text_includes_parameters_of_array_items() -> None:
    schema = {
        "type": "object",
        "properties": {
            "attendees": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"emailAddress": {"description": "invitee mailbox"}},
                },
            }
        },
    }
    found = set(words(ToolReference("t", "", schema).text.parameters))
    assert {"attendees", "email", "address", "invitee", "mailbox"} <= found


@pytest.mark.parametrize("combinator", ["anyOf", "oneOf", "allOf"])
def test_tool_text_includes_parameters_under_combinators(combinator: str) -> None:
    schema = {
        combinator: [
            {"type": "object", "properties": {"byName": {"description": "lookup key"}}},
            {"type": "object", "properties": {"byId": {}}},
        ]
    }
    found = set(words(ToolReference("t", "", schema).text.parameters))
    assert {"by", "name", "lookup", "key", "id"} <= found


def test_tool_text_ignores_a_malformed_schema() -> None:
    ref = ToolReference("t", "d", {"properties": ["not", "a", "mapping"], "items": 3})
    assert ref.text.parameters == ""


def test_tool_text_of_a_tool_without_schema_has_no_parameters() -> None:
    assert ToolReference("ping", "Check liveness.").text.parameters == ""


def test_tool_text_all_joins_name_parameters_and_description() -> None:
    ref = ToolReference(
        "send_email", "Deliver a message.", {"properties": {"to": {"description": "recipient"}}}
    )
    assert words(ref.text.all) == ["send", "email", "to", "recipient", "deliver", "a", "message"]


def test_tool_text_is_built_once_per_reference() -> None:
    ref = ToolReference("get_weather", "Weather.")
    assert ref.text is ref.text


# --- summaries ---------------------------------------------------------------------------


def test_summary_is_the_first_sentence() -> None:
    ref = ToolReference("t", "Gets the weather. Uses the public API.")
    assert ref.summary == "Gets the weather."


def test_summary_collapses_whitespace() -> None:
    assert summarize("Gets\n   the\tweather") == "Gets the weather"


def test_summary_is_cut_to_the_limit_with_an_ellipsis() -> None:
    text = summarize("word " * 100, limit=20)
    assert len(text) <= 20
    assert text.endswith("…")


def test_summary_of_an_empty_description_is_empty() -> None:
    assert summarize("") == ""


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30))
def test_splitting_only_removes_separators(identifier: str) -> None:
    # Every character but the separators survives, in order: splitting never loses text.
    assert "".join(split_identifier(identifier)) == re.sub(r"[\s_.\-/:]+", "", identifier)


@given(st.text(max_size=30))
def test_split_words_are_never_empty(identifier: str) -> None:
    assert all(split_identifier(identifier))


def test_text_under_defs_is_searchable() -> None:
    # pydantic writes nested models under $defs and points at them with $ref (issue 24, 16).
    schema = {
        "type": "object",
        "properties": {"item": {"$ref": "#/$defs/Item"}},
        "$defs": {
            "Item": {
                "type": "object",
                "description": "A flamingo figurine.",
                "properties": {"paintColour": {"type": "string", "description": "Paint hue."}},
            }
        },
        "definitions": {"Size": {"description": "Height in centimetres."}},
    }
    text = ToolReference("make_order", "Create an order.", schema).text.parameters
    for expected in ("item", "flamingo figurine", "paint Colour", "Paint hue", "centimetres"):
        assert expected in text, text
