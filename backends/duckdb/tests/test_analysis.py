"""The SQL analyzer (documents) and the Python analyzer (queries) give the same words."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolscout.text import words
from toolscout_duckdb.analysis import (
    ENGLISH_STOPWORDS,
    SPLIT_MACRO_SQL,
    resolve_stopwords,
    split_text,
)


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect()
    con.execute(SPLIT_MACRO_SQL)
    yield con
    con.close()


def sql_split(con: duckdb.DuckDBPyConnection, text: str) -> list[str]:
    row = con.execute("SELECT ts_split(?)", [text]).fetchone()
    assert row is not None
    return list(row[0])


IDENTIFIER = st.text(alphabet="abcXYZ019_.-/: ", min_size=0, max_size=30)
TEXT = st.text(
    alphabet=st.characters(
        codec="utf-8", categories=["Lu", "Ll", "Nd", "Zs", "Po", "Pd", "Pc", "Sm"]
    ),
    max_size=40,
    # Letters whose lower case is longer (İ → i + combining dot) lower differently in
    # Python and in DuckDB's utf8proc; a known, harmless difference.
).filter(lambda text: len(text.lower()) == len(text))


@settings(max_examples=300, deadline=None)
@given(IDENTIFIER)
def test_sql_and_python_split_identifiers_alike(con: duckdb.DuckDBPyConnection, text: str) -> None:
    assert sql_split(con, text) == split_text(text)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_sql_and_python_split_any_text_alike(con: duckdb.DuckDBPyConnection, text: str) -> None:
    assert sql_split(con, text) == split_text(text)


@settings(max_examples=300, deadline=None)
@given(IDENTIFIER)
def test_split_matches_core_identifier_splitting(text: str) -> None:
    assert split_text(text) == words(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("getHTTPResponse_v2", ["get", "http", "response", "v", "2"]),
        ("weather.get repos/list:all", ["weather", "get", "repos", "list", "all"]),
        ("ABCDef aBcD", ["abc", "def", "a", "bc", "d"]),
        ("Straße Ünïcödé", ["straße", "ünïcödé"]),
    ],
)
def test_split_examples(con: duckdb.DuckDBPyConnection, text: str, expected: list[str]) -> None:
    assert split_text(text) == expected
    assert sql_split(con, text) == expected


def test_stopword_options() -> None:
    assert resolve_stopwords("english") == ENGLISH_STOPWORDS
    assert "get" not in ENGLISH_STOPWORDS
    assert resolve_stopwords("none") == frozenset()
    assert resolve_stopwords(["Foo", "barBaz"]) == {"foo", "bar", "baz"}
    with pytest.raises(ValueError, match="'english', 'none' or a list"):
        resolve_stopwords("klingon")


@pytest.fixture(scope="module")
def fts() -> Iterator[duckdb.DuckDBPyConnection]:
    from toolscout_duckdb.extension import load_fts

    con = duckdb.connect()
    load_fts(con)
    yield con
    con.close()


def _duckdb_stems(con: duckdb.DuckDBPyConnection, words: list[str], stemmer: str) -> list[str]:
    row = con.execute("SELECT list_transform(?::VARCHAR[], w -> stem(w, ?))", [words, stemmer])
    result = row.fetchone()
    assert result is not None
    return list(result[0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14)))
def test_python_porter_stems_like_the_fts_extension(
    fts: duckdb.DuckDBPyConnection, words: list[str]
) -> None:
    from toolscout_duckdb.index import _python_stemmer

    stem_words = _python_stemmer("porter")
    assert stem_words is not None
    assert stem_words(words) == _duckdb_stems(fts, words, "porter")


def test_python_porter_agrees_on_real_tool_vocabulary(fts: duckdb.DuckDBPyConnection) -> None:
    from toolscout.testing.sample_catalog import sample_tools
    from toolscout_duckdb.index import _python_stemmer

    vocabulary = sorted({w for t in sample_tools() for w in split_text(t.text.all)})
    vocabulary += ["running", "generalizations", "oscillators", "happily", "agreed", "sky"]
    stem_words = _python_stemmer("porter")
    assert stem_words is not None
    assert stem_words(vocabulary) == _duckdb_stems(fts, vocabulary, "porter")


def test_other_stemmers_are_left_to_duckdb() -> None:
    from toolscout_duckdb.index import _python_stemmer

    assert _python_stemmer("english") is None  # Snowball's english changed across releases
    none = _python_stemmer("none")
    assert none is not None and none(["Running"]) == ["Running"]
