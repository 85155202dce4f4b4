"""Filters the model can use: server / namespace / tags on `tool_search`, and their listing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import pytest
from toolscout.advisor import Advisor, ChatRequest, ToolRegistry
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout.advisor.search_tool import (
    MAX_LISTED_VALUES,
    SearchOutcome,
    facets,
    parse_filter,
    run_search,
    search_tool_reference,
)
from toolscout.index import Capabilities
from toolscout.testing import ReferenceToolIndex
from toolscout.types import ToolReference, ToolSearchRequest, ToolSearchResponse

COMMON = "Manage issues and messages for the team."
TOOLS = [
    ToolReference("gh_issue", f"Create an issue. {COMMON}", metadata={"server": "github"}),
    ToolReference(
        "gh_comment",
        f"Comment on an issue. {COMMON}",
        metadata={"server": "github", "tags": ["write", "issues"]},
    ),
    ToolReference(
        "slack_post",
        f"Post a message. {COMMON}",
        metadata={"server": "slack", "namespace": "chat", "tags": ["write"]},
    ),
    ToolReference("jira_issue", f"Create an issue. {COMMON}", metadata={"namespace": "tracker"}),
    ToolReference("plain_tool", f"Do a thing. {COMMON}"),
]
BY_NAME = {ref.name: ref for ref in TOOLS}


@pytest.fixture
def index() -> ReferenceToolIndex:
    index = ReferenceToolIndex()
    index.index_tools("s", TOOLS)
    return index


def search(index: Any, **arguments: object) -> SearchOutcome:
    return run_search(
        arguments,
        session_id="s",
        index=index,
        known=BY_NAME.get,
        default_max_results=10,
        max_results_limit=20,
        filters=facets(TOOLS),
    )


# --- facets and the tool's definition ------------------------------------------------------


def test_facets_collect_string_values_of_each_key() -> None:
    assert facets(TOOLS) == {
        "server": ("github", "slack"),
        "namespace": ("chat", "tracker"),
        "tags": ("issues", "write"),
    }
    odd = [ToolReference("x", "x", metadata={"server": 3, "tags": ["a", None, 2]})]
    assert facets(odd) == {"tags": ("a",)}
    assert facets([ToolReference("y", "y")]) == {}


def test_the_description_lists_namespaces_and_the_schema_takes_filters() -> None:
    reference = search_tool_reference(5, 20, filters=facets(TOOLS))
    assert "Namespaces: chat, tracker." in reference.description
    assert "Servers: github, slack." in reference.description
    assert "Tags: issues, write." in reference.description
    properties = reference.input_schema["properties"]
    assert set(properties) == {"query", "queries", "max_results", "server", "namespace", "tags"}
    assert properties["namespace"]["type"] == "array"
    assert list(reference.input_schema["required"]) == ["query"]


def test_without_metadata_the_tool_is_unchanged() -> None:
    plain = search_tool_reference(5, 20)
    assert search_tool_reference(5, 20, filters=facets([TOOLS[-1]])) == plain
    assert set(plain.input_schema["properties"]) == {"query", "queries", "max_results"}
    assert "filter" not in plain.description


def test_a_long_listing_is_cut_and_counted() -> None:
    many = {"namespace": tuple(f"ns{i:03}" for i in range(MAX_LISTED_VALUES + 7))}
    description = search_tool_reference(5, 20, filters=many).description
    assert f"ns{MAX_LISTED_VALUES - 1:03} (and 7 more)." in description
    assert f"ns{MAX_LISTED_VALUES:03}" not in description


# --- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, None),
        ({"namespace": None, "server": "", "tags": []}, None),
        ({"namespace": "chat"}, {"namespace": "chat"}),
        ({"namespace": ["chat"]}, {"namespace": "chat"}),
        ({"server": ["github", " slack "]}, {"server": ["github", "slack"]}),
        ({"tags": "write", "server": "github"}, {"server": "github", "tags": "write"}),
        ({"tags": [" "]}, None),
    ],
)
def test_parse_filter(arguments: dict[str, Any], expected: dict[str, Any] | None) -> None:
    assert parse_filter(arguments) == (expected, None)


@pytest.mark.parametrize("bad", [3, {"a": 1}, ["x", 2], True])
def test_a_bad_filter_is_a_tool_error(index: ReferenceToolIndex, bad: object) -> None:
    outcome = search(index, query="issue", namespace=bad)
    assert outcome.is_error and outcome.names == ()
    assert "the namespace filter must be a name or a list of names" in outcome.text


# --- searching -----------------------------------------------------------------------------


def test_a_filter_keeps_only_matching_tools(index: ReferenceToolIndex) -> None:
    assert set(search(index, query="issue").names) >= {"gh_issue", "jira_issue"}
    outcome = search(index, query="issue", server="github")
    assert set(outcome.names) == {"gh_issue", "gh_comment"}
    assert outcome.metadata_filter == {"server": "github"}
    assert search(index, query="issue", namespace="tracker").names == ("jira_issue",)


def test_a_list_is_any_of_and_a_name_matches_a_list_valued_field(
    index: ReferenceToolIndex,
) -> None:
    assert set(search(index, query="issue message", server=["github", "slack"]).names) == {
        "gh_issue",
        "gh_comment",
        "slack_post",
    }
    assert set(search(index, query="issue message", tags="write").names) == {
        "gh_comment",
        "slack_post",
    }
    assert search(index, query="issue message", tags="write", server="slack").names == (
        "slack_post",
    )


def test_nothing_found_under_a_filter_names_the_values_there_are(
    index: ReferenceToolIndex,
) -> None:
    outcome = search(index, query="issue", namespace="crm")
    assert outcome.names == () and not outcome.is_error
    assert "No tools with namespace 'crm' matched 'issue'" in outcome.text
    assert "Namespaces: chat, tracker." in outcome.text
    assert "Search without the filter" in outcome.text


def test_select_ignores_filters(index: ReferenceToolIndex) -> None:
    assert search(index, query="select:plain_tool", server="github").names == ("plain_tool",)


class NoFilterIndex:
    """A third-party backend without the metadata_filter capability."""

    name = "nofilter"
    capabilities: ClassVar[Capabilities] = Capabilities()

    def __init__(self, inner: ReferenceToolIndex) -> None:
        self.inner = inner
        self.requests: list[ToolSearchRequest] = []

    def index_tool(self, session_id: str, tool: ToolReference) -> None:
        self.inner.index_tool(session_id, tool)

    def index_tools(self, session_id: str, tools: Iterable[ToolReference]) -> None:
        self.inner.index_tools(session_id, tools)

    def clear_index(self, session_id: str) -> None:
        self.inner.clear_index(session_id)

    def search(self, request: ToolSearchRequest) -> ToolSearchResponse:
        self.requests.append(request)
        assert request.metadata_filter is None, "filter sent to an index that cannot apply it"
        return self.inner.search(request)


def test_an_index_without_the_capability_is_filtered_by_core(index: ReferenceToolIndex) -> None:
    wrapped = NoFilterIndex(index)
    outcome = search(wrapped, query="issue", server="github", max_results=1)
    assert len(outcome.names) == 1 and outcome.names[0] in {"gh_issue", "gh_comment"}
    assert wrapped.requests[-1].max_results == 50  # asked for more, filtered here


# --- through the advisor -------------------------------------------------------------------


def registry() -> ToolRegistry:
    tools = ToolRegistry()
    for ref in TOOLS:
        tools.add_definition(ref, lambda **_: "done")
    return tools


def names(request: ChatRequest) -> list[str]:
    return [tool.name for tool in request.tools]


def test_the_advisor_sends_the_listing_and_applies_the_model_s_filter() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="create issue", namespace="tracker")),
            calls(call("jira_issue")),
            answer("ok"),
        ]
    )
    advisor = Advisor(model, registry(), ReferenceToolIndex(), auto=False)
    result = advisor.run("file a ticket")
    search_tool = model.requests[0].tools[0]
    assert search_tool.name == "tool_search"
    assert "Namespaces: chat, tracker." in search_tool.description
    assert names(model.requests[1]) == ["tool_search", "jira_issue"]
    assert result.iterations[0].searches[0].metadata_filter == {"namespace": "tracker"}
    assert result.text == "ok"


def test_the_listing_follows_the_run_s_tools() -> None:
    model = ScriptedChatModel([answer("a"), answer("b")])
    advisor = Advisor(model, registry(), ReferenceToolIndex(), auto=False)
    advisor.run("x")
    other = ToolRegistry()
    other.add_definition(ToolReference("ops", "Run ops.", metadata={"namespace": "ops"}), print)
    advisor.run("x", tools=other)
    first: Sequence[ToolReference] = model.requests[0].tools
    second: Sequence[ToolReference] = model.requests[1].tools
    assert "Namespaces: chat, tracker." in first[0].description
    assert "Namespaces: ops." in second[0].description
    assert "Servers" not in second[0].description
