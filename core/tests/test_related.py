"""The table of related words (`toolscout.related`): what it holds and the rule engines apply."""

from __future__ import annotations

import pytest
from toolscout.analysis import analyzer
from toolscout.related import (
    MIN_SIMILARITY,
    _read,
    discounted_related,
    related_in,
    related_terms,
    word_columns,
    word_groups,
)
from toolscout.toolsets import ToolSet
from toolscout.types import ToolReference


def test_a_word_is_related_to_words_of_like_meaning() -> None:
    assert "weather" in dict(related_terms("rain"))
    assert "invoic" in dict(related_terms("bill"))
    assert "github" in dict(related_terms("repositori"))


def test_related_words_come_best_first_and_above_the_least_similarity() -> None:
    found = related_terms("price")
    similarities = [similarity for _, similarity in found]
    assert found and similarities == sorted(similarities, reverse=True)
    assert all(MIN_SIMILARITY <= similarity <= 1.0 for similarity in similarities)
    assert "price" not in dict(found)


@pytest.mark.parametrize("term", ["", "zzqxjv", "s3", "Rain"])
def test_a_word_the_table_does_not_know_has_none(term: str) -> None:
    assert related_terms(term) == ()


def test_the_table_is_keyed_by_core_s_stems() -> None:
    """A query word reaches the table through the analysis every index uses."""
    (term,) = analyzer().query_terms("invoices")
    assert related_terms(term) and all(related_terms(word) for word, _ in related_terms(term))


def test_only_the_catalog_s_words_are_tried_nearest_first_and_at_most_the_limit() -> None:
    catalog = {"weather", "forecast", "umbrella", "water", "flood", "send"}
    nearest = related_in("rain", catalog)
    assert [word for word, _ in nearest] == [
        word for word, _ in related_terms("rain") if word in catalog
    ][:3]
    assert len(related_in("rain", catalog, limit=1)) == 1
    assert related_in("rain", {"send", "message"}) == []


def test_every_entry_of_the_table_is_a_stem_with_its_similarity() -> None:
    table = _read()
    assert len(table.stems) > 25_000 and table.stems == sorted(table.stems)
    assert len(table.neighbours) == len(table.similarities) == table.spans[-1][1]
    for stem in table.stems[:: len(table.stems) // 500]:
        assert stem.isalpha() and stem.islower()
        for word, similarity in related_terms(stem):
            assert word in table.index and word != stem
            assert MIN_SIMILARITY <= similarity <= 1.0


def test_the_discounts_are_the_weight_times_the_similarity_and_none_without_stemming() -> None:
    catalog = {"weather", "water", "flood"}
    nearest = related_in("rain", catalog)
    assert discounted_related("rain", catalog, 0.4, analyzer()) == [
        (word, 0.4 * similarity) for word, similarity in nearest
    ]
    assert discounted_related("rain", catalog, 0.0, analyzer()) == []
    assert discounted_related("rain", catalog, 0.4, analyzer(stemming=False)) == []


def test_a_query_s_word_groups_hold_each_term_then_its_related_words_of_the_set() -> None:
    tools = [
        ToolReference("weather_now", "Provide the latest weather information."),
        ToolReference("send_invoice", "Create an invoice and email it."),
    ]
    toolset = ToolSet.of("set", tools)
    words = analyzer()
    groups = word_groups(["rain", "bill", "email"], toolset, 0.4, words)
    assert [group[0] for group in groups] == [("rain", 1.0), ("bill", 1.0), ("email", 1.0)]
    assert "weather" in dict(groups[0]) and "invoic" in dict(groups[1])
    vocabulary = {
        term for tool in tools for field in words.tool_terms(tool).fields for term in field
    }
    for group in groups:
        assert group[1:] == discounted_related(group[0][0], vocabulary, 0.4, words)
    assert word_groups(["rain"], toolset, 0.0, words) == [[("rain", 1.0)]]
    queried, found, discounts = word_columns(groups)
    assert list(zip(queried, found, discounts, strict=True)) == [
        (group[0][0], word, discount) for group in groups for word, discount in group
    ]
