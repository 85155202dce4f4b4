"""The Porter stemmer against examples from Porter's 1980 paper."""

from __future__ import annotations

import pytest
from toolscout.porter import stem

PAPER = {
    "caresses": "caress",
    "ponies": "poni",
    "cats": "cat",
    "feed": "feed",
    "agreed": "agre",
    "plastered": "plaster",
    "motoring": "motor",
    "sing": "sing",
    "conflated": "conflat",
    "troubled": "troubl",
    "sized": "size",
    "hopping": "hop",
    "falling": "fall",
    "hissing": "hiss",
    "filing": "file",
    "happy": "happi",
    "sky": "sky",
    "relational": "relat",
    "conditional": "condit",
    "rational": "ration",
    "digitizer": "digit",
    "triplicate": "triplic",
    "formative": "form",
    "hopeful": "hope",
    "goodness": "good",
    "revival": "reviv",
    "allowance": "allow",
    "adjustment": "adjust",
    "adoption": "adopt",
    "controll": "control",
    "roll": "roll",
    "probate": "probat",
    "rate": "rate",
    "cease": "ceas",
}


@pytest.mark.parametrize(("word", "expected"), sorted(PAPER.items()))
def test_stems_match_the_paper(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize("pair", [("send", "sending"), ("weather", "weathers"), ("list", "listed")])
def test_inflections_share_a_stem(pair: tuple[str, str]) -> None:
    assert stem(pair[0]) == stem(pair[1])


@pytest.mark.parametrize("word", ["météo", "天气", "v2", "ab"])
def test_non_english_short_or_mixed_words_are_left_alone(word: str) -> None:
    assert stem(word) == word
