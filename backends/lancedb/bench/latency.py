"""Search latency of the LanceDB backend, part by part, and the time to index 10,000 tools.

    pip install ./contrib/bench     # joins the eval data sets into larger catalogs
    python backends/lancedb/bench/latency.py [--data ../shared/eval] [--queries 500]

Parts, each the median over the first `--queries` BFCL queries (1,853 tools, one
session): embedding the query (no cache), the vector query, the full-text query, both
at once as a search runs them, then whole searches in `hybrid` and `vector` mode. Then
10,000 tools (both data sets joined, names made unique, cycled to size) are indexed into
a fresh index with an empty vector cache: the time includes embedding every distinct
text once, and the number of texts embedded is printed; then the same tools into a
second session, which holds the same set (nothing is written or embedded). Timings are
wall-clock on this machine; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from lancedb.expr import col, lit
from toolscout import ToolSearchRequest, load_embedder
from toolscout.embedders import EmbeddingCache
from toolscout.index import Query
from toolscout_bench.data import joined_catalog, load_datasets, sized_catalog
from toolscout_lancedb import LanceDBToolIndex, loop

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"


def timed(queries: list[str], call: Callable[[str], Any]) -> tuple[float, float]:
    """Median and p99 milliseconds of `call` over `queries`, after five warm-up calls."""
    for query in queries[:5]:
        call(query)
    samples = []
    for query in queries:
        start = time.perf_counter()
        call(query)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.99 * len(samples)))]


def report(label: str, figures: tuple[float, float]) -> None:
    print(f"  {label:<34} median {figures[0]:7.2f} ms   p99 {figures[1]:7.2f} ms", flush=True)


def parts(data: Path, count: int, embedder_name: str | None) -> None:
    (bfcl,) = load_datasets(data, ["bfcl"])
    queries = [query.query for query in bfcl.queries[:count]]
    embedder: Any = load_embedder(embedder_name)
    print(f"BFCL, {len(bfcl.tools):,} tools, {len(queries)} queries, {embedder!r}")
    hybrid = LanceDBToolIndex(embedder, cache=EmbeddingCache(max_queries=0))
    hybrid.index_tools("bench", bfcl.tools)
    toolset = hybrid.held_set("bench")
    assert toolset is not None
    table, where = hybrid._table, col("set_id") == lit(toolset.id)
    vector = embedder.embed(["warm up"])[0]

    def terms(query: str) -> str:
        return " ".join(Query(query, 5, analyzer=hybrid.analyzer).terms)

    report("query embedding", timed(queries, lambda q: embedder.embed([q])))
    report(
        "vector query",
        timed(queries, lambda q: loop.run(hybrid._vector_hits(table, where, vector, 50))),
    )
    report(
        "full-text query",
        timed(queries, lambda q: loop.run(hybrid._text_hits(table, where, terms(q), 50))),
    )

    async def both(query: str) -> Any:
        return await asyncio.gather(
            hybrid._vector_hits(table, where, vector, 50),
            hybrid._text_hits(table, where, terms(query), 50),
        )

    report("vector + full text, concurrently", timed(queries, lambda q: loop.run(both(q))))

    def search(index: LanceDBToolIndex) -> Callable[[str], Any]:
        return lambda query: index.search(ToolSearchRequest("bench", query, 5))

    report("hybrid search (whole)", timed(queries, search(hybrid)))
    vector_only = LanceDBToolIndex(embedder, mode="vector", cache=EmbeddingCache(max_queries=0))
    vector_only.index_tools("bench", bfcl.tools)
    report("vector search (whole)", timed(queries, search(vector_only)))
    cached = LanceDBToolIndex(embedder)  # the default cache: repeated queries skip the model
    cached.index_tools("bench", bfcl.tools)
    for query in queries:
        cached.search(ToolSearchRequest("bench", query, 5))
    report("hybrid search, repeated query", timed(queries, search(cached)))


def indexing(data: Path, size: int, embedder_name: str | None) -> None:
    catalog = sized_catalog(joined_catalog(load_datasets(data)), size)
    embedder: Any = load_embedder(embedder_name)
    cache = EmbeddingCache()
    index = LanceDBToolIndex(embedder, cache=cache)
    index.index_tools("warm-up", catalog[:1])
    index.clear_index("warm-up")
    cache.clear()
    cache.embedded.clear()
    start = time.perf_counter()
    index.index_tools("bench", catalog)
    took = time.perf_counter() - start
    texts = cache.embedded.get(embedder.model_id, 0)
    print(f"Indexing {len(catalog):,} tools: {took:.1f} s, {texts:,} distinct texts embedded")
    start = time.perf_counter()
    index.index_tools("second-session", catalog)
    again = time.perf_counter() - start
    print(
        f"  the same tools in a second session (one set, stored once): {again * 1000:.1f} ms, "
        f"{cache.embedded.get(embedder.model_id, 0) - texts} texts embedded"
    )
    queries = [query.query for dataset in load_datasets(data) for query in dataset.queries[:250]]
    report(
        f"hybrid search at {len(catalog):,} tools",
        timed(queries, lambda q: index.search(ToolSearchRequest("bench", q, 5))),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=EVAL, help="the eval data folder")
    parser.add_argument("--queries", type=int, default=500, help="BFCL queries to time")
    parser.add_argument("--size", type=int, default=10_000, help="tools to index")
    parser.add_argument("--embedder", help="embedder name (default: the configured one)")
    parser.add_argument("--skip-indexing", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    parts(args.data, args.queries, args.embedder)
    if not args.skip_indexing:
        indexing(args.data, args.size, args.embedder)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
