"""Turning text into search terms: folding, word splitting, stop words, stemming, CJK bigrams.

Tools and queries go through the same `Analyzer`, so a query word matches a tool word when
both fold to the same term:

- Unicode-aware folding: NFKC, accents stripped, case-folded (`Météo` → `meteo`).
- Words are runs of `\\w` with identifiers split by core (`getWeatherData` → get weather data).
- Han, kana and other unspaced scripts become overlapping character bigrams, so `天气` finds
  a description containing `今天天气预报`.
- English stop words, single letters and bare numbers are dropped; the remaining words are
  Porter-stemmed (`sending` → `send`, `weathers` → `weather`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

from toolscout.text import split_identifier

from toolscout_regex.porter import stem

__all__ = ["STOP_WORDS", "Analyzer", "fold"]

# English function words plus the filler of requests to an assistant ("please can you ...").
_STOP_WORD_LIST = """
    a about above after again against all am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn
    doing don down during each few for from further had hadn has hasn have haven having he
    her here hers herself him himself his how i if in into is isn it its itself just let
    ll me more most my myself no nor not now of off on once only or other ought our ours
    ourselves out over own re same shall she should shouldn so some such than that the
    their theirs them themselves then there these they this those through to too under
    until up us ve very was wasn we were weren what when where which while who whom why
    will with won would wouldn you your yours yourself yourselves also via per etc eg ie
    please kindly thanks thank hi hello hey want wanted wants like need needs d m s t
"""
STOP_WORDS: frozenset[str] = frozenset(_STOP_WORD_LIST.split())

# Scripts written without spaces between words: indexed as character bigrams.
_UNSPACED = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\u0e00-\u0e7f"  # Thai
)
_TOKEN = re.compile(rf"[{_UNSPACED}]+|[^\W_{_UNSPACED}]+", re.UNICODE)
_UNSPACED_RUN = re.compile(rf"[{_UNSPACED}]")
_ASCII_TOKEN = re.compile(r"[^\W_]+", re.ASCII)


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Compatibility-normalised, accent-free, case-folded text (`Ｍétéo` → `meteo`)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFKC", stripped).casefold()


class Analyzer:
    """The term pipeline shared by indexing and querying (see the module docstring).

    `stemming` and `stop_words` switch those steps off, for callers who want exact words.
    """

    def __init__(self, *, stemming: bool = True, stop_words: bool = True) -> None:
        self.stemming = stemming
        self.stop_words = STOP_WORDS if stop_words else frozenset()
        self._term = lru_cache(maxsize=65536)(self._term_uncached)

    def _term_uncached(self, word: str) -> str | None:
        """The search term for one folded word, or None if the word carries no meaning."""
        if word in self.stop_words or word.isdigit():
            return None
        if len(word) == 1 and not _UNSPACED_RUN.match(word):
            return None
        return stem(word) if self.stemming else word

    def terms(self, text: str) -> list[str]:
        """The terms of already-split text (such as `ToolReference.text` fields), in order."""
        folded = fold(text)
        if folded.isascii():
            # No unspaced scripts in ASCII: every token is a word.
            return [term for term in map(self._term, _ASCII_TOKEN.findall(folded)) if term]
        found: list[str] = []
        for token in _TOKEN.findall(folded):
            if _UNSPACED_RUN.match(token):
                if len(token) == 1:
                    found.append(token)
                else:
                    found.extend(token[i : i + 2] for i in range(len(token) - 1))
                continue
            term = self._term(token)
            if term is not None:
                found.append(term)
        return found

    def query_terms(self, query: str) -> list[str]:
        """The terms of a free-text query: identifiers in it are split first, as tools are."""
        split = " ".join(
            part for word in re.findall(r"\w+", query) for part in split_identifier(word)
        )
        return self.terms(split)

    def counts(self, text: str) -> tuple[Counter[str], int]:
        """Term frequencies of `text` and its length in terms."""
        terms = self.terms(text)
        return Counter(terms), len(terms)
