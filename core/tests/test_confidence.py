"""The confidence core gives every hit, and the default floor that answers "nothing fits"."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolscout import ToolReference, ToolSearchRequest
from toolscout.analysis import analyzer
from toolscout.confidence import (
    DEFAULT_FIT,
    DEFAULT_MIN_CONFIDENCE,
    REFERENCE_DENSITY,
    SIMILARITY_FITS,
    CatalogProfile,
    SimilarityFit,
    answer_confidence,
    combine,
    confidences,
    nearest_confidence,
    similarity_fit,
)
from toolscout.errors import ConfigError
from toolscout.testing import ReferenceToolIndex
from toolscout.testing.sample_catalog import sample_tools
from toolscout.types import ToolHit

ANALYZER = analyzer()


def _profile(tools: list[ToolReference]) -> CatalogProfile:
    return CatalogProfile.of(tools, ANALYZER)


def _terms(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ANALYZER.query_terms(text)))


TOOLS = [
    ToolReference("send_invoice", "Email an invoice to a customer."),
    ToolReference("refund_payment", "Refund a card payment to a customer."),
    ToolReference("get_forecast", "Weather forecast for a city."),
]

unit = st.floats(0.0, 1.0, allow_nan=False)


@given(low=unit, high=unit, known=unit)
def test_confidence_is_monotone_in_coverage(low: float, high: float, known: float) -> None:
    low, high = sorted((low, high))
    assert combine(low, known) <= combine(high, known)
    assert combine(low, known, 0.5) <= combine(high, known, 0.5)


@given(low=unit, high=unit, coverage=unit)
def test_confidence_is_monotone_in_similarity_and_bounded(
    low: float, high: float, coverage: float
) -> None:
    low, high = sorted((low, high))
    assert 0.0 <= combine(coverage, 1.0, low) <= combine(coverage, 1.0, high) <= 1.0


@given(similarity=unit, coverage=unit, low=unit, high=unit)
def test_a_similarity_is_weaker_evidence_in_a_denser_catalog(
    similarity: float, coverage: float, low: float, high: float
) -> None:
    low, high = sorted((low, high))
    fitted = combine(coverage, 1.0, similarity)
    dense = combine(coverage, 1.0, similarity, density=high)
    assert dense <= combine(coverage, 1.0, similarity, density=low) <= fitted
    if high > REFERENCE_DENSITY + 0.05 and 0.05 < fitted < 0.95:
        assert dense < fitted
    # A catalog sparser than the fit's is not evidence that a request fits.
    assert combine(coverage, 1.0, similarity, density=REFERENCE_DENSITY * low) == fitted
    # Keyword scores weigh no density.
    assert combine(coverage, 1.0, density=high) == combine(coverage, 1.0)


@given(coverage=unit, known=unit)
def test_a_tool_with_two_of_the_words_is_more_confident(coverage: float, known: float) -> None:
    assert combine(coverage, known, corroborated=True) > combine(coverage, known)


def test_a_hit_counts_as_corroborated_with_two_of_the_query_words() -> None:
    """Failure: a tool with one of the query's words got the confidence of one with two
    (one shared word is weak evidence), a tool with two did not, or a word found by its
    prefix was not counted."""
    profile = _profile(TOOLS)
    weighed = profile.weigh(_terms("refund a card payment"))
    assert weighed.matched(profile.terms["refund_payment"]) == 3
    assert weighed.matched(profile.terms["get_forecast"]) == 0
    assert profile.weigh(_terms("forec weather")).matched(profile.terms["get_forecast"]) == 2
    terms = _terms("weather for my customer")  # one word in each tool
    known = profile.known_share(terms)
    found = confidences(profile, terms, ["get_forecast", "send_invoice"])
    for name, confidence in zip(["get_forecast", "send_invoice"], found, strict=True):
        assert confidence == round(combine(profile.coverage(terms, name), known), 4)
    both = _terms("refund the payment")
    (confidence,) = confidences(profile, both, ["refund_payment"])
    expected = combine(profile.coverage(both, "refund_payment"), 1.0, corroborated=True)
    assert confidence == round(expected, 4)


def test_coverage_weighs_rare_words_over_common_ones() -> None:
    profile = _profile(TOOLS)
    # "customer" is in two tools, "refund" in one: covering the rare word counts for more.
    terms = _terms("refund customer")
    assert profile.coverage(terms, "refund_payment") == 1.0
    assert profile.coverage(terms, "send_invoice") < 0.5
    assert profile.coverage(terms, "get_forecast") == 0.0


def test_a_word_no_tool_has_weighs_as_much_as_the_rarest() -> None:
    profile = _profile(TOOLS)
    # "refund" is in one tool, "zeppelin" in none: each is half of the query's weight.
    assert profile.coverage(_terms("refund zeppelin"), "refund_payment") == pytest.approx(0.5)
    assert profile.known_share(_terms("refund zeppelin")) == pytest.approx(0.5)
    assert profile.unknown_terms(_terms("refund zeppelin")) == ["zeppelin"]


def test_a_word_prefix_counts_as_found() -> None:
    profile = _profile([ToolReference("calculate_mortgage", "Monthly mortgage payment.")])
    assert profile.coverage(_terms("calc"), "calculate_mortgage") == 1.0
    assert profile.known_share(_terms("calc")) == 1.0
    assert profile.coverage(_terms("cal"), "calculate_mortgage") == 0.0  # too short


def test_confidence_weighs_what_a_tool_is_for_not_its_parameters_descriptions() -> None:
    places = ToolReference(
        "search_places",
        "Find places near a location.",
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "e.g. vegan restaurants"},
                "radius_km": {"type": "number", "description": "How far to look."},
            },
        },
    )
    tools = [places, ToolReference("get_forecast", "Weather forecast for a city.")]
    full = CatalogProfile.of(tools, ANALYZER)
    purpose = full.purposes(tools, ANALYZER)
    terms = _terms("vegan lasagna")
    assert full.coverage(terms, "search_places") > 0  # the ranking's profile has every word
    assert purpose.coverage(terms, "search_places") == 0
    assert purpose.coverage(_terms("radius"), "search_places") == 1.0  # a parameter's name
    assert purpose.known_share(_terms("vegan")) == 1.0  # still a word the catalog has
    # An index's confidence weighs the purposes: "vegan" alone does not vouch.
    index = ReferenceToolIndex(min_confidence=0)
    index.index_tools("s", tools)
    hits = index.search(ToolSearchRequest("s", "vegan lasagna recipe")).references
    assert hits and hits[0].name == "search_places"  # still ranked by its parameters
    known = purpose.known_share(_terms("vegan lasagna recipe"))
    assert 0 < known < 1 and hits[0].confidence == round(combine(0.0, known), 4)


def test_a_catalog_duplicated_or_renamed_gives_the_same_confidence() -> None:
    """The weights are the catalog's own: the same catalog twice over (or the same tools
    under other names) gives every query the same confidence."""
    tools = sample_tools()
    twice = tools + [
        ToolReference("copy_" + tool.name, tool.description, tool.input_schema) for tool in tools
    ]
    # Name words count: the copies' extra word "copy" is in half the tools, and in no query.
    once, doubled = _profile(tools), _profile(twice)
    for query in ("refund a card payment", "weather forecast tomorrow", "migratory whales"):
        terms = _terms(query)
        for tool in tools:
            assert doubled.coverage(terms, tool.name) == pytest.approx(
                once.coverage(terms, tool.name)
            )
        assert doubled.known_share(terms) == pytest.approx(once.known_share(terms))


def test_an_answer_takes_its_best_first_hits() -> None:
    profile = _profile(TOOLS)
    terms = _terms("refund a card payment")
    found = confidences(profile, terms, ["get_forecast", "send_invoice", "refund_payment"])
    assert found[2] > found[0]
    assert answer_confidence(found) == found[2]
    assert answer_confidence([]) == 0.0


WORDS = ["refund", "payment", "invoice", "weather", "forecast", "calculate", "email", "card"]


@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), min_size=1, max_size=6),
    st.lists(st.sampled_from([*WORDS, "calc", "zebra"]), min_size=1, max_size=4),
    st.sets(st.integers(0, 7)),
)
def test_the_best_coverage_is_the_best_tools(
    descriptions: list[list[str]], query: list[str], allowed_rows: set[int]
) -> None:
    """Failure: the catalog's best coverage was one no tool has, missed the best tool, or
    came from a tool outside `allowed`."""
    tools = [ToolReference(f"tool_{i}", " ".join(words)) for i, words in enumerate(descriptions)]
    profile = _profile(tools)
    terms = _terms(" ".join(query))
    weighed = profile.weigh(terms)
    best = max(profile.coverage(terms, tool.name) for tool in tools)
    assert profile.best_coverage(weighed) == best
    allowed = {f"tool_{row}" for row in allowed_rows}  # some name no tool has
    best_allowed = max(
        (profile.coverage(terms, tool.name) for tool in tools if tool.name in allowed),
        default=0.0,
    )
    assert profile.best_coverage(weighed, allowed) == best_allowed


@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), min_size=1, max_size=6),
    st.lists(st.sampled_from([*WORDS, "calc", "forec", "zebra"]), min_size=1, max_size=5),
)
def test_every_tools_coverage_at_once_is_each_ones(
    descriptions: list[list[str]], query: list[str]
) -> None:
    """Failure: `coverages` (every named tool at once, as score fusion weighs them) gave a
    value other than `coverage` of that tool alone, to the last bit, prefixes included."""
    tools = [ToolReference(f"tool_{i}", " ".join(words)) for i, words in enumerate(descriptions)]
    profile = _profile(tools)
    weighed = profile.weigh(_terms(" ".join(query)))
    names = [tool.name for tool in reversed(tools)] + ["no_such_tool"]
    expected = [weighed.coverage(profile.terms.get(name, frozenset())) for name in names]
    assert profile.coverages(weighed, names).tolist() == expected


def test_a_similarity_answer_weighs_how_near_the_catalog_comes_whatever_the_ranking() -> None:
    profile = _profile(TOOLS)
    terms = _terms("refund a card payment")
    # A fusion ranked two weak matches first; the nearest tool is further down.
    hits = [ToolHit("send_invoice", 0.2, ""), ToolHit("get_forecast", 0.1, "")]
    alone = nearest_confidence(profile, terms, hits)
    assert nearest_confidence(profile, terms, hits, nearest=0.6) > alone
    assert nearest_confidence(profile, terms, hits, nearest=0.05) == alone  # never below
    # The coverage is the catalog's best (refund_payment's, not among the hits) ...
    covering = [ToolHit("refund_payment", 0.2, ""), ToolHit("get_forecast", 0.1, "")]
    assert nearest_confidence(profile, terms, covering) == alone
    assert profile.best_coverage(profile.weigh(terms)) == 1.0
    # ... of the tools the search may return.
    allowed = {"send_invoice", "get_forecast"}
    assert nearest_confidence(profile, terms, hits, allowed=allowed) < alone
    assert profile.best_coverage(profile.weigh(terms), allowed) == max(
        profile.coverage(terms, name) for name in allowed
    )


def _index(**options: float) -> ReferenceToolIndex:
    index = ReferenceToolIndex(**options)
    index.index_tools("s", sample_tools())
    return index


def test_an_index_answers_an_unrelated_query_with_nothing_by_default() -> None:
    index = _index()
    assert index.options.min_confidence == DEFAULT_MIN_CONFIDENCE
    # "a" is a word of many tools to the reference engine, and means nothing.
    response = index.search(ToolSearchRequest("s", "a migratory whale"))
    assert response.references == ()
    assert response.total_matches == 0
    assert response.confidence is not None and response.confidence < DEFAULT_MIN_CONFIDENCE
    unfloored = _index(min_confidence=0).search(ToolSearchRequest("s", "a migratory whale"))
    assert unfloored.references
    assert unfloored.confidence == response.confidence


def test_hits_carry_their_confidence_and_the_response_the_best() -> None:
    response = _index().search(ToolSearchRequest("s", "refund a card payment", 3))
    assert response.references[0].name == "stripe_refund_payment"
    assert response.confidence == max(hit.confidence or 0.0 for hit in response.references)
    assert all(0.0 <= (hit.confidence or -1) <= 1.0 for hit in response.references)
    assert response.to_dict()["confidence"] == response.confidence
    assert response.to_dict()["references"][0]["confidence"] == response.confidence


def test_an_answer_is_as_confident_whatever_the_page_size() -> None:
    """The engine ranks at least the hits confidence weighs: a page of one or two is as
    confident as a page of five, and a prefix of it."""
    index = _index()
    for text in (
        "refund a card payment",
        "weather forecast tomorrow",
        "post a message to a channel",
        "upload a file",
        "a migratory whale",
    ):
        pages = [index.search(ToolSearchRequest("s", text, size)) for size in (1, 2, 5)]
        assert len({page.confidence for page in pages}) == 1, text
        names = [[hit.name for hit in page.references] for page in pages]
        assert names[0] == names[2][:1] and names[1] == names[2][:2], text


def test_a_catalog_of_near_duplicates_still_answers() -> None:
    """Tools that several servers offer alike tie at the top; the answer stands (a margin
    over the next hits, tried as a feature, abstained here)."""
    tools = [ToolReference(name, f"GCD ({name}).") for name in ("math.gcd", "math_gcd", "calc.gcd")]
    index = ReferenceToolIndex()
    index.index_tools("s", tools)
    response = index.search(ToolSearchRequest("s", "gcd greatest common divisor", 3))
    assert {hit.name for hit in response.references} == {t.name for t in tools}


def test_min_confidence_must_be_between_zero_and_one() -> None:
    with pytest.raises(ConfigError, match="min_confidence"):
        ReferenceToolIndex(min_confidence=1.5)


@pytest.mark.parametrize(
    "model_id",
    [
        "sentence-transformers/all-mpnet-base-v2",
        "sentence-transformers/all-mpnet-base-v2:len256:int8",
        "/models/all-mpnet-base-v2/",
        "all-mpnet-base-v2@3f2a9c01b2d4:raw",
        "C:\\models\\All-MPNet-Base-v2",
    ],
)
def test_an_embedder_of_a_measured_model_gets_that_models_fit(model_id: str) -> None:
    assert similarity_fit(model_id) == SIMILARITY_FITS["all-mpnet-base-v2"] != DEFAULT_FIT


@pytest.mark.parametrize(
    "model_id",
    [None, "", "sentence-transformers/all-MiniLM-L6-v2:int8tok2", "openai:text-embedding-3-small"],
)
def test_the_default_embedder_and_unmeasured_models_get_the_default_fit(
    model_id: str | None,
) -> None:
    assert similarity_fit(model_id) == DEFAULT_FIT


def test_a_models_fit_weighs_its_own_scale_and_density() -> None:
    mpnet = SIMILARITY_FITS["all-mpnet-base-v2"]
    # At its own reference density the model stands as fitted: no discount yet.
    at = mpnet.reference_density
    undiscounted = combine(0.2, 1.0, 0.4, mpnet)
    assert combine(0.2, 1.0, 0.4, mpnet, density=at) == undiscounted
    # MiniLM's reference would already discount that density.
    minilm_reference = SimilarityFit(mpnet.model, REFERENCE_DENSITY)
    assert combine(0.2, 1.0, 0.4, minilm_reference, density=at) < undiscounted


def test_a_query_weighed_again_is_remembered_and_the_memory_is_bounded() -> None:
    from toolscout import confidence

    profile = _profile(TOOLS)
    terms = _terms("email the invoice")
    first = profile.weigh(terms)
    assert profile.weigh(list(terms)) is first  # a search weighs once for every hit
    assert first == _profile(TOOLS).weigh(terms)  # what a new profile weighs
    for number in range(confidence._WEIGHED + 10):
        profile.weigh((f"word{number}",))
    assert len(profile._weighed) <= confidence._WEIGHED


@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), min_size=1, max_size=6),
    st.lists(st.sampled_from([*WORDS, "calc", "forec", "zebra"]), min_size=1, max_size=5),
    st.lists(unit, min_size=8, max_size=8),
    st.one_of(st.none(), unit),
)
def test_each_hits_confidence_is_combines_to_the_last_bit(
    descriptions: list[list[str]],
    query: list[str],
    similarities: list[float],
    density: float | None,
) -> None:
    """Failure: `confidences` (its sums written out, and with `dense` the coverages read
    from every tool's covered weight) gave a hit other than `combine` of its evidence."""
    tools = [ToolReference(f"tool_{i}", " ".join(words)) for i, words in enumerate(descriptions)]
    profile = _profile(tools)
    terms = _terms(" ".join(query))
    weighed = profile.weigh(terms)
    names = [tool.name for tool in reversed(tools)] + ["no_such_tool"]
    seen = [weighed.covered(profile.terms.get(name, frozenset())) for name in names]
    keyword = [
        round(combine(coverage, weighed.known, corroborated=found >= 2), 4)
        for coverage, found in seen
    ]
    assert confidences(profile, terms, names) == keyword
    fit = SIMILARITY_FITS["l2_supercat_256"]
    by_similarity = [
        round(combine(coverage, weighed.known, similarity, fit, density=density), 4)
        for (coverage, _), similarity in zip(seen, similarities, strict=False)
    ]
    sims = similarities[: len(names)]
    assert confidences(profile, terms, names, sims, fit, density) == by_similarity
    assert confidences(profile, terms, names, sims, fit, density, dense=True) == by_similarity


@pytest.mark.parametrize(
    "logit", [0.0, -0.0, 1e-300, 3.5, -7.25, 49.999, 50.0, 50.5, -50.0, -50.5, 1e308, -1e308]
)
def test_the_logistic_clamps_as_max_and_min_do(logit: float) -> None:
    from toolscout.confidence import _logistic

    expected = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, logit))))
    assert _logistic(logit) == expected
    assert _logistic(math.nan) == 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, math.nan))))


def test_a_searchs_covered_weights_are_worked_out_once_per_profile() -> None:
    """Failure: the covered weights were worked out again for the same query, could be
    written to by a reader, or a profile read another's (the purposes profile shares the
    weighed queries, not the tools' words)."""
    schema = {"type": "object", "properties": {"id": {"description": "the card payment"}}}
    tools = [*TOOLS, ToolReference("refund_order", "Undo an order.", schema)]
    profile = _profile(tools)
    weighed = profile.weigh(_terms("refund the payment"))
    covered = profile._covered(weighed)
    assert profile._covered(weighed) is covered
    assert not covered.flags.writeable
    purposes = profile.purposes(tools, ANALYZER)
    assert purposes.weigh(_terms("refund the payment")) is weighed
    names = [tool.name for tool in tools]
    expected = [weighed.coverage(purposes.terms[name]) for name in names]
    assert purposes.coverages(weighed, names).tolist() == expected
    assert expected[-1] < profile.coverages(weighed, names).tolist()[-1]  # not the same words
    assert profile._covered(profile._weigh(_terms("refund the payment"))) is not covered
