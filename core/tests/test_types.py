"""Specification of the value types: immutable, JSON round-trippable, validated."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolscout import (
    MAX_RESULTS_LIMIT,
    SearchMetadata,
    ToolHit,
    ToolReference,
    ToolSearchRequest,
    ToolSearchResponse,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "units": {"type": "string", "enum": ["metric", "imperial"]},
        "days": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["city"],
}


def weather(**changes: Any) -> ToolReference:
    fields: dict[str, Any] = {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": SCHEMA,
        "metadata": {"server": "weather", "tags": ["forecast"]},
    }
    fields.update(changes)
    return ToolReference(**fields)


def json_round_trip(value: Any) -> Any:
    return json.loads(json.dumps(value.to_dict()))


# --- ToolReference: immutability ---------------------------------------------------------


def test_reference_fields_cannot_be_reassigned() -> None:
    ref = weather()
    with pytest.raises(dataclasses.FrozenInstanceError):
        ref.name = "other"  # type: ignore[misc]


def test_reference_schema_cannot_be_changed_at_top_level() -> None:
    ref = weather()
    assert ref.input_schema is not None
    with pytest.raises(TypeError, match="read-only"):
        ref.input_schema["type"] = "array"  # type: ignore[index]


def test_reference_schema_cannot_be_changed_in_nested_dicts() -> None:
    ref = weather()
    assert ref.input_schema is not None
    city = ref.input_schema["properties"]["city"]
    with pytest.raises(TypeError):
        city["description"] = "changed"
    with pytest.raises(TypeError):
        del city["type"]
    with pytest.raises(TypeError):
        city.update(type="number")
    with pytest.raises(TypeError):
        city |= {"type": "number"}


def test_reference_schema_lists_become_tuples() -> None:
    ref = weather()
    assert ref.input_schema is not None
    required = ref.input_schema["required"]
    assert required == ("city",)
    with pytest.raises(AttributeError):
        required.append("units")


def test_reference_metadata_is_read_only() -> None:
    ref = weather()
    assert ref.metadata is not None
    with pytest.raises(TypeError):
        ref.metadata["server"] = "other"  # type: ignore[index]
    with pytest.raises(TypeError):
        ref.metadata.pop("server")  # type: ignore[attr-defined]


def test_reference_does_not_share_the_callers_schema() -> None:
    schema = copy.deepcopy(SCHEMA)
    ref = ToolReference("get_weather", "Weather.", schema)
    schema["properties"]["city"]["description"] = "mutated by the caller"
    schema["required"].append("units")
    assert ref.input_schema is not None
    assert ref.input_schema["properties"]["city"]["description"] == "City name"
    assert ref.input_schema["required"] == ("city",)


def test_reference_survives_copy_deepcopy_and_pickle_unchanged() -> None:
    ref = weather()
    for clone in (copy.copy(ref), copy.deepcopy(ref), pickle.loads(pickle.dumps(ref))):
        assert clone == ref
        assert clone.input_schema is not None
        with pytest.raises(TypeError):
            clone.input_schema["properties"]["city"]["type"] = "number"


def test_frozen_schema_still_serialises_as_plain_json() -> None:
    ref = weather()
    assert json.loads(json.dumps(ref.input_schema)) == SCHEMA


# --- ToolReference: validation -----------------------------------------------------------


def test_reference_name_is_stripped() -> None:
    assert ToolReference("  get_weather \n").name == "get_weather"


@pytest.mark.parametrize("name", ["", "   ", "\t\n"])
def test_reference_rejects_blank_name(name: str) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        ToolReference(name)


def test_reference_rejects_non_string_name() -> None:
    with pytest.raises(TypeError, match="name must be a str"):
        ToolReference(42)  # type: ignore[arg-type]


def test_reference_rejects_nul_in_name() -> None:
    with pytest.raises(ValueError, match="NUL"):
        ToolReference("get\x00weather")


def test_reference_replaces_nul_in_description() -> None:
    assert ToolReference("t", "a\x00b").description == "a b"


def test_reference_treats_none_description_as_empty() -> None:
    assert ToolReference("t", None).description == ""  # type: ignore[arg-type]


def test_reference_rejects_non_string_description_naming_the_tool() -> None:
    with pytest.raises(TypeError, match="'t'"):
        ToolReference("t", 3)  # type: ignore[arg-type]


@pytest.mark.parametrize("field", ["input_schema", "metadata"])
def test_reference_rejects_non_mapping_schema_or_metadata(field: str) -> None:
    with pytest.raises(TypeError, match=f"{field} of 't' must be a mapping"):
        ToolReference("t", "", **{field: ["not", "a", "mapping"]})


# --- ToolReference: equality and fingerprint ---------------------------------------------


def test_equal_tools_have_equal_fingerprints() -> None:
    assert weather().fingerprint == weather().fingerprint


def test_fingerprint_ignores_schema_key_order() -> None:
    reordered = dict(reversed(list(SCHEMA.items())))
    assert weather(input_schema=reordered).fingerprint == weather().fingerprint


@pytest.mark.parametrize(
    "change",
    [
        {"name": "get_forecast"},
        {"description": "Tomorrow's weather."},
        {"input_schema": {"type": "object"}},
        {"input_schema": None},
    ],
)
def test_fingerprint_changes_when_name_description_or_schema_change(
    change: dict[str, Any],
) -> None:
    assert weather(**change).fingerprint != weather().fingerprint


def test_equal_tools_are_equal_and_hash_alike() -> None:
    assert weather() == weather()
    assert hash(weather()) == hash(weather())
    assert len({weather(), weather()}) == 1


# --- JSON round trips --------------------------------------------------------------------


def test_reference_round_trips_through_json() -> None:
    ref = weather()
    assert ToolReference.from_dict(json_round_trip(ref)) == ref


def test_reference_without_schema_or_metadata_round_trips_through_json() -> None:
    ref = ToolReference("ping")
    data = json_round_trip(ref)
    assert data == {"name": "ping", "description": ""}
    assert ToolReference.from_dict(data) == ref


def test_reference_to_dict_is_plain_mutable_json() -> None:
    data = weather().to_dict()
    data["input_schema"]["required"].append("units")
    assert type(data["input_schema"]) is dict
    assert data["input_schema"]["required"] == ["city", "units"]


def test_request_round_trips_through_json() -> None:
    request = ToolSearchRequest("s1", "weather in Paris", 3, {"server": "weather"})
    assert ToolSearchRequest.from_dict(json_round_trip(request)) == request


def test_request_without_options_round_trips_through_json() -> None:
    request = ToolSearchRequest("s1", "weather")
    assert ToolSearchRequest.from_dict(json_round_trip(request)) == request


def test_hit_round_trips_through_json() -> None:
    hit = ToolHit("get_weather", 2.5, "Current weather for a city.")
    assert ToolHit.from_dict(json_round_trip(hit)) == hit


def test_search_metadata_round_trips_through_json() -> None:
    meta = SearchMetadata("regex", 0.42, {"pattern": "get_.*", "tokens": [1, 2]})
    assert SearchMetadata.from_dict(json_round_trip(meta)) == meta


def test_response_round_trips_through_json() -> None:
    response = ToolSearchResponse(
        (ToolHit("a", 2.0, "A."), ToolHit("b", 1.0, "B.")),
        7,
        SearchMetadata("regex", 1.5, {"mode": "words"}),
    )
    assert ToolSearchResponse.from_dict(json.loads(response.to_json())) == response


def test_empty_response_round_trips_through_json() -> None:
    response = ToolSearchResponse.empty("regex")
    restored = ToolSearchResponse.from_dict(json.loads(response.to_json()))
    assert restored == response
    assert restored.names == []
    assert restored.total_matches == 0


# --- responses ---------------------------------------------------------------------------


def test_response_references_are_a_tuple_even_from_a_list() -> None:
    response = ToolSearchResponse([ToolHit("a", 1.0)], 1, SearchMetadata("x", 0.0))  # type: ignore[arg-type]
    assert isinstance(response.references, tuple)


def test_response_lists_names_in_rank_order_and_iterates_hits() -> None:
    hits = (ToolHit("best", 3.0), ToolHit("second", 2.0), ToolHit("third", 1.0))
    response = ToolSearchResponse(hits, 3, SearchMetadata("x", 0.0))
    assert response.names == ["best", "second", "third"]
    assert list(response) == list(hits)
    assert len(response) == 3


def test_search_metadata_extra_is_read_only() -> None:
    meta = SearchMetadata("x", 0.0, {"k": "v"})
    with pytest.raises(TypeError):
        meta.extra["k"] = "w"  # type: ignore[index]


# --- ToolSearchRequest: validation -------------------------------------------------------


def test_request_max_results_defaults_to_the_index_default() -> None:
    request = ToolSearchRequest("s", "q")
    assert request.max_results is None
    assert request.limit(5) == 5


def test_request_keeps_a_valid_max_results() -> None:
    assert ToolSearchRequest("s", "q", 3).limit(5) == 3


def test_request_clamps_huge_max_results_to_the_limit() -> None:
    assert ToolSearchRequest("s", "q", 10**12).max_results == MAX_RESULTS_LIMIT


def test_request_keeps_max_results_equal_to_the_limit() -> None:
    assert ToolSearchRequest("s", "q", MAX_RESULTS_LIMIT).max_results == MAX_RESULTS_LIMIT


@pytest.mark.parametrize("value", [0, -1, -(10**9)])
def test_request_rejects_max_results_below_one(value: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        ToolSearchRequest("s", "q", value)


@pytest.mark.parametrize("value", [True, False, 2.0, "5"])
def test_request_rejects_non_integer_max_results(value: object) -> None:
    with pytest.raises(TypeError, match="integer"):
        ToolSearchRequest("s", "q", value)  # type: ignore[arg-type]


@pytest.mark.parametrize("session_id", ["", None, 3])
def test_request_rejects_missing_or_non_string_session_id(session_id: object) -> None:
    with pytest.raises(ValueError, match="session_id"):
        ToolSearchRequest(session_id, "q")  # type: ignore[arg-type]


def test_request_rejects_non_string_query() -> None:
    with pytest.raises(TypeError, match="query must be a str"):
        ToolSearchRequest("s", None)  # type: ignore[arg-type]


def test_request_metadata_filter_is_read_only() -> None:
    request = ToolSearchRequest("s", "q", metadata_filter={"server": "github"})
    assert request.metadata_filter is not None
    with pytest.raises(TypeError):
        request.metadata_filter["server"] = "gitlab"  # type: ignore[index]


def test_request_rejects_non_mapping_metadata_filter() -> None:
    with pytest.raises(TypeError, match="metadata_filter"):
        ToolSearchRequest("s", "q", metadata_filter=["server"])  # type: ignore[arg-type]


# --- properties over arbitrary JSON-like schemas -----------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)
schemas = st.dictionaries(st.text(max_size=6), json_values, max_size=5)


@given(schema=schemas, metadata=schemas)
def test_any_json_schema_round_trips_through_json(
    schema: dict[str, Any], metadata: dict[str, Any]
) -> None:
    ref = ToolReference("t", "d", schema, metadata)
    assert ToolReference.from_dict(json_round_trip(ref)) == ref
    assert json.loads(json.dumps(ref.input_schema)) == schema


@given(schema=schemas)
def test_fingerprint_never_depends_on_key_order(schema: dict[str, Any]) -> None:
    reordered = dict(reversed(list(schema.items())))
    assert (
        ToolReference("t", "", schema).fingerprint == ToolReference("t", "", reordered).fingerprint
    )


@pytest.mark.parametrize(("left", "right"), [(1, 1.0), (1, True), (0, False)])
def test_tools_whose_json_differs_are_not_equal(left: object, right: object) -> None:
    # 1 == 1.0 == True in Python, but the JSON definitions (and fingerprints) differ.
    a = ToolReference("t", "", {"default": left})
    b = ToolReference("t", "", {"default": right})
    assert a.fingerprint != b.fingerprint
    assert a != b


def test_tools_differing_only_in_metadata_differ() -> None:
    # Metadata is what filters match: a session whose tools changed only their metadata
    # holds a different set and must be re-indexed.
    assert weather(metadata={"server": "a"}) != weather(metadata={"server": "b"})
    assert (
        weather(metadata={"server": "a"}).fingerprint
        != weather(metadata={"server": "b"}).fingerprint
    )


def test_a_reference_is_not_equal_to_its_dict() -> None:
    assert weather() != weather().to_dict()


@pytest.mark.parametrize(("left", "right"), [(1, 1.0), (1, True)])
def test_equal_read_only_mappings_hash_alike(left: object, right: object) -> None:
    a = ToolSearchRequest("s", "q", metadata_filter={"rank": left})
    b = ToolSearchRequest("s", "q", metadata_filter={"rank": right})
    assert a == b
    assert hash(a) == hash(b)


@given(schema=schemas, metadata=schemas)
def test_equal_tools_always_hash_alike(schema: dict[str, Any], metadata: dict[str, Any]) -> None:
    a = ToolReference("t", "d", schema, metadata)
    b = ToolReference.from_dict(json_round_trip(a))
    assert a == b
    assert hash(a) == hash(b)
    assert hash(a.metadata) == hash(b.metadata)
