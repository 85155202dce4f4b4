"""One text analysis for every backend: the same words go into every index as are looked up.

Lucene and Tantivy keep one analyzer that every field and query goes through; toolscout keeps
one in core, so a query means the same in the regex, DuckDB, Tantivy and LanceDB backends,
and a third-party backend gets it for free. The pipeline:

- Unicode-aware folding: NFKC, accents stripped, case-folded (`Météo` → `meteo`).
- Words are runs of `\\w`, identifiers split by `toolscout.text` (`getWeatherData` →
  get weather data, `getURLs` → get urls).
- A word of letters and digits is a name (`s3`, `ec2`, `k8s`, `oauth2`, `sha256`): it is
  kept whole, unstemmed, and its letter and digit runs follow it (`oauth2` → oauth2
  oauth), so `s3` finds `s3.put_object` and `oauth` still finds `OAuth2`.
- Han, kana and Thai, written without spaces, become overlapping character bigrams, so `天气`
  finds a description containing `今天天气预报`.
- English stop words (one list, `STOP_WORDS`), single letters and bare numbers are dropped;
  the remaining words are Porter-stemmed (`sending` → `send`).

Engines that tokenise on their own (Tantivy, DuckDB, LanceDB) receive the terms joined by
spaces and split on whitespace only, so their tokenizers add nothing.

`name_candidates` is the one rule for queries that name tools (see its docstring).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache, lru_cache

from toolscout.porter import stem
from toolscout.text import split_identifier
from toolscout.types import ToolReference

__all__ = [
    "STOP_WORDS",
    "Analyzer",
    "ToolTerms",
    "analyzer",
    "clauses",
    "fold",
    "name_candidates",
    "short_names",
]

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
    please kindly thanks thank hi hello hey want wanted wants like need needs help d m s t
"""
#: The stop words every backend drops (when its `stop_words` option is on).
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
_WORD = re.compile(r"\w+")
# A word of letters and digits both (`s3`, `sha256`, `gpt4o`), and its letter and digit runs.
_MIXED = re.compile(r"(?=\D*\d)(?=.*[^\W\d_])")
_RUNS = re.compile(r"\d+|[^\W\d_]+")
# Words longer than this are noise (hashes, base64) and would bloat every term dictionary.
_MAX_TERM = 40
# Tool analyses kept per analyzer (by definition fingerprint), shared by every index.
_TOOL_CACHE_SIZE = 50_000


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Compatibility-normalised, accent-free, case-folded text (`Ｍétéo` → `meteo`)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFKC", stripped).casefold()


