"""Build the 10,000-tool benchmark catalog from the two eval data sets (never stored in git).

BFCL (1,853 tools) and Seal-Tools (4,076) are joined; a Seal-Tools name that BFCL already
uses gets the suffix `__seal`; then the joined list is repeated with `__copy<k>` names
until the catalog holds `--size` tools.

    python backends/duckdb/bench/catalog.py /tmp/toolscout-10k.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"


def build(size: int, eval_dir: Path = EVAL) -> list[dict[str, object]]:
    """The joined catalog as tool dicts with unique names."""
    joined: list[dict[str, object]] = []
    seen: set[str] = set()
    for source, suffix in (("bfcl", "__bfcl"), ("seal_tools", "__seal")):
        for line in (eval_dir / source / "tools.jsonl").read_text().splitlines():
            if not line.strip():
                continue
            tool = json.loads(line)
            name = str(tool["name"])
            if name in seen:
                name = f"{name}{suffix}"
            seen.add(name)
            joined.append(
                {
                    "name": name,
                    "description": tool.get("description") or "",
                    "input_schema": tool.get("input_schema"),
                }
            )
    catalog = list(joined[:size])
    copy = 1
    while len(catalog) < size:
        for tool in joined[: size - len(catalog)]:
            catalog.append({**tool, "name": f"{tool['name']}__copy{copy}"})
        copy += 1
    return catalog


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path, help="JSONL file to write")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    args = parser.parse_args()
    catalog = build(args.size, args.eval_dir)
    with args.out.open("w") as out:
        for tool in catalog:
            out.write(json.dumps(tool) + "\n")
    print(f"wrote {len(catalog)} tools to {args.out}")


if __name__ == "__main__":
    main()
