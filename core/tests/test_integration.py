"""The framework-neutral half of the integrations (`toolscout.integration`): auto mode from
config, loaded names. `AutoThreshold` itself is tested in core's auto tests; here only that
the integrations' `Scout` uses it and takes the configured threshold.
"""

from __future__ import annotations

import re

import pytest
import toolscout.auto
from toolscout import integration
from toolscout.config import load_settings
from toolscout.errors import ConfigError
from toolscout.integration import (
    AutoThreshold,
    Scout,
    ScoutOptions,
    filter_metadata,
    merge_loaded,
)
from toolscout.session import SessionManager
from toolscout.testing import ReferenceToolIndex
from toolscout.types import ToolReference


def tools(count: int, description: str = "Do a thing.") -> list[ToolReference]:
    return [ToolReference(f"tool_{i}", description) for i in range(count)]


def test_auto_threshold_is_cores() -> None:
    assert AutoThreshold is toolscout.auto.AutoThreshold
    assert (integration.DEFAULT_AUTO_TOOLS, integration.DEFAULT_AUTO_TOKENS) == (30, 10_000)
    assert AutoThreshold().decide(tools(31)) == (True, None)


def test_auto_true_takes_the_configured_threshold() -> None:
    index = ReferenceToolIndex()
    assert Scout(index, settings=load_settings()).auto == AutoThreshold()
    tuned = load_settings(auto={"tools": 2, "tokens": "off"})
    scout = Scout(index, settings=tuned)
    assert scout.auto == AutoThreshold(tools=2, tokens=None)
    assert scout.catalog(tools(3)).search_on is True
    assert Scout(index, settings=load_settings(auto={"enabled": False})).auto is None
    # An explicit threshold or False wins over the configuration.
    assert Scout(index, settings=tuned, auto=False).auto is None
    assert Scout(index, settings=tuned, auto=AutoThreshold(tools=9)).auto == AutoThreshold(9)


def test_merge_loaded_appends_new_names_keeps_refound_ones_in_place_and_caps() -> None:
    # Only appends: the tools a request carries keep their order (prompt caches).
    assert merge_loaded(["a", "b"], ["c", "a"], 0) == ["a", "b", "c"]
    assert merge_loaded(["a", "b"], ["c", "c"], 2) == ["b", "c"]


def test_an_integrations_catalog_renames_tools_for_the_wire_and_maps_them_back() -> None:
    scout = Scout(ReferenceToolIndex(), settings=load_settings(), auto=False, wire=True)
    named = [
        ToolReference("math.gcd", "Greatest common divisor of two integers."),
        ToolReference("math_gcd", "Greatest common divisor, another implementation."),
        ToolReference("physics.calculate_cone_mass", "Mass of a cone."),
        ToolReference("tool.search", "Search something else."),
    ]
    catalog = scout.catalog(named)
    wire = [tool.name for tool in catalog.searchable]
    assert len(set(wire)) == 4
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name) for name in wire)
    assert "math_gcd" in wire and "physics_calculate_cone_mass" in wire
    assert scout.search_name not in wire  # tool.search does not take the search tool's name
    assert sorted(catalog.tool_name(name) for name in wire) == sorted(t.name for t in named)
    assert catalog.known("math.gcd") is catalog.known(catalog.renamed["math.gcd"])
    # The index holds the wire names: search results name tools the model can call.
    outcome = scout.search("s", catalog, {"query": "cone mass"})
    assert outcome.names[0] == "physics_calculate_cone_mass"
    # The advisor's scout leaves names alone (its model adapter maps them on the wire).
    plain = Scout(ReferenceToolIndex(), settings=load_settings(), auto=False).catalog(named)
    assert [tool.name for tool in plain.searchable] == [t.name for t in named]


def test_scout_options_take_keywords_and_name_unknown_ones() -> None:
    options = ScoutOptions.of(ScoutOptions(pinned=["a"]), {"max_results": 3}, "Thing")
    assert options.pinned == ("a",) and options.max_results == 3
    with pytest.raises(TypeError, match=r"Thing got unexpected keyword argument\(s\) max_result;"):
        ScoutOptions.of(None, {"max_result": 3}, "Thing")
    with pytest.raises(TypeError, match="pinned takes a list of tool names"):
        ScoutOptions(pinned="today")  # type: ignore[arg-type]


def test_a_catalog_with_metadata_lists_its_filters() -> None:
    scout = Scout(ReferenceToolIndex(), settings=load_settings(), auto=False)
    plain = scout.catalog(tools(2))
    assert scout.search_tool(plain) is scout.search_reference
    tagged = [
        ToolReference("gh_issue", "Create an issue.", metadata={"server": "github"}),
        ToolReference("crm_find", "Find a customer.", metadata={"namespace": "crm"}),
    ]
    catalog = scout.catalog(tagged)
    assert catalog.filters == {"server": ("github",), "namespace": ("crm",)}
    description = scout.search_tool(catalog).description
    assert "Servers: github." in description and "Namespaces: crm." in description
    outcome = scout.search("s", catalog, {"query": "create issue customer", "server": "github"})
    assert outcome.names == ("gh_issue",)
    assert outcome.metadata_filter == {"server": "github"}


def test_filter_metadata_takes_the_filter_keys_and_the_given_source_wins() -> None:
    own = {"namespace": "crm", "tags": ("b", "a", 3), "secret": object()}
    assert filter_metadata(None, "t", own, None) == {"namespace": "crm", "tags": ["a", "b"]}
    given = {"t": {"namespace": "sales", "server": " github "}}
    assert filter_metadata(None, "t", own, given) == {
        "namespace": "sales",
        "tags": ["a", "b"],
        "server": "github",
    }
    assert filter_metadata("tool", "t", None, lambda tool: {"tags": [tool]}) == {"tags": ["tool"]}
    assert filter_metadata(None, "t", {"other": 1}, {}) is None
    with pytest.raises(TypeError, match="metadata of tool 't' must be a mapping"):
        filter_metadata(None, "t", None, {"t": "crm"})
    with pytest.raises(TypeError, match="mapping from tool name to metadata or a function"):
        filter_metadata(None, "t", None, ["crm"])  # type: ignore[arg-type]


def test_record_request_counts_pinned_and_searchable_as_the_catalog() -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from toolscout import telemetry
    from toolscout.tokens import tool_tokens

    reader = InMemoryMetricReader()
    telemetry.configure(meter_provider=MeterProvider(metric_readers=[reader]))
    try:
        scout = Scout(ReferenceToolIndex(), settings=load_settings(), pinned=["tool_0"])
        every = tools(4)
        catalog = scout.catalog(every)
        sent = [every[0], scout.search_tool(catalog)]
        scout.record_request(catalog, sent)
    finally:
        telemetry.configure()
    data = reader.get_metrics_data()
    assert data is not None
    points = {
        p.attributes["toolscout.tool_tokens.type"]: p.sum
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        for p in metric.data.data_points
    }
    assert points == {"sent": tool_tokens(sent), "catalog": tool_tokens(every)}


def test_a_bad_override_over_given_settings_is_a_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match="max_results"):
        Scout(ReferenceToolIndex(), settings=load_settings(), max_results=0)


def test_index_and_sessions_of_another_index_are_refused() -> None:
    sessions = SessionManager(ReferenceToolIndex())
    with pytest.raises(ValueError, match="not both"):
        Scout(ReferenceToolIndex(), sessions=sessions)
    assert Scout(sessions=sessions).index is sessions.index
