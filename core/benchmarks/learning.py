"""What learning from use is worth: each dev set split into history and test halves, scored
with and without the history (`toolscout eval --history`).

Each data set's queries are split by a hash of the query text (deterministic): one half is
the history (each line's relevant tools called successfully after a search for it, each
line its own session), the other half the test. The strict split keeps only the test
queries with no near-duplicate in the history (cosine >= 0.9 with the static embedder).
MetaTool's infeasible queries are asked too, for abstention with the default options.

    python core/benchmarks/learning.py --data ../shared/eval --out /tmp/learning
    python core/benchmarks/learning.py --data ../shared/eval --out /tmp/learning -b lancedb

The split files land in --out (history.jsonl, test.jsonl, test_strict.jsonl per data set),
so every figure can be run again with `toolscout eval`, as the table's footer says.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

SETS = ("metatool", "bfcl", "seal_tools")


def write_split(source: Path, out: Path) -> dict[str, int]:
    """history.jsonl, test.jsonl and test_strict.jsonl of one data set; their sizes."""
    from toolscout.embedders import load_embedder
    from toolscout.history import in_history, near_duplicates

    lines = [json.loads(line) for line in (source / "queries.jsonl").open(encoding="utf-8")]
    history = [line for line in lines if in_history(line["query"])]
    test = [line for line in lines if not in_history(line["query"])]
    duplicate = near_duplicates(
        [h["query"] for h in history], [t["query"] for t in test], load_embedder("static")
    )
    strict = [line for line, dup in zip(test, duplicate, strict=True) if not dup]
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("history", history), ("test", test), ("test_strict", strict)):
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
    return {"history": len(history), "test": len(test), "test_strict": len(strict)}


def score(backend: str, source: Path, split: Path, queries: str, history: bool) -> dict[str, Any]:
    """One `evaluate` run, as `toolscout eval` does it."""
    from toolscout.catalog import load_catalog
    from toolscout.evaluation import evaluate, load_infeasible, load_queries
    from toolscout.history import HistoryReport, read_history, replay_history
    from toolscout.learning import learn_from
    from toolscout.loading import load_index

    tools = load_catalog(source / "tools.jsonl")
    asked = load_queries(split / f"{queries}.jsonl")
    infeasible_path = source / "queries_infeasible.jsonl"
    infeasible = load_infeasible(infeasible_path) if infeasible_path.exists() else []
    index = load_index(backend)
    try:
        if history:
            learner = learn_from(index)
            report = HistoryReport()
            replay_history(
                learner.store, tools, read_history(split / "history.jsonl", report), report
            )
        result = evaluate(index, tools, asked, backend=backend, infeasible=infeasible)
    finally:
        close = getattr(index, "close", None)
        if close is not None:
            close()
    return result.to_dict()


def bogus(backend: str, source: Path, split: Path, uses: int = 1000) -> dict[str, float]:
    """hit@5 on the test half for a session of the tenant that learnt the history, and for
    a session of another tenant with the same history, before and after one session of
    the first tenant records `uses` successful calls of one tool for queries it does not
    fit (the test queries themselves, the hardest case: each is a query asked next)."""
    from toolscout.catalog import load_catalog
    from toolscout.evaluation import hit_at_k, load_queries
    from toolscout.history import HistoryReport, read_history, replay_history
    from toolscout.learning import learn_from
    from toolscout.loading import load_index
    from toolscout.types import ToolSearchRequest
    from toolscout.usage import make_use

    tools = load_catalog(source / "tools.jsonl")
    asked = load_queries(split / "test.jsonl")
    index = load_index(backend)
    learner = learn_from(index)
    report = HistoryReport()
    past = read_history(split / "history.jsonl", report)
    for tenant in ("acme", "globex"):
        replay_history(learner.store, tools, past, report, tenant=tenant)
        index.index_tools(tenant, tools)
        learner.assign(tenant, tenant)

    def hit5(session: str) -> float:
        found = [
            hit_at_k(index.search(ToolSearchRequest(session, q.query, max_results=10)).names,
                     q.relevant, 5)
            for q in asked
        ]  # fmt: skip
        return sum(found) / len(found)

    before = {tenant: hit5(tenant) for tenant in ("acme", "globex")}
    # The tool the fewest test queries want: pushing it harms the most.
    wanted = Counter(name for q in asked for name in q.relevant)
    pushed = min(tools, key=lambda tool: (wanted[tool.name], tool.name))
    for number in range(uses):
        text = asked[number % len(asked)].query
        use = make_use(text, pushed, success=True, session="bogus", tenant="acme")
        if use is not None:
            learner.store.record(use)
    for tenant in ("acme", "globex"):  # a search starts learning again; wait for it
        index.search(ToolSearchRequest(tenant, asked[0].query))
    learner.settle()
    after = {tenant: hit5(tenant) for tenant in ("acme", "globex")}
    index.close() if hasattr(index, "close") else None
    return {
        "pushed": pushed.name,  # type: ignore[dict-item]
        "same_tenant_before": before["acme"],
        "same_tenant_after": after["acme"],
        "other_tenant_before": before["globex"],
        "other_tenant_after": after["globex"],
    }


def speed(backend: str, data: Path, uses: int = 10_000, rounds: int = 5) -> dict[str, float]:
    """Search p50 on MetaTool's first 1,000 queries, learning from no uses and from `uses`
    successful uses of random tools for distinct queries (the three dev sets' queries, the
    costliest evidence: every one a different answered query). Two indexes of the same
    tools, one learning, are timed alternately `rounds` times and each keeps its best
    round: a machine's speed drifts within a minute, and the ratio of the best runs is what
    the evidence costs."""
    import random
    import statistics
    import time

    from toolscout.catalog import load_catalog
    from toolscout.evaluation import load_queries
    from toolscout.learning import learn_from
    from toolscout.loading import load_index
    from toolscout.types import ToolSearchRequest
    from toolscout.usage import make_use

    tools = load_catalog(data / "metatool" / "tools.jsonl")
    asked = [q.query for q in load_queries(data / "metatool" / "queries.jsonl")[:1000]]
    texts = [
        json.loads(line)["query"]
        for name in SETS
        for line in (data / name / "queries.jsonl").open()
    ]
    plain, learning = load_index(backend), load_index(backend)
    for index in (plain, learning):
        index.index_tools("s", tools)
    learner = learn_from(learning)
    pick = random.Random(1)
    for number in range(uses):
        tool = pick.choice(tools)
        use = make_use(texts[number % len(texts)], tool, success=True, session=f"u{number // 3}")
        if use is not None:
            learner.store.record(use)
    start = time.perf_counter()
    learning.search(ToolSearchRequest("s", "warm the evidence", max_results=10))
    learner.settle()  # the evidence is learnt again in the background: wait for it
    built = (time.perf_counter() - start) * 1000.0

    def p50(index: Any) -> float:
        times = []
        for text in asked:
            started = time.perf_counter()
            index.search(ToolSearchRequest("s", text, max_results=10))
            times.append((time.perf_counter() - started) * 1000.0)
        return statistics.median(times)

    for index in (plain, learning):  # each query's vector and words once before timing
        p50(index)
    without, learnt = [], []
    for _ in range(rounds):
        without.append(p50(plain))
        learnt.append(p50(learning))
    for index in (plain, learning):
        index.close() if hasattr(index, "close") else None
    return {"p50_ms_without": min(without), "p50_ms_with": min(learnt),
            "ratio": min(learnt) / min(without), "evidence_build_ms": built}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/eval"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--backend", "-b", action="append", help="default: regex")
    parser.add_argument("--set", action="append", choices=SETS, help="default: all three")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--speed", action="store_true", help="measure search p50 with 10,000 uses instead"
    )
    parser.add_argument(
        "--bogus", action="store_true", help="measure 1,000 bogus uses from one session instead"
    )
    args = parser.parse_args()
    backends = args.backend or ["regex"]
    if args.speed:
        for backend in backends:
            print(json.dumps({"backend": backend} | speed(backend, args.data)))
        return
    if args.bogus:
        for name in args.set or SETS:
            write_split(args.data / name, args.out / name)
            for backend in backends:
                figures = bogus(backend, args.data / name, args.out / name)
                print(json.dumps({"set": name, "backend": backend} | figures))
        return
    rows: list[dict[str, Any]] = []
    for name in args.set or SETS:
        source = args.data / name
        split = args.out / name
        sizes = write_split(source, split)
        print(f"{name}: {sizes}", file=sys.stderr)
        for backend in backends:
            for queries in ("test", "test_strict"):
                for history in (False, True):
                    figures = score(backend, source, split, queries, history)
                    rows.append(
                        {"set": name, "backend": backend, "split": queries, "history": history}
                        | figures
                    )
                    print(json.dumps(rows[-1]), file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    header = ["set", "backend", "split", "history", "queries", "hit@5", "recall@5", "mrr@10"]
    header += ["p50_ms", "answered", "abstained"]
    table = [header]
    for row in rows:
        table.append(
            [row["set"], row["backend"], row["split"], "yes" if row["history"] else "no"]
            + [str(row["queries"])]
            + [f"{row[key]:.3f}" for key in ("hit@5", "recall@5", "mrr@10", "p50_ms", "answered")]
            + [f"{row['abstained'].get('all', 0.0):.3f}" if row["abstained"] else "-"]
        )
    widths = [max(len(line[col]) for line in table) for col in range(len(header))]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))
    print(
        f"\nrun one again: toolscout eval --catalog {args.data}/SET/tools.jsonl "
        f"--queries {args.out}/SET/test.jsonl --history {args.out}/SET/history.jsonl -b BACKEND"
    )


if __name__ == "__main__":
    main()
