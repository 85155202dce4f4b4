"""Search latency of the tantivy backend beside plain in-memory BM25 (bm25s), same process.

Two catalog sizes: BFCL (1,853 tools, its own queries) and 10,000 tools (BFCL and
Seal-Tools joined, a name taken twice renamed `NAME_seal_tools`, then cycled with
`NAME_copyN` names up to 10,000; both query sets). Both contenders index the catalog into
one session and answer every query `--repeat` times, interleaved query by query (tantivy,
then bm25s), so load from other processes falls on both alike. Reported per contender:
the median over queries of each query's fastest run, the median over every run, and the
ratio tantivy / bm25s.

The bm25s contender is the plain-BM25 reference of `toolscout_bench.references`
(`Bm25Reference`: bm25s with Lucene scoring, identifiers split, English stop words,
PyStemmer Porter), written here against core's engine API so both pay core's `search`.

`--breakdown` also times, for tantivy, the engine call alone (`_search_set`) and the
tantivy `Searcher.search` inside it, to show the time spent outside the engine.

    python backends/tantivy/bench/latency.py
    python backends/tantivy/bench/latency.py --repeat 9 --breakdown
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import toolscout
from toolscout import ToolReference, ToolSearchRequest
from toolscout.index import ToolIndexBase
from toolscout_tantivy import TantivyToolIndex

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"
SESSION = "bench"
MAX_RESULTS = 10
NEW_API = hasattr(ToolIndexBase, "_search_set")


def load_queries(folder: str) -> list[str]:
    with (EVAL / folder / "queries.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line)["query"] for line in handle if line.strip()]


def renamed(tool: ToolReference, name: str) -> ToolReference:
    return ToolReference(name, tool.description, tool.input_schema, tool.metadata)


def joined_catalog(size: int) -> list[ToolReference]:
    """BFCL and Seal-Tools in one catalog (names unique), cycled to `size` tools."""
    base: list[ToolReference] = []
    taken: set[str] = set()
    for folder in ("bfcl", "seal_tools"):
        for tool in toolscout.load_catalog(EVAL / folder / "tools.jsonl"):
            name = tool.name if tool.name not in taken else f"{tool.name}_{folder}"
            taken.add(name)
            base.append(tool if name == tool.name else renamed(tool, name))
    tools = list(base[:size])
    copy = 2
    while len(tools) < size:
        for tool in base:
            if len(tools) == size:
                break
            name = f"{tool.name}_copy{copy}"
            if name not in taken:
                taken.add(name)
                tools.append(renamed(tool, name))
        copy += 1
    return tools


def bm25s_contender() -> Any:
    """The plain-BM25 reference, as a backend of the installed core."""
    if not NEW_API:
        from toolscout_bench.references import Bm25Reference

        return Bm25Reference()

    import bm25s
    import numpy as np
    import Stemmer
    from toolscout import ToolHit
    from toolscout.index import Capabilities, Query
    from toolscout.text import schema_properties, split_identifier, split_words
    from toolscout.toolsets import ToolSet

    stemmer = Stemmer.Stemmer("porter")

    def tokenize(texts: Sequence[str]) -> list[list[str]]:
        tokens: list[list[str]] = bm25s.tokenize(
            list(texts), stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
        )
        return tokens

    def document(tool: ToolReference) -> str:
        params = " ".join(
            " ".join(split_identifier(name)) for name, _ in schema_properties(tool.input_schema)
        )
        return f"{' '.join(split_identifier(tool.name))} {split_words(tool.description)} {params}"

    class Bm25Engine(ToolIndexBase):
        name: ClassVar[str] = "bm25s"
        capabilities: ClassVar[Capabilities] = Capabilities()

        def __init__(self) -> None:
            super().__init__()
            self._built: dict[str, tuple[list[str], Any]] = {}

        def _create_set(self, toolset: ToolSet) -> None:
            names = list(toolset.tools)
            retriever = bm25s.BM25()
            retriever.index(
                tokenize([document(toolset.tools[n]) for n in names]), show_progress=False
            )
            self._built[toolset.id] = (names, retriever)

        def _drop_set(self, toolset: ToolSet) -> None:
            self._built.pop(toolset.id, None)

        def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
            built = self._built.get(toolset.id)
            words = tokenize([split_words(query.text)])[0]
            if built is None or not words:
                return [], 0
            names, retriever = built
            scores = np.asarray(retriever.get_scores(words), dtype=np.float64)
            matching = np.flatnonzero(scores > 0.0)
            order = matching[np.argsort(-scores[matching], kind="stable")][: query.limit]
            tools = toolset.tools
            hits = [
                ToolHit(names[i], float(scores[i]), tools[names[i]].summary) for i in order.tolist()
            ]
            return hits, int(matching.size)

    return Bm25Engine()


def timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000.0


def engine_probes(index: TantivyToolIndex) -> dict[str, Callable[[str], float]]:
    """Timers of the parts of a tantivy search (new engine API only)."""
    if not NEW_API:
        return {}
    from toolscout.index import Query

    toolset = index.held_set(SESSION)
    assert toolset is not None

    def engine(text: str) -> float:
        query = Query(text, MAX_RESULTS, analyzer=index.analyzer)
        _ = query.terms  # core's analysis, cached per word: not the engine's
        return timed(lambda: index._search_set(toolset, query))

    def searcher(text: str) -> float:
        query = Query(text, MAX_RESULTS, analyzer=index.analyzer)
        current, only = index._current_reader()
        built = index._build_query(toolset, query, only)
        if built is None:
            return 0.0
        return timed(lambda: current.search(built, MAX_RESULTS, count=True))

    return {"engine_search_set": engine, "engine_tantivy_only": searcher}


def run(label: str, tools: list[ToolReference], queries: list[str], args: Any) -> dict[str, Any]:
    contenders = {"tantivy": TantivyToolIndex(), "bm25s": bm25s_contender()}
    for index in contenders.values():
        index.index_tools(SESSION, list(tools))
        for text in queries[:50]:  # warm caches and lazy imports alike
            index.search(ToolSearchRequest(SESSION, text, max_results=MAX_RESULTS))
    probes = engine_probes(contenders["tantivy"]) if args.breakdown else {}
    series: dict[str, list[list[float]]] = {
        name: [[] for _ in queries] for name in [*contenders, *probes]
    }
    requests = [ToolSearchRequest(SESSION, text, max_results=MAX_RESULTS) for text in queries]
    for _ in range(args.repeat):
        for i, request in enumerate(requests):
            for name, index in contenders.items():
                series[name][i].append(timed(partial(index.search, request)))
            for name, probe in probes.items():
                series[name][i].append(probe(request.query))
    result: dict[str, Any] = {"data": label, "tools": len(tools), "queries": len(queries)}
    for name, runs in series.items():
        result[f"{name}_median_ms"] = round(statistics.median(min(r) for r in runs), 4)
        result[f"{name}_median_all_ms"] = round(statistics.median(t for r in runs for t in r), 4)
    result["ratio_tantivy_bm25s"] = round(
        result["tantivy_median_ms"] / result["bm25s_median_ms"], 3
    )
    for index in contenders.values():
        index.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--breakdown", action="store_true")
    parser.add_argument("--data", action="append", choices=["bfcl", "joined10k"])
    args = parser.parse_args()
    for name in args.data or ["bfcl", "joined10k"]:
        if name == "bfcl":
            tools = toolscout.load_catalog(EVAL / "bfcl" / "tools.jsonl")
            queries = load_queries("bfcl")
        else:
            tools = joined_catalog(10_000)
            queries = load_queries("bfcl") + load_queries("seal_tools")
        result = run(name, tools, queries, args)
        print(json.dumps(result), flush=True)
    print(
        "medians: per query the fastest of --repeat runs, then the median over queries "
        "(a shared machine: compare columns of one run, not runs)",
        flush=True,
    )


if __name__ == "__main__":
    main()
