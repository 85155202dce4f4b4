"""Retrieval quality of the searches behind each way of doing tool search, on ../shared/eval.

Anthropic's hosted tool search comes in two documented variants, re-implemented here from
their published behaviour as references (the way `toolscout bench` re-implements Spring
AI's regex searcher), so they can be scored offline on the same queries as toolscout:

- `anthropic-bm25` (`tool_search_tool_bm25_20251119`): the model sends a natural-language
  query; BM25 over each tool's name, description, argument names and argument
  descriptions (the fields Anthropic documents as searched); the best 5 come back (the
  "3-5 tools" the documentation describes). BM25 here is bm25s (Lucene scoring), words
  split and Porter-stemmed, English stop words dropped, as the bench's `bm25s` reference.
- `anthropic-regex` (`tool_search_tool_regex_20251119`): the model writes a Python
  `re.search` pattern of at most 200 characters, matched against the same fields. The
  pattern a model writes cannot be replayed offline; it stands in as a case-insensitive
  alternation of the query's words (stop words and one-letter words dropped, cut to 200
  characters), as Spring AI builds its pattern. Tools are ranked by how many of the
  pattern's alternatives match (in the name counts double), ties in catalog order; the
  first 5 come back.

OpenAI's hosted `tool_search` (what LangChain's `ProviderToolSearchMiddleware` uses with
OpenAI models) does not document its retrieval, so it is not scored here.

toolscout's figures are those of its default backend (`regex`: words stemmed and scored
like BM25 over name, parameters and description), which the integrations use unless
configured otherwise. Scores are the eval README's (hit@5, recall@5, nDCG@10) from
`toolscout.evaluation`; a hosted variant that returns 5 tools scores nDCG@10 on those 5.

    python contrib/anthropic/bench/hosted_search.py [--data DIR] [--sets bfcl,seal_tools]
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import toolscout
from toolscout import Capabilities, ToolHit, ToolIndexBase, ToolReference
from toolscout.catalog import load_catalog
from toolscout.evaluation import evaluate, load_queries
from toolscout.index import Query
from toolscout.text import schema_properties, split_identifier, split_words
from toolscout.toolsets import ToolSet

DATA = Path(
    os.environ.get("TOOLSCOUT_EVAL_DATA", Path(__file__).resolve().parents[4] / "shared" / "eval")
)
HOSTED_RESULTS = 5  # "loading only the 3-5 tools Claude actually needs"
MAX_PATTERN = 200
# Words a model leaves out of a pattern (the query stand-in drops them).
STOP_WORDS = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be but by for from how i in into is it me my of on or please "
        "that the their then there these they this to was what when where which who will "
        "with would you your can could do does get",
    )
)


def searched_text(tool: ToolReference) -> tuple[str, str]:
    """A tool's name, and its description with argument names and descriptions."""
    arguments = [
        f"{name} {prop.get('description', '')}" if isinstance(prop, Mapping) else name
        for name, prop in schema_properties(tool.input_schema)
    ]
    return tool.name, " ".join([tool.description, *arguments])


class _Hosted(ToolIndexBase):
    """Core's sessions and sets; the hosted search's own ranking and result count."""

    capabilities: ClassVar[Capabilities] = Capabilities()
    named_first: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__()
        self._tools: dict[str, list[ToolReference]] = {}

    def _create_set(self, toolset: ToolSet) -> None:
        self._tools[toolset.id] = list(toolset.tools.values())

    def _update_set(
        self, old: ToolSet, new: ToolSet, changed: Sequence[ToolReference], removed: Sequence[str]
    ) -> None:
        self._create_set(new)

    def _drop_set(self, toolset: ToolSet) -> None:
        self._tools.pop(toolset.id, None)


