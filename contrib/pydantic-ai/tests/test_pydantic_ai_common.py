"""The framework-neutral part (`_common.py`): auto mode from core, loaded names, one copy for all.

`_common.py` ships in toolscout-langchain, toolscout-pydantic-ai and
toolscout-openai-agents alike; in a clone of the repository this test fails when the copies
drift apart. `AutoThreshold` is core's (`toolscout.auto`), tested in core; here only that
the integrations use it and take the configured threshold.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import toolscout.auto
from toolscout.config import load_settings
from toolscout.testing import ReferenceToolIndex
from toolscout.types import ToolReference
from toolscout_pydantic_ai import _common
from toolscout_pydantic_ai._common import AutoThreshold, Scout, merge_loaded

CONTRIB = Path(__file__).resolve().parents[2]
COPIES = [
    CONTRIB / "langchain" / "src" / "toolscout_langchain" / "_common.py",
    CONTRIB / "pydantic-ai" / "src" / "toolscout_pydantic_ai" / "_common.py",
    CONTRIB / "openai-agents" / "src" / "toolscout_openai_agents" / "_common.py",
]


def test_every_copy_is_the_same() -> None:
    present = [path for path in COPIES if path.is_file()]
    if len(present) < len(COPIES):
        pytest.skip("not in a clone of the repository")
    texts = {path.read_text(encoding="utf-8") for path in present}
    assert len(texts) == 1, "the _common.py copies differ; change all three together"
    assert Path(_common.__file__).read_text(encoding="utf-8") in texts


def tools(count: int, description: str = "Do a thing.") -> list[ToolReference]:
    return [ToolReference(f"tool_{i}", description) for i in range(count)]


def test_auto_threshold_is_cores() -> None:
    assert AutoThreshold is toolscout.auto.AutoThreshold
    assert (_common.DEFAULT_AUTO_TOOLS, _common.DEFAULT_AUTO_TOKENS) == (30, 10_000)
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
