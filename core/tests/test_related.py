"""The table of related words (`toolscout.related`): what it holds and the rule engines apply."""

from __future__ import annotations

import gzip
import importlib.resources

import pytest
from toolscout.analysis import analyzer
from toolscout.related import MIN_SIMILARITY, related_in, related_terms


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


def test_every_line_of_the_table_parses() -> None:
    resource = importlib.resources.files("toolscout") / "data" / "related_terms.txt.gz"
    lines = gzip.decompress(resource.read_bytes()).decode().splitlines()
    assert len(lines) > 25_000
    for line in lines[:: len(lines) // 500]:
        stem, *entries = line.split(" ")
        assert stem.isalpha() and stem.islower() and entries
        for entry in entries:
            word, _, hundredths = entry.rpartition(":")
            assert word.isalpha() and 50 <= int(hundredths) <= 100
