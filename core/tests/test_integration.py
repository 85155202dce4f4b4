"""The framework-neutral half of the integrations (`toolscout.integration`): auto mode from
config, loaded names. `AutoThreshold` itself is tested in core's auto tests; here only that
the integrations' `Scout` uses it and takes the configured threshold.
"""

from __future__ import annotations

import toolscout.auto
from toolscout import integration
from toolscout.config import load_settings
from toolscout.integration import AutoThreshold, Scout, merge_loaded
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


def test_merge_loaded_moves_refound_names_last_and_caps() -> None:
    assert merge_loaded(["a", "b"], ["c", "a"], 0) == ["b", "c", "a"]
    assert merge_loaded(["a", "b"], ["c", "c"], 2) == ["b", "c"]


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
