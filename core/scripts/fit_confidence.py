"""Fit the keyword confidence model, `toolscout.confidence.KEYWORD_MODEL`, on MetaTool.

    python core/scripts/fit_confidence.py --eval ../shared/eval \
        -b regex -b tantivy -b duckdb -b "postgres:mode=keyword,dsn=$DSN"

Each backend searches MetaTool's answerable and infeasible queries with the floor off, ten
hits each, and core's evidence for each answer is taken as the search weighs it
(`toolscout.confidence.evidence`: the best coverage of the first hits, the known share,
whether that hit has two or more of the query's words). A logistic regression, pooled
over the backends, tells the answers that hold a relevant tool in their top 5 from the
rest (infeasible queries, and answerable ones the engine ranks wrong). Its intercept is
then set so that the default floor costs each backend at most `--max-drop` of MetaTool's
hit@5. Prints the constants and, per backend, the floor's cost and what it abstains on.
docs/confidence.md has the method and figures.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path

from toolscout import ToolSearchRequest, load_catalog, load_index
from toolscout.analysis import name_candidates
from toolscout.confidence import DEFAULT_MIN_CONFIDENCE, DEPTH, evidence, profile_of
from toolscout.evaluation import load_infeasible, load_queries
from toolscout.index import Query
from toolscout.toolsets import ToolSet

#: As scikit-learn's default: an L2 penalty of 1/2 |w|^2 on the weights, not the intercept.
RIDGE = 1.0
FEATURES = ("coverage", "known share", "two words or more")


@dataclass(frozen=True)
class Answer:
    """One query's answer with the floor off: its features (None: no hit at all)."""

    kind: str  # "answerable", "tool_absent" or "no_tool_needed"
    right: bool  # a relevant tool is in the top 5
    features: tuple[float, ...] | None


def parse_backend(spec: str) -> tuple[str, dict[str, object]]:
    """`name` or `name:key=value,key=value` (a value is JSON when it parses)."""
    name, _, rest = spec.partition(":")
    options: dict[str, object] = {}
    for pair in filter(None, rest.split(",")):
        key, _, value = pair.partition("=")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    return name, options


def answers(spec: str, data: Path) -> list[Answer]:
    name, options = parse_backend(spec)
    index = load_index(name, **{**options, "min_confidence": 0})
    catalog = load_catalog(data / "tools.jsonl")
    asked = [(q.query, set(q.relevant), "answerable") for q in load_queries(data / "queries.jsonl")]
    asked += [
        (q.query, set(), q.kind or "infeasible")
        for q in load_infeasible(data / "queries_infeasible.jsonl")
    ]
    toolset = ToolSet.of("fit", catalog)
    profile = profile_of(toolset, index.analyzer, purpose=True)  # as the search weighs
    index.index_tools("fit", catalog)
    found = []
    try:
        for text, relevant, kind in asked:
            hits = index.search(ToolSearchRequest("fit", text, max_results=10)).references
            named = set(toolset.named(name_candidates(text)))
            names = [hit.name for hit in hits if hit.name not in named]
            right = any(hit.name in relevant for hit in hits[:5])
            features = None
            if names:
                terms = Query(text, 10, analyzer=index.analyzer).terms  # as the search has them
                seen = evidence(profile, terms, names)
                # The first hits' best coverage, and whether that hit has two of the words.
                best = max(range(min(DEPTH, len(names))), key=lambda at: seen.coverages[at])
                features = (seen.coverages[best], seen.known, float(seen.matched[best] >= 2))
            found.append(Answer(kind, right, features))
    finally:
        index.close()
    return found


def fit(rows: list[tuple[tuple[float, ...], bool]]) -> tuple[float, list[float]]:
    """Logistic regression by Newton's method: (intercept, weights)."""
    size = len(rows[0][0]) + 1
    beta = [0.0] * size
    for _ in range(50):
        gradient = [0.0] * size
        hessian = [[0.0] * size for _ in range(size)]
        for features, label in rows:
            x = (1.0, *features)
            p = 1.0 / (1.0 + math.exp(-sum(b * v for b, v in zip(beta, x, strict=True))))
            for i in range(size):
                gradient[i] += (p - label) * x[i]
                for j in range(size):
                    hessian[i][j] += p * (1.0 - p) * x[i] * x[j]
        for i in range(1, size):
            gradient[i] += RIDGE * beta[i]
            hessian[i][i] += RIDGE
        step = solve(hessian, gradient)
        beta = [b - s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-10:
            break
    return beta[0], beta[1:]


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a few unknowns)."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(size):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=Path("../shared/eval"), help="data sets")
    parser.add_argument(
        "--backend", "-b", action="append", help="NAME or NAME:KEY=VALUE,... (repeatable)"
    )
    parser.add_argument("--max-drop", type=float, default=0.0096, help="hit@5 the floor may cost")
    args = parser.parse_args()
    specs = args.backend or ["regex", "tantivy", "duckdb"]
    found = {spec: answers(spec, args.eval / "metatool") for spec in specs}

    pooled = [(a.features, a.right) for rows in found.values() for a in rows if a.features]
    _, weights = fit(pooled)
    weights = [round(w, 3) for w in weights]

    def score(answer: Answer) -> float:
        if answer.features is None:
            return -math.inf
        return sum(w * v for w, v in zip(weights, answer.features, strict=True))

    # Per backend, the highest cut that drops at most `allowed` right answers; the lowest
    # of those holds for all. The floor goes midway to the next answer below it.
    cuts = []
    for rows in found.values():
        answerable = sum(1 for a in rows if a.kind == "answerable")
        allowed = math.floor(args.max_drop * answerable + 1e-9)
        right = sorted(score(a) for a in rows if a.kind == "answerable" and a.right)
        cuts.append(right[allowed])
    cut = min(cuts)
    below = max(score(a) for rows in found.values() for a in rows if score(a) < cut)
    floor = DEFAULT_MIN_CONFIDENCE
    intercept = round(math.log(floor / (1.0 - floor)) - (cut + below) / 2.0, 3)

    named = " + ".join(f"{w:.3f} x {f}" for w, f in zip(weights, FEATURES, strict=True))
    print(f"KEYWORD_MODEL = ({intercept:.3f}, {', '.join(f'{w:.3f}' for w in weights)})")
    print(f"  confidence = sigmoid({intercept:.3f} + {named})")
    print("backend | hit@5 cost | answered | abstained tool_absent / no_tool_needed / all")
    cut_logit = math.log(floor / (1.0 - floor)) - intercept
    for spec, rows in found.items():
        answerable = [a for a in rows if a.kind == "answerable"]
        kept = [score(a) >= cut_logit for a in answerable]
        cost = sum(a.right and not k for a, k in zip(answerable, kept, strict=True))
        shares = []
        for kind in ("tool_absent", "no_tool_needed", None):
            asked = [a for a in rows if a.kind != "answerable" and kind in (None, a.kind)]
            shares.append(sum(score(a) < cut_logit for a in asked) / max(1, len(asked)))
        name, options = parse_backend(spec)
        mode = f" ({options['mode']})" if "mode" in options else ""  # not the dsn: a secret
        print(
            f"{name}{mode} | "
            f"{cost / len(answerable):.4f} | {sum(kept) / len(answerable):.4f} | "
            + " / ".join(f"{share:.1%}" for share in shares)
        )


if __name__ == "__main__":
    main()
