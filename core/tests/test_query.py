"""`Query`: what an engine receives, analysed once however many times it is asked."""

from __future__ import annotations

from toolscout.analysis import Analyzer
from toolscout.query import Query


class CountingAnalyzer(Analyzer):
    """The default analysis, counting the queries it analyses."""

    def __init__(self) -> None:
        super().__init__()
        self.analysed: list[str] = []

    def query_terms(self, query: str) -> list[str]:
        self.analysed.append(query)
        return super().query_terms(query)


TEXT = "Get the weather forecast for Paris. Then book a table for two at eight"


def test_a_query_asked_again_with_another_limit_is_analysed_once() -> None:
    counting = CountingAnalyzer()
    query = Query(TEXT, 10, analyzer=counting, allowed=frozenset({"a"}), session_id="s")
    candidates = query.with_limit(50)
    assert (candidates.limit, candidates.allowed, candidates.session_id) == (50, {"a"}, "s")
    # The engine reads the copy first (core's hybrid ranking), core the original after.
    assert candidates.terms[:4] == ("get", "weather", "forecast", "pari")
    assert query.terms is candidates.terms
    assert counting.analysed == [TEXT]
    assert len(candidates.clauses) == 2
    assert query.clauses is candidates.clauses


def test_what_an_engine_sets_on_the_copy_stays_on_the_copy() -> None:
    query = Query(TEXT, 10, analyzer=CountingAnalyzer())
    candidates = query.with_limit(50)
    candidates.exact = True
    candidates.nearest = 0.5
    assert not query.exact and query.nearest is None
