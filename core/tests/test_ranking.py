"""Core's hybrid ranking of keyword engines (`toolscout.ranking`): which embedder a keyword
backend takes, how its hits fuse with vectors, and what the answer's confidence weighs."""

from __future__ import annotations

import logging
import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
import toolscout
from test_vectors import WordsEmbedder as HashedWords
from toolscout import ToolReference, ToolSearchRequest, ToolSearchResponse
from toolscout.options import KeywordOptions
from toolscout.plugins import registry
from toolscout.ranking import RANK_SHAPE, fuse_by_rank
from toolscout.testing.reference import ReferenceToolIndex
from toolscout.toolsets import ToolSet
from toolscout.types import BELOW_CONFIDENCE, FILTERED, NO_MATCH

SESSION = "s"


class WordsEmbedder(HashedWords):
    """test_vectors' bag of hashed words, registered under a name of its own, in 64
    dimensions (fewer words share one)."""

    name: ClassVar[str] = "test-words"
    model_id = "test-words-64"
    dimension = 64


class KeywordReference(ReferenceToolIndex):
    """The reference engine with a keyword backend's options: core makes it hybrid."""

    name: ClassVar[str] = "keyword-reference"
    Options: ClassVar[type[KeywordOptions]] = KeywordOptions


@pytest.fixture
def words_embedder() -> Iterator[None]:
    """`test-words` registered on the process-wide registry while the test runs."""

    def register_embedders(register: Callable[[type[Any]], None]) -> None:
        register(WordsEmbedder)

    plugin = types.ModuleType("test_words_plugin")
    plugin.register_embedders = toolscout.hookimpl(register_embedders)  # type: ignore[attr-defined]
    registry.register_plugin(plugin, name="test-words-plugin")
    try:
        yield
    finally:
        registry.unregister_plugin("test-words-plugin")


TOOLS = [
    ToolReference("get_weather", "Weather forecast for a city."),
    ToolReference("send_email", "Send an email message to a recipient."),
    ToolReference("create_invoice", "Create an invoice for a customer."),
]


def test_a_keyword_backend_named_an_embedder_fuses_with_its_vectors(words_embedder: None) -> None:
    index = KeywordReference(embedder="test-words", min_confidence=0)
    assert index.ranking is not None
    assert index.capabilities.vectors, "an index that searches by vectors says so"
    assert not KeywordReference.capabilities.vectors, "the class keeps what it declares"
    index.index_tools(SESSION, TOOLS)
    response = index.search(ToolSearchRequest(SESSION, "weather forecast", 3))
    assert response.names[0] == "get_weather"
    # Scores are similarity floors: at most 1, descending.
    scores = [hit.score for hit in response]
    assert scores == sorted(scores, reverse=True) and scores[0] <= 1.0


def test_embedder_none_keeps_a_keyword_backend_to_its_engine(words_embedder: None) -> None:
    index = KeywordReference(embedder="none")
    assert index.ranking is None and not index.capabilities.vectors
    index.index_tools(SESSION, TOOLS)
    hits = index.search(ToolSearchRequest(SESSION, "weather forecast", 3)).references
    assert [hit.name for hit in hits] == ["get_weather"], "keywords alone match one tool"
    assert hits[0].score > 1.0, "the engine's own score, not a similarity"