class AnthropicBm25(_Hosted):
    """`tool_search_tool_bm25_20251119`: BM25 over name, description and arguments."""

    name: ClassVar[str] = "anthropic-bm25"

    def __init__(self) -> None:
        super().__init__()
        import Stemmer  # type: ignore[import-not-found,unused-ignore]

        self._stemmer = Stemmer.Stemmer("porter")
        self._built: dict[str, Any] = {}

    def _tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        import bm25s  # type: ignore[import-untyped,unused-ignore]

        return bm25s.tokenize(  # type: ignore[no-any-return]
            list(texts),
            stopwords="en",
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )

    def _create_set(self, toolset: ToolSet) -> None:
        import bm25s  # type: ignore[import-untyped,unused-ignore]

        super()._create_set(toolset)
        documents = []
        for tool in self._tools[toolset.id]:
            name, rest = searched_text(tool)
            documents.append(f"{' '.join(split_identifier(name))} {split_words(rest)}")
        retriever = bm25s.BM25()
        retriever.index(self._tokenize(documents), show_progress=False)
        self._built[toolset.id] = retriever

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        import numpy as np

        tools = self._tools.get(toolset.id) or []
        words = self._tokenize([split_words(query.text)])[0]
        if not tools or not words:
            return [], 0
        scores = np.asarray(self._built[toolset.id].get_scores(words), dtype=np.float64)
        matching = np.flatnonzero(scores > 0.0)
        order = matching[np.argsort(-scores[matching], kind="stable")]
        limit = min(query.limit, HOSTED_RESULTS)
        hits = [ToolHit(tools[i].name, float(scores[i]), tools[i].summary) for i in order[:limit]]
        return hits, int(matching.size)


def pattern_words(query: str) -> list[str]:
    """The words of the stand-in pattern `(?i)(word|word|...)`, cut to 200 characters."""
    words = [w for w in re.split(r"[^\w]+", query.lower()) if len(w) > 1 and w not in STOP_WORDS]
    chosen = list(dict.fromkeys(words))
    while len("(?i)(" + "|".join(map(re.escape, chosen)) + ")") > MAX_PATTERN and len(chosen) > 1:
        chosen.pop()
    return chosen


class AnthropicRegex(_Hosted):
    """`tool_search_tool_regex_20251119`: a pattern over name, description and arguments."""

    name: ClassVar[str] = "anthropic-regex"

    def _create_set(self, toolset: ToolSet) -> None:
        super()._create_set(toolset)
        # Lower-cased once: the stand-in pattern is case-insensitive.
        self._texts[toolset.id] = [
            tuple(part.lower() for part in searched_text(t)) for t in self._tools[toolset.id]
        ]

    def __init__(self) -> None:
        super().__init__()
        self._texts: dict[str, list[tuple[str, ...]]] = {}

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        tools = self._tools.get(toolset.id) or []
        # The stand-in pattern is an alternation of literal words: an alternative matches
        # where the word occurs, which substring tests find as `re.search` would.
        words = pattern_words(query.text)
        scored = []
        for tool, (name, rest) in zip(tools, self._texts.get(toolset.id, ()), strict=True):
            score = sum(2 * (word in name) + (word in rest) for word in words)
            if score:
                scored.append((score, tool))
        scored.sort(key=lambda pair: -pair[0])  # stable: ties keep catalog order
        limit = min(query.limit, HOSTED_RESULTS)
        hits = [ToolHit(t.name, float(s), t.summary) for s, t in scored[:limit]]
        return hits, len(scored)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--sets", default="bfcl,seal_tools")
    args = parser.parse_args()
    print("| data set | search | hit@5 | recall@5 | nDCG@10 | p50 ms |")
    print("|---|---|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        tools = load_catalog(args.data / name / "tools.jsonl")
        queries = load_queries(args.data / name / "queries.jsonl")
        contenders = [
            ("toolscout (regex backend)", toolscout.load_index("regex")),
            ("anthropic-bm25 (reference)", AnthropicBm25()),
            ("anthropic-regex (reference)", AnthropicRegex()),
        ]
        for label, index in contenders:
            result = evaluate(index, tools, queries, backend=label)
            print(
                f"| {name} ({len(tools):,} tools, {len(queries):,} queries) | {label} | "
                f"{result.hit_at_5:.3f} | {result.recall_at_5:.3f} | {result.ndcg_at_10:.3f} | "
                f"{result.p50_ms:.2f} |"
            )


if __name__ == "__main__":
    main()
