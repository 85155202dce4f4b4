"""Abstention with default options: "nothing fits" is an empty answer, a fitting query keeps
its hit, and every hit carries a confidence on core's scale (see `toolscout.confidence`)."""

from __future__ import annotations

from typing import Any

from toolscout.testing.fixtures import ConformanceFixtures
from toolscout.testing.sample_catalog import sample_tools
from toolscout.testing.support import names_of, search, unique_session

__all__ = ["UNRELATED_QUERIES", "AbstentionTests"]

#: Requests no tool of the sample catalog serves (it has chat, code hosting, calendars,
#: files, payments, weather, maps ...).
UNRELATED_QUERIES = (
    "prune rose bushes",
    "bake a sourdough loaf with a crispy crust",
    "which knitting needles suit chunky wool",
)

#: Requests a tool of the sample catalog serves, in words of their own, and that tool.
FITTING_QUERIES = {
    "refund a card payment to the customer": "stripe_refund_payment",
    "weather forecast for the next days": "weather_daily_forecast",
    "post a message to a slack channel": "slack_post_message",
}


class AbstentionTests(ConformanceFixtures):
    def _sample(self, index: Any) -> str:
        session = unique_session("abstain")
        index.index_tools(session, sample_tools())
        return session

    def test_an_unrelated_query_gets_an_empty_answer(self, index: Any) -> None:
        """Failure: with default options, a request no tool of the catalog serves was
        answered with tools (core's `min_confidence` floor was not applied, or the
        backend's engine bypasses core's ranking). A model given near-misses proceeds with
        the wrong tool; an empty answer tells it that nothing fits."""
        session = self._sample(index)
        for query in UNRELATED_QUERIES:
            response = search(index, session, query)
            assert names_of(response) == [], (query, names_of(response))
            floor = index.options.min_confidence
            assert response.confidence is None or response.confidence < floor, query

    def test_a_fitting_query_keeps_its_hit_with_a_confidence(self, index: Any) -> None:
        """Failure: with default options, a request that a catalog tool serves lost that
        tool (the confidence floor dropped a good answer), or its hits carry no
        confidence between 0 and 1."""
        session = self._sample(index)
        for query, tool in FITTING_QUERIES.items():
            response = search(index, session, query)
            assert tool in names_of(response)[:3], (query, names_of(response))
            assert response.confidence is not None
            assert response.confidence >= index.options.min_confidence
            for hit in response.references:
                assert hit.confidence is not None and 0.0 <= hit.confidence <= 1.0, hit

    def test_a_named_tool_is_never_dropped(self, index: Any) -> None:
        """Failure: a query naming a tool outright lost it to the confidence floor, or the
        tool it names is not reported with full confidence."""
        session = self._sample(index)
        response = search(index, session, "stripe_refund_payment")
        assert names_of(response)[0] == "stripe_refund_payment"
        assert response.references[0].confidence == 1.0