def test_a_missing_default_embedder_warns_once_with_the_install_line(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSCOUT_LOAD_PLUGINS", "")  # nothing installed loads
    monkeypatch.setattr("toolscout.ranking._warned", set())
    monkeypatch.setattr("toolscout.plugins.registry", type(registry)())
    with caplog.at_level(logging.WARNING, logger="toolscout"):
        first = KeywordReference()
        KeywordReference()
    assert first.ranking is None
    warnings = [r.getMessage() for r in caplog.records if "keywords only" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "pip install ./core ./contrib/static && pip install --no-deps wordllama" in warnings[0]
    assert "embedder=none" in warnings[0]


def test_an_embedder_named_but_not_installed_is_an_error() -> None:
    with pytest.raises(toolscout.UnknownEmbedderError, match="no-such-embedder"):
        KeywordReference(embedder="no-such-embedder")


def test_fusion_keeps_the_engines_order_among_equally_similar_tools() -> None:
    toolset = ToolSet.of("set", [ToolReference(n, n) for n in ("a", "b", "c", "d")])
    similarity = {"a": 0.2, "b": 0.2, "c": 0.2, "d": 0.9}
    # The engine put c first, then a: equal similarity leaves its order.
    hits = fuse_by_rank(toolset, ["c", "a"], similarity, 0.0, 0.0, 4)
    assert [hit.name for hit in hits][:2] == ["c", "a"]
    # A tool far more similar than the keyword hits outranks them once vectors weigh.
    weighed = fuse_by_rank(toolset, ["c", "a"], similarity, 2.0, 0.0, 4)
    assert weighed[0].name == "d"
    # ... by exactly its margin: d's 2 x 0.9 beats c's 2 x 0.2 + 1 (the first rank's share).
    assert 2 * 0.2 + RANK_SHAPE / RANK_SHAPE < 2 * 0.9


def test_fusion_reports_a_descending_similarity_floor_and_honours_min_score() -> None:
    toolset = ToolSet.of("set", [ToolReference(n, n) for n in ("a", "b", "c")])
    similarity = {"a": 0.1, "b": 0.5, "c": 0.4}
    hits = fuse_by_rank(toolset, ["a", "b", "c"], similarity, 0.5, 0.3, 3)
    # `a` is the first keyword hit but less similar than min_score: ranked last.
    assert [hit.name for hit in hits] == ["b", "c", "a"]
    assert [hit.score for hit in hits] == [0.5, 0.4, 0.1]


def test_a_tool_with_every_word_of_the_request_is_kept_however_its_text_embeds(
    words_embedder: None,
) -> None:
    # A name of 120 other words drowns the description's in the tool's vector, so the
    # similarity alone says nothing fits; the keyword evidence (both words, corroborated)
    # vouches for the answer.
    long_name = "_".join(f"part{number}" for number in range(120)) + "_weather"
    index = KeywordReference(embedder="test-words")
    index.index_tools(SESSION, [ToolReference(long_name, "Weather forecast for a city.")])
    response = index.search(ToolSearchRequest(SESSION, "weather forecast"))
    assert response.names == [long_name]
    assert response.confidence is not None and response.confidence >= 0.95


def test_a_request_the_catalog_does_not_cover_is_still_refused(words_embedder: None) -> None:
    index = KeywordReference(embedder="test-words")
    index.index_tools(SESSION, TOOLS)
    response = index.search(ToolSearchRequest(SESSION, "bake sourdough loaves"))
    assert response.names == []
    assert response.confidence is not None and response.confidence < 0.3


# --- what the response tells the model, worked out where the search runs -----------------


#: A request one word of which (of twelve) a tool has.
FAR = "email teleport llamas alpacas ponies goats zebras yaks bison camels oxen mules"


def test_an_empty_answer_says_why() -> None:
    index = ReferenceToolIndex()
    tools = [
        ToolReference("send_email", "Send an email.", metadata={"server": "mail"}),
        ToolReference("get_weather", "Weather forecast.", metadata={"server": "meteo"}),
    ]
    index.index_tools(SESSION, tools)
    nothing = index.search(ToolSearchRequest(SESSION, "teleport llamas"))
    assert (nothing.empty_reason, nothing.confidence) == (NO_MATCH, None)
    filtered = index.search(ToolSearchRequest(SESSION, "email", 5, {"server": "nowhere"}))
    assert filtered.empty_reason == FILTERED
    # One word of twelve matches: below the default floor.
    weak = index.search(ToolSearchRequest(SESSION, FAR))
    assert weak.names == [] and weak.empty_reason == BELOW_CONFIDENCE
    assert weak.confidence is not None and weak.confidence < index.options.min_confidence
    found = index.search(ToolSearchRequest(SESSION, "send an email"))
    assert found.names and found.empty_reason is None


def test_the_words_no_tool_has_are_those_no_permitted_tool_has() -> None:
    index = ReferenceToolIndex(min_confidence=0)
    index.index_tools(
        SESSION,
        [
            ToolReference("send_email", "Send an email.", metadata={"server": "mail"}),
            ToolReference("get_weather", "Weather forecast.", metadata={"server": "meteo"}),
        ],
    )
    everywhere = index.search(ToolSearchRequest(SESSION, "email weather llamas"))
    assert everywhere.unmatched_words == ("llamas",)
    # Through a filter, a word only a tool it hides has is a word no tool has.
    mail = index.search(ToolSearchRequest(SESSION, "email weather llamas", 5, {"server": "mail"}))
    assert mail.unmatched_words == ("weather", "llamas")
    assert ToolSearchResponse.from_dict(mail.to_dict()) == mail


def test_tool_search_tells_the_model_a_weak_answer_from_no_answer() -> None:
    from toolscout.advisor.search_tool import run_search

    index = ReferenceToolIndex()
    tools = {"send_email": ToolReference("send_email", "Send an email.")}
    index.index_tools(SESSION, list(tools.values()))

    def ask(query: str) -> str:
        return run_search(
            {"query": query},
            session_id=SESSION,
            index=index,
            known=tools.get,
            default_max_results=5,
            max_results_limit=5,
        ).text

    weak = ask(FAR)
    assert weak.startswith("No tool fits") and "confidence 0." in weak
    assert "No tool mentions: 'teleport', 'llamas', 'alpacas', 'ponies', 'goats'." in weak
    # A hit the search keeps but is not sure of is shown as weak.
    kept = ask("email teleport llamas alpacas")
    assert "- send_email: Send an email. (weak match, confidence 0.4" in kept
    assert ask("teleport llamas").startswith("No tools matched")
