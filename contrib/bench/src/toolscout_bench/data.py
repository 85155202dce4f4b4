"""The benchmark's inputs: the evaluation data sets, and catalogs grown or cut to a size.

Data sets are read from `../shared/eval/` next to the repository (or `--data DIR`), one
folder per set holding `tools.jsonl` and `queries.jsonl`; nothing is copied into the repo.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolscout import ToolReference
from toolscout.catalog import load_catalog
from toolscout.evaluation import EvalQuery, load_queries

__all__ = [
    "DATA_ENV",
    "Dataset",
    "abstention_split",
    "find_data_dir",
    "joined_catalog",
    "load_datasets",
    "quick_subset",
    "sized_catalog",
]

#: Environment variable naming the evaluation data folder.
DATA_ENV = "TOOLSCOUT_EVAL_DATA"

#: Seed of every sample the benchmark draws, so two runs measure the same tools and queries.
SEED = 20260


@dataclass(frozen=True)
class Dataset:
    """One evaluation data set: its catalog and its queries."""

    name: str
    tools: list[ToolReference]
    queries: list[EvalQuery]


def find_data_dir(start: Path | None = None) -> Path:
    """`$TOOLSCOUT_EVAL_DATA`, else the first `../shared/eval` above `start` (default: cwd)."""
    configured = os.environ.get(DATA_ENV)
    if configured:
        path = Path(configured)
        if not path.is_dir():
            raise FileNotFoundError(f"{DATA_ENV}={configured} is not a directory")
        return path
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder.parent / "shared" / "eval"
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"no evaluation data: looked for ../shared/eval above {here}; pass --data DIR or set "
        f"{DATA_ENV} to a folder of data sets (each with tools.jsonl and queries.jsonl)"
    )


def load_datasets(data_dir: Path, names: Sequence[str] | None = None) -> list[Dataset]:
    """Every data set under `data_dir` (sorted by name), or the named ones."""
    if not data_dir.is_dir():
        raise FileNotFoundError(f"evaluation data folder {data_dir} does not exist")
    found = sorted(
        p.name
        for p in data_dir.iterdir()
        if (p / "tools.jsonl").is_file() and (p / "queries.jsonl").is_file()
    )
    if names:
        missing = [name for name in names if name not in found]
        if missing:
            raise FileNotFoundError(
                f"data set(s) {', '.join(missing)} not in {data_dir}; "
                f"available: {', '.join(found) or 'none'}"
            )
        found = [name for name in found if name in names]
    if not found:
        raise FileNotFoundError(
            f"{data_dir} holds no data set (a folder with tools.jsonl and queries.jsonl)"
        )
    return [
        Dataset(
            name,
            load_catalog(data_dir / name / "tools.jsonl"),
            load_queries(data_dir / name / "queries.jsonl"),
        )
        for name in found
    ]


def quick_subset(dataset: Dataset, queries: int, tools: int) -> Dataset:
    """A small version of a data set: `queries` sampled queries, their relevant tools, and
    distractors sampled from the rest of the catalog up to `tools` tools in all."""
    rng = random.Random(SEED)
    chosen = sorted(rng.sample(range(len(dataset.queries)), min(queries, len(dataset.queries))))
    picked = [dataset.queries[i] for i in chosen]
    needed = {name for query in picked for name in query.relevant}
    kept = [tool for tool in dataset.tools if tool.name in needed]
    others = [tool for tool in dataset.tools if tool.name not in needed]
    kept += rng.sample(others, max(0, min(tools - len(kept), len(others))))
    return Dataset(dataset.name, kept, picked)


def joined_catalog(datasets: Sequence[Dataset]) -> list[ToolReference]:
    """Every data set's tools in one catalog, each name once.

    A name already taken gets its data set's name appended (`search_bfcl`), then a
    number if that is taken too (`search_bfcl_2`).
    """
    taken: set[str] = set()
    joined: list[ToolReference] = []
    for dataset in datasets:
        for tool in dataset.tools:
            name = tool.name
            if name in taken:
                name = candidate = f"{tool.name}_{dataset.name}"
                number = 2
                while name in taken:
                    name = f"{candidate}_{number}"
                    number += 1
            taken.add(name)
            joined.append(tool if name == tool.name else _renamed(tool, name))
    return joined


def _renamed(tool: ToolReference, name: str) -> ToolReference:
    return ToolReference(name, tool.description, tool.input_schema, tool.metadata)


def sized_catalog(base: Sequence[ToolReference], size: int) -> list[ToolReference]:
    """`size` tools with unique names: a seeded sample of `base`, or, past its size, `base`
    followed by renamed copies (`name_copy2`, `name_copy3`, …) of its tools."""
    if size < 1:
        raise ValueError(f"a catalog size must be at least 1, got {size}")
    if not base:
        raise ValueError("cannot size an empty catalog")
    if size <= len(base):
        rng = random.Random(SEED)
        return [base[i] for i in sorted(rng.sample(range(len(base)), size))]
    tools = list(base)
    taken = {tool.name for tool in tools}
    copy = 2
    while len(tools) < size:
        for tool in base:
            if len(tools) >= size:
                break
            name = f"{tool.name}_copy{copy}"
            if name in taken:
                continue
            taken.add(name)
            tools.append(_renamed(tool, name))
        copy += 1
    return tools


@dataclass(frozen=True)
class AbstentionSplit:
    """A catalog with some queries' relevant tools removed.

    `unanswerable` queries have none of their relevant tools left in `tools`; `answerable`
    queries have all of theirs, and calibrate the minimum score.
    """

    tools: list[ToolReference]
    unanswerable: list[EvalQuery]
    answerable: list[EvalQuery]


def abstention_split(dataset: Dataset, unanswerable: int, answerable: int) -> AbstentionSplit:
    """Remove the relevant tools of `unanswerable` sampled queries from the catalog."""
    rng = random.Random(SEED + 1)
    order = list(range(len(dataset.queries)))
    rng.shuffle(order)
    removed_queries = [dataset.queries[i] for i in order[:unanswerable]]
    removed = {name for query in removed_queries for name in query.relevant}
    tools = [tool for tool in dataset.tools if tool.name not in removed]
    left = {tool.name for tool in tools}
    kept = [
        dataset.queries[i]
        for i in order[unanswerable:]
        if left.issuperset(dataset.queries[i].relevant)
    ][:answerable]
    return AbstentionSplit(tools, removed_queries, kept)