@dataclass(frozen=True, slots=True)
class ToolTerms:
    """The analysed terms of one tool, per field, in text order (repeats kept)."""

    name: tuple[str, ...]
    parameters: tuple[str, ...]
    description: tuple[str, ...]

    @property
    def fields(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        return (self.name, self.parameters, self.description)


class Analyzer:
    """The term pipeline shared by indexing and querying (see the module docstring).

    Use `analyzer(stemming=..., stop_words=...)` to get the process-wide instance for a
    configuration: its caches are then shared by every index that analyses the same way.
    """

    def __init__(self, *, stemming: bool = True, stop_words: bool = True) -> None:
        self.stemming = stemming
        self.stop_words = STOP_WORDS if stop_words else frozenset()
        self._term = lru_cache(maxsize=65536)(self._term_uncached)
        self._word_terms = lru_cache(maxsize=65536)(self._word_terms_uncached)
        self._tools: OrderedDict[str, ToolTerms] = OrderedDict()
        self._tools_lock = threading.Lock()

    @property
    def signature(self) -> str:
        """Names this configuration; a persistent index records it and refuses another."""
        return f"toolscout-2:{'porter' if self.stemming else 'nostem'}:" + (
            "stop" if self.stop_words else "nostop"
        )

    def _term_uncached(self, word: str) -> tuple[str, ...]:
        """The search terms of one folded word: none if it carries no meaning, one for a
        plain word, and for letters mixed with digits the whole word, unstemmed, then its
        letter and digit runs (`oauth2` → `oauth2`, `oauth`; `s3` → `s3`)."""
        if len(word) > _MAX_TERM:
            return ()
        if _MIXED.match(word):
            parts = (self._plain(part) for part in _RUNS.findall(word))
            return (word, *(part for part in parts if part is not None))
        plain = self._plain(word)
        return () if plain is None else (plain,)

    def _plain(self, word: str) -> str | None:
        if word in self.stop_words or word.isdigit():
            return None
        if len(word) == 1 and not _UNSPACED_RUN.match(word):
            return None
        return stem(word) if self.stemming else word

    def terms(self, text: str) -> list[str]:
        """The terms of already-split text (such as `ToolReference.text` fields), in order."""
        folded = fold(text)
        found: list[str] = []
        if folded.isascii():
            # No unspaced scripts in ASCII: every token is a word.
            for token in _ASCII_TOKEN.findall(folded):
                found.extend(self._term(token))
            return found
        for token in _TOKEN.findall(folded):
            if _UNSPACED_RUN.match(token):
                if len(token) == 1:
                    found.append(token)
                else:
                    found.extend(token[i : i + 2] for i in range(len(token) - 1))
                continue
            found.extend(self._term(token))
        return found

    def query_terms(self, query: str) -> list[str]:
        """The terms of a free-text query: identifiers in it are split first, as tools are."""
        found: list[str] = []
        for word in _WORD.findall(query):
            found.extend(self._word_terms(word))
        return found

    def _word_terms_uncached(self, word: str) -> tuple[str, ...]:
        # Cached per word: queries repeat words far more often than they repeat queries.
        return tuple(self.terms(" ".join(split_identifier(word))))

    def tool_terms(self, tool: ToolReference) -> ToolTerms:
        """The terms of a tool's name, parameters and description (cached per definition)."""
        key = tool.fingerprint
        with self._tools_lock:
            cached = self._tools.get(key)
            if cached is not None:
                self._tools.move_to_end(key)
                return cached
        text = tool.text
        analysed = ToolTerms(
            tuple(self.terms(text.name)),
            tuple(self.terms(text.parameters)),
            tuple(self.terms(text.description)),
        )
        with self._tools_lock:
            self._tools[key] = analysed
            if len(self._tools) > _TOOL_CACHE_SIZE:
                self._tools.popitem(last=False)
        return analysed


def analyzer(*, stemming: bool = True, stop_words: bool = True) -> Analyzer:
    """The process-wide analyzer for a configuration (one per combination of options)."""
    return _shared(bool(stemming), bool(stop_words))


@cache
def _shared(stemming: bool, stop_words: bool) -> Analyzer:
    return Analyzer(stemming=stemming, stop_words=stop_words)


# Characters that separate names a query may quote: `select:a,b`, "`get_weather`", "(x)".
_DELIMITER = r"\s,;:'\"`()\[\]{}<>"  # a character class's contents
_NAME_DELIMITERS = re.compile(f"[{_DELIMITER}]+")
_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"|'([^']+)'")
# An inner separator or a lower→upper step marks a piece as an identifier.
_IDENTIFIER_SHAPED = re.compile(r"\w[_./\-]\w|[a-z][A-Z]")
# Where `_IDENTIFIER_SHAPED` matches, found by its middle character: a pattern that starts
# with one character class lets the engine skip to the few candidates in C.
_SHAPE_MIDDLE = re.compile(r"[_./\-A-Z](?:(?<=\w[_./\-])(?=\w)|(?<=[a-z][A-Z]))")
# A run of non-delimiters: from a position, where its piece ends (in the reversed text,
# where it starts).
_PIECE_RUN = re.compile(f"[^{_DELIMITER}]*")
_SELECT = re.compile(r"^\s*select\s*:", re.IGNORECASE)


def name_candidates(query: str) -> list[str]:
    """Pieces of `query` that name a tool outright, folded, in query order, no repeats.

    A tool whose folded name, or a short name (`short_names`), is a candidate ranks first
    in every backend. Candidates are:

    - the whole query, stripped of surrounding quotes and punctuation (`get_weather`);
    - each name listed after `select:` (`select:get_weather,send_email`), however plain;
    - each quoted piece (`` `search` ``, `"search"`);
    - each identifier-shaped piece: it has `_ . / -` between letters or a camelCase step
      (`send_message`, `math.sum`, `getWeather`).

    A plain word elsewhere ("help" in "help me book a flight") is not a candidate: it must
    not pull a tool that happens to be called `help` to the top.
    """
    text = query.strip()
    found = [text.strip("\"'`()[]{}<>,;:.!? ")]
    selected = _SELECT.match(text)
    if selected:
        found.extend(_NAME_DELIMITERS.split(text[selected.end() :]))
    if "`" in text or '"' in text or "'" in text:
        for match in _QUOTED.finditer(text):
            found.append(next(group for group in match.groups() if group is not None).strip())
    found.extend(_identifier_pieces(text))
    return list(dict.fromkeys(fold(piece) for piece in found if piece))


