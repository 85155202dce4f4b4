"""The two reference points every benchmark run measures beside the installed backends.

- `Bm25Reference`: plain BM25 as `../shared/eval/README.md` computes its reference figures:
  the `bm25s` package over name + description + parameter names, identifiers split, English
  stop words dropped, Porter-stemmed (PyStemmer).
- `SpringRegexReference`: Spring AI's regex tool searcher (`RegexToolSearcher` of the
  spring-ai tool-search-tool project), re-implemented from its behaviour: the query is
  lower-cased and tokenised, stop words and one-letter tokens are dropped, the tokens are
  escaped into one case-insensitive alternation of at most 200 characters, and each tool
  scores 2 per match in its name plus 1 per match in its description, plus a bonus for
  how early the first match sits.

Both are ordinary `ToolIndexBase` engines, so the benchmark drives them exactly like the
installed ones, and sessions holding one catalog share one set as they do there. They keep
their own text analysis (not core's) and rank as their originals do: no named-tools-first
rule, so their figures stay those of the methods they stand for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from toolscout import Capabilities, ToolHit, ToolIndexBase, ToolReference
from toolscout.index import Query
from toolscout.text import schema_properties, split_identifier, split_words
from toolscout.toolsets import ToolSet

__all__ = [
    "REFERENCES",
    "SPRING_STOP_WORDS",
    "Bm25Reference",
    "SpringRegexReference",
    "parameter_names",
    "spring_pattern",
]


def parameter_names(schema: Mapping[str, Any] | None) -> Iterator[str]:
    """The property names of a JSON Schema, nested objects and arrays included."""
    return (name for name, _prop in schema_properties(schema))


def bm25_document(tool: ToolReference) -> str:
    """The text the BM25 reference indexes: name, description and parameter names, split."""
    params = " ".join(" ".join(split_identifier(p)) for p in parameter_names(tool.input_schema))
    return f"{' '.join(split_identifier(tool.name))} {split_words(tool.description)} {params}"


class _Reference(ToolIndexBase):
    """What both references share: core's sessions and sets, their own ranking."""

    capabilities: ClassVar[Capabilities] = Capabilities()
    # The original methods know no rule for queries that name a tool: keep their order.
    named_first: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        # Nor core's confidence floor: they answer whatever their ranking matches.
        super().__init__(**{"min_confidence": 0.0, **options})


class Bm25Reference(_Reference):
    """Plain BM25 (bm25s, Lucene scoring, k1=1.5, b=0.75), one bm25s index per tool set.

    Documents and queries go through the same analysis: identifiers split
    (`toolscout.text`), lower-cased, bm25s's English stop words dropped, Porter-stemmed.
    """

    name: ClassVar[str] = "bm25s"

    def __init__(self) -> None:
        super().__init__()
        import Stemmer  # type: ignore[import-not-found,unused-ignore]

        # The original Porter algorithm, as the eval README's reference figures name it.
        self._stemmer = Stemmer.Stemmer("porter")
        self._built: dict[str, tuple[list[ToolReference], Any]] = {}

    def _tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        import bm25s  # type: ignore[import-untyped,unused-ignore]

        tokens: list[list[str]] = bm25s.tokenize(
            list(texts),
            stopwords="en",
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )
        return tokens

    def _create_set(self, toolset: ToolSet) -> None:
        import bm25s  # type: ignore[import-untyped,unused-ignore]

        tools = list(toolset.tools.values())
        retriever = bm25s.BM25()
        retriever.index(
            self._tokenize([bm25_document(tool) for tool in tools]), show_progress=False
        )
        self._built[toolset.id] = (tools, retriever)

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        self._create_set(new)  # rebuilt whole, then swapped in

    def _drop_set(self, toolset: ToolSet) -> None:
        self._built.pop(toolset.id, None)

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        import numpy as np

        built = self._built.get(toolset.id)
        words = self._tokenize([split_words(query.text)])[0]
        if built is None or not words:
            return [], 0
        tools, retriever = built
        scores = np.asarray(retriever.get_scores(words), dtype=np.float64)
        if query.allowed is not None:
            allowed = np.fromiter((tool.name in query.allowed for tool in tools), dtype=bool)
            scores = np.where(allowed, scores, 0.0)
        matching = np.flatnonzero(scores > 0.0)
        # Best first; equal scores keep indexing order, so runs are repeatable.
        order = matching[np.argsort(-scores[matching], kind="stable")][: query.limit]
        hits = [ToolHit(tools[i].name, float(scores[i]), tools[i].summary) for i in order.tolist()]
        return hits, int(matching.size)


