"""Specification of core's one text analysis and its rule for queries that name tools."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolscout import ToolReference, analysis
from toolscout.analysis import (
    STOP_WORDS,
    analyzer,
    clauses,
    fold,
    name_candidates,
    short_names,
)


def test_identifiers_split_the_same_way_in_tools_and_queries() -> None:
    terms = analyzer()
    tool = ToolReference("getURLs", "Fetch every URL of a page.")
    assert terms.tool_terms(tool).name == ("get", "url")
    assert terms.query_terms("getURLs") == ["get", "url"]


def test_stop_words_and_stemming_can_be_switched_off() -> None:
    assert analyzer().query_terms("please send the emails") == ["send", "email"]
    plain = analyzer(stemming=False, stop_words=False)
    assert plain.query_terms("please send the emails") == ["please", "send", "the", "emails"]
    assert analyzer() is analyzer(stemming=True, stop_words=True)
    assert analyzer().signature != plain.signature


def test_one_stop_word_list() -> None:
    assert {"the", "please", "can", "you"} <= STOP_WORDS


def test_unspaced_scripts_become_bigrams_and_accents_fold() -> None:
    assert analyzer().terms("今天天气") == ["今天", "天天", "天气"]
    assert fold("Météo") == "meteo"


def test_overlong_words_and_numbers_are_not_terms() -> None:
    assert analyzer().terms("x" * 41 + " 2024 forecast") == ["forecast"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("s3", ["s3"]),
        ("EC2", ["ec2", "ec"]),
        ("k8s", ["k8s"]),
        ("o365", ["o365"]),
        ("OAuth2", ["oauth2", "oauth"]),
        ("gpt-4o", ["gpt", "4o"]),
        ("utf8", ["utf8", "utf"]),
        ("md5", ["md5", "md"]),
        ("sha256", ["sha256", "sha"]),
        ("x509", ["x509"]),
        ("base64", ["base64", "base"]),
        ("api_v2", ["api", "v2"]),
        ("S3Bucket", ["s3", "bucket"]),
        ("uploads3files", ["uploads3files", "upload", "file"]),
    ],
)
def test_names_with_digits_are_terms_whole_and_split(word: str, expected: list[str]) -> None:
    terms = analyzer()
    assert terms.query_terms(word) == expected
    assert terms.tool_terms(ToolReference(word, "")).name == tuple(expected)


def test_a_name_with_digits_is_not_stemmed_but_its_words_are() -> None:
    assert analyzer().query_terms("uploading2") == ["uploading2", "upload"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("get_weather", ["get_weather"]),
        ("  `get_weather`  ", ["get_weather"]),
        (
            "use send_email then math.sum",
            ["use send_email then math.sum", "send_email", "math.sum"],
        ),
        ("select:alpha,beta", ["select:alpha,beta", "alpha", "beta"]),
        ('call "search" now', ['call "search" now', "search"]),
        ("getWeather please", ["getweather please", "getweather"]),
    ],
)
def test_name_candidates(query: str, expected: list[str]) -> None:
    assert name_candidates(query) == expected


def test_a_plain_word_is_not_a_name_candidate() -> None:
    assert "help" not in name_candidates("help me book a flight")


def test_clauses_are_sentences_cut_where_a_step_starts() -> None:
    assert clauses(
        "Post a note to the team channel on Slack. Then refund the customer's card payment, "
        "and finally put a meeting with the designers in my calendar."
    ) == [
        "Post a note to the team channel on Slack.",
        "refund the customer's card payment",
        "put a meeting with the designers in my calendar.",
    ]
    assert clauses("First, get the weather in Paris; also book a table for two") == [
        "get the weather in Paris",
        "book a table for two",
    ]
    # One request is one clause; fragments under three words are no request.
    assert clauses("send an email to Bob") == ["send an email to Bob"]
    assert clauses("Weather? In Paris. Tell me tomorrow's forecast.") == [
        "Tell me tomorrow's forecast."
    ]
    assert len(clauses(" ".join(f"Do task number {i}." for i in range(20)))) == 8


# The plain statement of `clauses` and of `name_candidates`' identifier-shaped pieces (each
# pattern tried all along the text); the module finds the same from rarer characters.
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\s*\n\s*")
_STEP = re.compile(
    r"(?:,\s*|\s+)(?:and\s+)?(?:then|also|after that|afterwards|finally|lastly|additionally|"
    r"secondly|thirdly)\b[,:]?\s*|^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|also|"
    r"finally|lastly|additionally|next|after that|afterwards|moreover|furthermore)\b[,:]?\s*",
    re.IGNORECASE,
)
_DELIMITERS = re.compile(r"[\s,;:'\"`()\[\]{}<>]+")
_SHAPED = re.compile(r"\w[_./\-]\w|[a-z][A-Z]")


def plain_clauses(query: str) -> list[str]:
    parts = (
        part.strip(" ,;:\"'") for s in _SENTENCE.split(query.strip()) for part in _STEP.split(s)
    )
    return [part for part in parts if len(part.split()) >= 3][:8]


def plain_identifier_candidates(query: str) -> list[str]:
    pieces = (piece.strip(".!?") for piece in _DELIMITERS.split(query.strip()))
    return list(dict.fromkeys(fold(piece) for piece in pieces if _SHAPED.search(piece)))


# Step words (a long s matches s), separators, quotes and identifiers, to mix.
STEPS = ["then", "Also", "FINALLY", "after that", "firstly", "Next", "and then", "laſtly", "thence"]
MARKS = [".", "!", "?", ";", ",", ":", "\n", " \n ", "\t", "  ", "\u00a0", "'", '"', "`", "(", "]"]
NAMES = ["a_b", "a.b", "fooBar", "getURLs", "select:a,b", "x-y", "a.", ".a", "Météo", "天气", "éA"]
PIECES = st.sampled_from([*STEPS, *MARKS, *NAMES, "send", "the", "email", "Paris"])
QUERIES = st.one_of(
    st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=30).map(" ".join),
    st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=30).map("".join),
    st.text(max_size=40),
)


@settings(max_examples=300, deadline=None)
@given(QUERIES)
def test_clauses_and_candidates_are_what_the_plain_statement_gives(query: str) -> None:
    assert clauses(query) == plain_clauses(query)
    found = analysis._identifier_pieces(query.strip())
    assert list(dict.fromkeys(map(fold, found))) == plain_identifier_candidates(query)


def test_short_names_drop_namespaces_not_words() -> None:
    assert short_names("mcp__x__ask_codex") == ["x__ask_codex", "ask_codex"]
    assert short_names("s3.put_object") == ["put_object"]
    assert short_names("github/repos:list") == ["repos:list", "list"]
    assert short_names("send_message") == []
    assert short_names("trailing.") == []