def _identifier_pieces(text: str) -> list[str]:
    """The identifier-shaped pieces of `text` split at `_NAME_DELIMITERS`, stripped of
    `.!?`, in order: only the pieces around a shape are cut out, not every word."""
    found = []
    end = 0
    backwards = ""
    for shape in _SHAPE_MIDDLE.finditer(text):
        at = shape.start()
        if at < end:
            continue  # inside the piece just taken
        if not backwards:
            backwards = text[::-1]
        back = len(text) - at  # `text[at - 1]` is `backwards[back]`
        start = at - (_PIECE_RUN.match(backwards, back).end() - back)  # type: ignore[union-attr]
        end = _PIECE_RUN.match(text, at).end()  # type: ignore[union-attr]
        piece = text[start:end].strip(".!?")
        if piece and _IDENTIFIER_SHAPED.search(piece):
            found.append(piece)
    return found


# What separates a tool's namespace from its own name: `s3.put_object`, `mcp__x__ask_codex`,
# `github/create_issue`, `server:tool`. A single `_` or `-` joins words, not namespaces.
_NAMESPACE_SEPARATOR = re.compile(r"__|[./:]")


def short_names(folded_name: str) -> list[str]:
    """The names a tool also answers to without its namespaces, longest first:
    `mcp__x__ask_codex` → `x__ask_codex`, `ask_codex`; `s3.put_object` → `put_object`.

    A query naming one (`put_object`, `ask_codex`) ranks the tool first, as its full name
    would, when no tool has that exact name.
    """
    return [
        folded_name[match.end() :]
        for match in _NAMESPACE_SEPARATOR.finditer(folded_name)
        if match.end() < len(folded_name)
    ]


# A query's clauses: its sentences, each cut again where a step starts ("then", "also",
# "finally", "after that" ...). A clause under three words is left out (a name or a value,
# not a request), and a query has at most `_MAX_CLAUSES` (each costs an embedding).
# Sentences end at whitespace after `.!?;` or at whitespace holding a line break. The
# patterns start with one character class, so the engine skips to candidates in C.
_SENTENCE = re.compile(r"\s(?:(?<=[.!?;]\s)\s*|(?<=\n)\s*|\s*\n\s*)")
_PUNCT_GAP = re.compile(r"[.!?;]\s+")
_STEP_WORDS = r"then|also|after that|afterwards|finally|lastly|additionally|secondly|thirdly"
# A step inside a sentence, after a comma or a space.
_STEP = re.compile(rf"[,\s]\s*(?:and\s+)?(?:{_STEP_WORDS})\b[,:]?\s*", re.IGNORECASE)
# A step that opens a sentence.
_FIRST_STEP = re.compile(
    r"(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|also|finally|lastly|additionally|"
    r"next|after that|afterwards|moreover|furthermore)\b[,:]?\s*",
    re.IGNORECASE,
)
# What `_STEP` needs in ASCII text, lower-cased (where IGNORECASE means ASCII case only).
_STEP_HINTS = ("then", "also", "after", "finally", "lastly", "additionally", "secondly", "thirdly")
_MIN_CLAUSE_WORDS = 3
_MAX_CLAUSES = 8


def clauses(query: str) -> list[str]:
    """The clauses of a query that asks for several things, in order (see `_STEP`).

    "Get the weather in Paris. Then book a table for two" gives both sentences; a query
    of one clause gives that clause alone.
    """
    found: list[str] = []
    for sentence in _sentences(query.strip()):
        first = _FIRST_STEP.match(sentence)
        if first:
            sentence = sentence[first.end() :]
        for part in _steps(sentence):
            part = part.strip(" ,;:\"'")
            if len(part.split(None, 2)) >= _MIN_CLAUSE_WORDS:
                found.append(part)
                if len(found) == _MAX_CLAUSES:
                    return found
    return found


def _sentences(text: str) -> list[str]:
    if "\n" in text:
        return _SENTENCE.split(text)
    # No line break: cut after each `.!?;` that whitespace follows (a rare character).
    found = []
    start = 0
    for gap in _PUNCT_GAP.finditer(text):
        found.append(text[start : gap.start() + 1])
        start = gap.end()
    found.append(text[start:])
    return found


def _steps(sentence: str) -> list[str]:
    # Most sentences hold no step word: checking for one costs less than the pattern.
    if sentence.isascii():
        lowered = sentence.lower()
        if not any(word in lowered for word in _STEP_HINTS):
            return [sentence]
    return _STEP.split(sentence)
