"""The words no tool has: a vocabulary's kept verdicts answer as the words' terms do."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolscout import unmatched
from toolscout.analysis import Analyzer
from toolscout.types import ToolReference
from toolscout.unmatched import Vocabulary

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
