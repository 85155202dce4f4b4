"""How fast the `static` embedder is: plugin import, first-use load, a catalog, one query.

    python contrib/static/bench/speed.py [--data ../shared/eval]

Prints medians of a few runs. The import and load are timed in fresh interpreters; the
catalog is Seal-Tools' 4,076 tools as the vector backends embed them (`embedding_text`),
first with an empty word cache (every word tokenized) and then again; a query is one
`embed([query])` call for each query of BFCL, Seal-Tools and MetaTool: on a model just
loaded (words new), on a model that embedded the dataset's catalog, and once every word of
the queries was seen (each query with a word added). Needs the evaluation data for the
catalog and query figures (../shared/eval, or TOOLSCOUT_EVAL_DATA, or --data).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNS = 5


def fresh(code: str) -> float:
    """Seconds that `code` prints, run in a new interpreter (median of RUNS)."""
    times = []
    for _ in range(RUNS):
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        times.append(float(result.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def eval_folder(given: str | None) -> Path | None:
    root = given or os.environ.get("TOOLSCOUT_EVAL_DATA")
    if root:
        return Path(root) if Path(root).is_dir() else None
    for start in (Path(__file__).resolve(), Path.cwd().resolve()):
        for parent in start.parents:
            if (parent / "shared" / "eval").is_dir():
                return parent / "shared" / "eval"
    return None


def query_times(embedder: object, queries: list[str]) -> tuple[float, float]:
    """p50 and p99 of one `embed([query])` call, in milliseconds."""
    times = []
    for query in queries:
        start = time.perf_counter()
        embedder.embed([query])  # type: ignore[attr-defined]
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3, times[int(len(times) * 0.99)] * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="the evaluation data folder (default: ../shared/eval)")
    args = parser.parse_args()

    plugin = fresh(
        "import time, sys; t = time.perf_counter(); import toolscout_static.plugin; "
        "t = time.perf_counter() - t; assert 'numpy' not in sys.modules; print(t)"
    )
    core = fresh(
        "import time; t = time.perf_counter(); import toolscout; print(time.perf_counter() - t)"
    )
    load = fresh(
        "import time, numpy; from toolscout_static import StaticEmbedder; "
        "e = StaticEmbedder(); t = time.perf_counter(); e.warm_up(); "
        "print(time.perf_counter() - t)"
    )
    with_numpy = fresh(
        "import time; t = time.perf_counter(); from toolscout_static import StaticEmbedder; "
        "StaticEmbedder().warm_up(); print(time.perf_counter() - t)"
    )
    print(
        f"import toolscout_static.plugin: {plugin * 1e3:.1f} ms (numpy not imported; "
        f"import toolscout alone: {core * 1e3:.1f} ms)"
    )
    print(
        f"first-use load: {load * 1e3:.0f} ms (numpy imported); {with_numpy * 1e3:.0f} ms from a "
        "fresh interpreter, with the imports of toolscout, pydantic and numpy"
    )

    folder = eval_folder(args.data)
    if folder is None:
        print(
            "no evaluation data (../shared/eval, TOOLSCOUT_EVAL_DATA or --data): "
            "catalog and query figures skipped"
        )
        return
    import toolscout
    from toolscout.vectors import embedding_text
    from toolscout_static import StaticEmbedder

    tools = toolscout.load_catalog(folder / "seal_tools" / "tools.jsonl")
    texts = [embedding_text(tool) for tool in tools]
    cold, warm = [], []
    for _ in range(3):
        embedder = StaticEmbedder()
        embedder.warm_up()
        start = time.perf_counter()
        embedder.embed(texts)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        embedder.embed(texts)
        warm.append(time.perf_counter() - start)
    tokens = sum(len(embedder.tokenizer.encode(t)) for t in texts)
    print(
        f"Seal-Tools catalog, {len(texts):,} texts ({tokens / len(texts):.0f} tokens each): "
        f"{statistics.median(cold):.3f} s with every word new, "
        f"{statistics.median(warm):.3f} s again"
    )

    for name in ("bfcl", "seal_tools", "metatool"):
        path = folder / name / "queries.jsonl"
        if not path.is_file():
            continue
        queries = [json.loads(line)["query"] for line in path.read_text().splitlines() if line]
        fresh_model = StaticEmbedder()
        fresh_model.warm_up()
        cold_p50, cold_p99 = query_times(fresh_model, queries)
        seen_p50, _ = query_times(fresh_model, [f"{q} again" for q in queries])
        served = StaticEmbedder()
        served.warm_up()
        served.embed(
            [embedding_text(t) for t in toolscout.load_catalog(folder / name / "tools.jsonl")]
        )
        warm_p50, warm_p99 = query_times(served, queries)
        chars = statistics.mean(map(len, queries))
        print(
            f"{name} queries ({len(queries):,}, {chars:.0f} chars each), one embed([query]): "
            f"p50 {cold_p50:.3f} ms (p99 {cold_p99:.3f}) on a model just loaded, "
            f"p50 {warm_p50:.3f} ms (p99 {warm_p99:.3f}) after its catalog, "
            f"p50 {seen_p50:.3f} ms once every word was seen"
        )


if __name__ == "__main__":
    main()
