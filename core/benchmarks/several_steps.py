"""A several-step evaluation set whose steps each have two right tools (alternative servers).

Seal-Tools' requests that need several tools ask for one tool per step, and its catalog
offers each capability once. An agent that connects to several MCP servers often finds one
capability offered twice (two ticket trackers, two mail servers), and a ranking that
interleaves one best tool per step may fill the page with a step's alternatives and drop
another step. This set has that shape, built from ../shared/eval/seal_tools:

- the catalog is Seal-Tools' 4,076 tools, plus a second server's copy of every tool a
  request of two or more steps needs: the same description and parameters under the name
  `<mirror>_<name>`, the mirror one of a few server names by a hash of the tool's name (so
  the copies do not all share one word);
- each request that needs two or more tools is a query with `match: groups`: one group per
  step, the tool and its copy (recall@5: the share of steps with a right tool in the top 5).

    python core/benchmarks/several_steps.py --data ../shared/eval --out /tmp/several_steps
    toolscout eval --catalog /tmp/several_steps/tools.jsonl \\
        --queries /tmp/several_steps/queries.jsonl -b regex
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

#: The second servers' names: a tool's copy takes one, by a hash of its name.
MIRRORS = ("acme", "contoso", "globex", "initech", "umbrella")


def mirror_name(name: str) -> str:
    at = int(hashlib.sha256(name.encode()).hexdigest(), 16) % len(MIRRORS)
    return f"{MIRRORS[at]}_{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/eval"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    source = args.data / "seal_tools"
    tools = [json.loads(line) for line in (source / "tools.jsonl").open(encoding="utf-8")]
    queries = [json.loads(line) for line in (source / "queries.jsonl").open(encoding="utf-8")]
    several = [query for query in queries if len(query["relevant"]) >= 2]
    needed = {name for query in several for name in query["relevant"]}
    copies = [
        {**tool, "name": mirror_name(tool["name"])} for tool in tools if tool["name"] in needed
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "tools.jsonl").open("w", encoding="utf-8") as out:
        for tool in [*tools, *copies]:
            out.write(json.dumps(tool) + "\n")
    with (args.out / "queries.jsonl").open("w", encoding="utf-8") as out:
        for query in several:
            groups = [[name, mirror_name(name)] for name in query["relevant"]]
            line = {
                "query": query["query"],
                "relevant": [name for group in groups for name in group],
                "match": "groups",
                "groups": groups,
            }
            out.write(json.dumps(line) + "\n")
    print(f"{len(tools) + len(copies)} tools ({len(copies)} copies), {len(several)} queries")


if __name__ == "__main__":
    main()
