"""Score the regex backend under several option sets on the shared eval data.

Usage: python backends/regex/bench/sweep.py [bfcl|seal_tools ...] [--set KEY=VALUE,KEY=VALUE ...]
Each --set is one option set (the defaults are always scored first). Metrics come from
`toolscout.evaluation`, the code behind `toolscout eval`, so the figures compare.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from toolscout import load_catalog
from toolscout.evaluation import evaluate, load_queries
from toolscout_regex import RegexToolIndex

KEYS = ("hit@5", "recall@5", "ndcg@10", "mrr@10", "p50_ms", "p99_ms", "index_s")
EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"


def parse_set(text: str) -> dict[str, object]:
    options: dict[str, object] = {}
    for pair in filter(None, text.split(",")):
        key, _, value = pair.partition("=")
        options[key] = json.loads(value)
    return options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("datasets", nargs="*", default=["bfcl", "seal_tools"])
    parser.add_argument("--set", action="append", default=[], dest="sets")
    args = parser.parse_args()
    option_sets = [{}] + [parse_set(s) for s in args.sets]
    for dataset in args.datasets:
        tools = load_catalog(EVAL / dataset / "tools.jsonl")
        queries = load_queries(EVAL / dataset / "queries.jsonl")
        for options in option_sets:
            result = evaluate(RegexToolIndex(**options), tools, queries).to_dict()
            figures = " ".join(
                f"{k}={result[k]}"
                for k in ("hit@5", "recall@5", "ndcg@10", "mrr@10", "p50_ms", "p99_ms")
            )
            print(f"{dataset:10} {json.dumps(options) or '{}':60} {figures}", flush=True)


if __name__ == "__main__":
    main()