#: The stop words Spring AI's regex searcher drops from a query.
SPRING_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "could",
        "should",
        "may",
        "might",
        "must",
        "shall",
        "can",
        "need",
        "dare",
        "ought",
        "used",
        "to",
        "of",
        "in",
        "for",
        "on",
        "with",
        "at",
        "by",
        "from",
        "as",
        "into",
        "through",
        "during",
        "before",
        "after",
        "above",
        "below",
        "between",
        "and",
        "or",
        "but",
        "if",
        "because",
        "until",
        "while",
        "although",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "all",
        "any",
        "both",
        "each",
        "every",
        "some",
        "no",
        "not",
        "only",
        "just",
        "also",
        "very",
        "too",
        "so",
    ]
)

#: Spring AI's limit on the generated pattern (that of Claude's tool_search_tool_regex).
SPRING_MAX_PATTERN = 200

# Java's `\s` is ASCII-only by default; re.ASCII keeps that.
_SPRING_DELIMITERS = re.compile(r"[\s,;:.!?()\[\]{}\"']+", re.ASCII)
# The characters Spring AI escapes, and no others: the pattern length it caps depends on it.
_SPRING_SPECIAL = re.compile(r"([\\.*+?^${}\[\]|()])")
# Java's String.trim() removes every character up to U+0020, and only those.
_JAVA_TRIM = "".join(chr(code) for code in range(0x21))


def _java_length(text: str) -> int:
    """The length Java reports for `text`: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def spring_pattern(query: str) -> str:
    """The regular expression Spring AI's searcher builds from a natural-language query.

    Without the `(?i)` prefix Spring AI puts in front: case-insensitive (ASCII only, as in
    Java) is a compile flag here.
    """
    tokens = [t.strip(_JAVA_TRIM) for t in _SPRING_DELIMITERS.split(query.lower())]
    tokens = [t for t in tokens if t]
    kept = [t for t in tokens if len(t) >= 2 and t not in SPRING_STOP_WORDS]
    # With every token filtered out, the searcher falls back to all of them.
    chosen = list(dict.fromkeys(_SPRING_SPECIAL.sub(r"\\\1", t) for t in (kept or tokens)))
    if not chosen:
        return ".*"
    # Tokens are dropped from the end until `(?i)(a|b|...)` fits the limit.
    while _java_length("(?i)(" + "|".join(chosen) + ")") > SPRING_MAX_PATTERN and len(chosen) > 1:
        chosen.pop()
    return "(" + "|".join(chosen) + ")"


def _position_bonus(position: int) -> float:
    return 1.0 / (1.0 + position * 0.1)


def spring_score(pattern: re.Pattern[str], name: str, description: str) -> float:
    """2 per name match + an early-match bonus, plus 1 per description match + half a bonus."""
    score = 0.0
    name_hits = [m.start() for m in pattern.finditer(name)]
    if name_hits:
        score += 2.0 * len(name_hits) + _position_bonus(min(name_hits))
    description_hits = [m.start() for m in pattern.finditer(description)]
    if description_hits:
        score += 1.0 * len(description_hits) + 0.5 * _position_bonus(min(description_hits))
    return score


class SpringRegexReference(_Reference):
    """Spring AI's RegexToolSearcher: alternation of query words over name and description."""

    name: ClassVar[str] = "spring-regex"

    def __init__(self) -> None:
        super().__init__()
        self._tools: dict[str, list[ToolReference]] = {}

    def _create_set(self, toolset: ToolSet) -> None:
        self._tools[toolset.id] = list(toolset.tools.values())

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        self._create_set(new)

    def _drop_set(self, toolset: ToolSet) -> None:
        self._tools.pop(toolset.id, None)

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        tools = self._tools.get(toolset.id)
        if not tools:
            return [], 0
        pattern = re.compile(spring_pattern(query.text), re.IGNORECASE | re.ASCII)
        allowed = query.allowed
        scored = [
            (score, tool)
            for tool in tools
            if (allowed is None or tool.name in allowed)
            and (score := spring_score(pattern, tool.name, tool.description)) > 0.0
        ]
        # A stable sort, as Java's List.sort: ties keep indexing order.
        scored.sort(key=lambda pair: -pair[0])
        hits = [ToolHit(tool.name, score, tool.summary) for score, tool in scored[: query.limit]]
        return hits, len(scored)


#: The references by the name the report shows them under.
REFERENCES: dict[str, type[ToolIndexBase]] = {
    Bm25Reference.name: Bm25Reference,
    SpringRegexReference.name: SpringRegexReference,
}
