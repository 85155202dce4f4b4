"""The words no tool has: a vocabulary's kept verdicts answer as the words' terms do."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolscout import unmatched
from toolscout.analysis import Analyzer
from toolscout.toolsets import ToolSet
from toolscout.types import ToolReference
from toolscout.unmatched import Vocabulary, unmatched_in

TOOLS = [
    ToolReference("send_email", "Send an email message to a recipient."),
    ToolReference("get_weather", "Get the weather forecast for a city."),
    ToolReference("create_invoice", "Create an invoice for a customer order."),
]
WORDS = ["sending", "emails", "weather", "forecasts", "llamas", "the", "invoice", "zebra", "city"]


def direct(analysis: Analyzer, query: str) -> list[str]:
    """The words of `query` none of TOOLS' terms holds, worked out afresh for each word."""
    terms = {term for tool in TOOLS for field in analysis.tool_terms(tool).fields for term in field}
    found = []
    for word in dict.fromkeys(query.split()):
        wanted = analysis.query_terms(word)
        if wanted and not any(term in terms for term in wanted):
            found.append(word)
    return found[: unmatched.MAX_LISTED_WORDS]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), min_size=1, max_size=8))
def test_kept_verdicts_answer_as_the_terms_do(queries: list[list[str]]) -> None:
    analysis = Analyzer()
    vocabulary = Vocabulary(TOOLS, analysis)
    for words in queries:  # later queries meet words the vocabulary judged before
        query = " ".join(words)
        assert vocabulary.missing(query) == direct(analysis, query)


def test_a_full_memo_starts_again_and_still_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unmatched, "MEMO_WORDS", 3)
    analysis = Analyzer()
    vocabulary = Vocabulary(TOOLS, analysis)
    for _ in range(2):
        for word in WORDS:
            assert vocabulary.missing(word) == direct(analysis, word)
            assert len(vocabulary._vocabulary.verdicts) <= 3
    assert vocabulary.missing("llamas send zebra weather") == ["llamas", "zebra"]


def plain_missing(analysis: Analyzer, tools: list[ToolReference], query: str) -> list[str]:
    """The words (runs of `\\w`) of `query` none of `tools`' terms holds, one by one."""
    terms = {term for tool in tools for field in analysis.tool_terms(tool).fields for term in field}
    found = []
    for word in dict.fromkeys(re.findall(r"\w+", query)):
        wanted = analysis.query_terms(word)
        if wanted and not any(term in terms for term in wanted):
            found.append(word)
    return found[: unmatched.MAX_LISTED_WORDS]


MIXED = st.lists(
    st.one_of(
        st.sampled_from([*WORDS, " ", ", ", ".", "-", "_", "'", "\n", "Éta", "天气"]), st.text()
    ),
    max_size=20,
).map("".join)


@settings(max_examples=100, deadline=None)
@given(st.lists(MIXED, min_size=1, max_size=4))
def test_words_are_found_in_any_text(queries: list[str]) -> None:
    analysis = Analyzer()
    vocabulary = Vocabulary(TOOLS, analysis)
    for query in queries:
        assert vocabulary.missing(query) == plain_missing(analysis, TOOLS, query)


def test_a_filtered_set_answers_for_the_tools_let_through() -> None:
    analysis = Analyzer()
    toolset = ToolSet.of("s", TOOLS)
    query = "send the weather invoice to zebra"
    filters = [{"send_email"}, {"get_weather", "nowhere"}, set(), {"create_invoice"}]
    filters += [{tool.name} for tool in TOOLS] + filters  # more than are kept, then again
    for allowed in filters:
        tools = [tool for tool in TOOLS if tool.name in allowed]
        expected = plain_missing(analysis, tools, query)
        assert unmatched_in(toolset, analysis, query, frozenset(allowed)) == expected
        assert unmatched_in(toolset, analysis, query, sorted(allowed)) == expected
    assert unmatched_in(toolset, analysis, query) == ["zebra"]
