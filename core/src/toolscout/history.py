"""Past uses from a file, for `toolscout eval --history`: measuring what learning from use is
worth on labelled queries.

A history file has the format of a `--queries` file: each line's `relevant` tools count as
called successfully after a search for its `query`, each line its own session. Bad lines
are counted and reported, never fatal: a line that is not JSON or not a query, a blank
query, a tool the catalog does not have, a line longer than `MAX_LINE_BYTES`.

`split_history` splits a labelled data set into a history half and a test half (and the
test queries with no near-duplicate in the history), as `toolscout bench` and
`core/benchmarks/learning.py` measure learning from use.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from toolscout.types import ToolReference
from toolscout.usage import DEFAULT_TENANT, UsageStore, make_use

if TYPE_CHECKING:
    from toolscout.embedders import Embedder

__all__ = [
    "MAX_LINE_BYTES",
    "NEAR_DUPLICATE",
    "HistoryReport",
    "HistorySplit",
    "Labelled",
    "PastQuery",
    "in_history",
    "near_duplicates",
    "past_queries",
    "read_history",
    "replay_history",
    "split_history",
]

#: A line longer than this is skipped unread (a history line is one query and a few names).
MAX_LINE_BYTES = 64 * 1024


@dataclass
class HistoryReport:
    """What a history replay recorded and what it left out, by reason."""

    lines: int = 0
    uses: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        """One line: uses recorded from how many lines, and each reason a line or a tool
        was left out."""
        text = f"history: {self.uses:,} uses recorded from {self.lines:,} lines"
        if self.skipped:
            parts = ", ".join(f"{count:,} {reason}" for reason, count in self.skipped.items())
            text += f"; left out: {parts}"
        return text


@dataclass(frozen=True)
class PastQuery:
    """A query of the history and the tools it was answered by."""

    query: str
    relevant: tuple[str, ...]


def read_history(path: str | Path, report: HistoryReport) -> list[PastQuery]:
    """The queries of a history file; each bad line counted in `report` and skipped. A
    missing file is an error (named), as for `--queries`."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"history file not found: {path} (a JSONL file of queries)")
    found: list[PastQuery] = []
    with path.open("rb") as lines:
        for raw in lines:
            if len(raw) > MAX_LINE_BYTES:
                report.skipped["lines too long"] += 1
                continue
            if not raw.strip():
                continue
            report.lines += 1
            try:
                data = json.loads(raw.decode("utf-8-sig"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                report.skipped["lines not JSON"] += 1
                continue
            past = _past_query(data)
            if isinstance(past, str):
                report.skipped[past] += 1
                continue
            found.append(past)
    return found


def _past_query(data: object) -> PastQuery | str:
    """The query of one line, or why it is left out."""
    if not isinstance(data, Mapping):
        return "lines not a JSON object"
    text = data.get("query")
    if not isinstance(text, str):
        return "lines without a query"
    if not text.strip():
        return "blank queries"
    names: list[str] = []
    for key in ("relevant", "groups"):
        value = data.get(key) or []
        items = value if key == "relevant" else [n for group in value for n in group]
        if not isinstance(items, list) or not all(isinstance(n, str) for n in items):
            return f"lines whose {key} is not a list of names"
        names.extend(items)
    if not names:
        return "lines naming no tool"
    return PastQuery(text, tuple(dict.fromkeys(names)))


def replay_history(
    store: UsageStore,
    tools: Iterable[ToolReference],
    history: Sequence[PastQuery],
    report: HistoryReport,
    *,
    tenant: str = DEFAULT_TENANT,
) -> None:
    """Record each past query's tools as called successfully, each line its own session;
    a tool the catalog lacks is counted in `report` and skipped."""
    by_name = {tool.name: tool for tool in tools}
    for number, past in enumerate(history):
        session = f"history-{number}"
        for name in past.relevant:
            tool = by_name.get(name)
            if tool is None:
                report.skipped["uses of tools not in the catalog"] += 1
                continue
            use = make_use(past.query, tool, success=True, session=session, tenant=tenant)
            if use is not None:
                store.record(use)
                report.uses += 1


# --- splitting a labelled data set ----------------------------------------------------

#: A test query at least this alike to a history query (the cosine similarity of their
#: vectors) is a near-duplicate of it: the strict split leaves it out.
NEAR_DUPLICATE = 0.9


class Labelled(Protocol):
    """A labelled query (`toolscout.evaluation.EvalQuery` is one)."""

    @property
    def query(self) -> str: ...

    @property
    def relevant(self) -> Sequence[str]: ...


Q = TypeVar("Q", bound=Labelled)


def in_history(query: str) -> bool:
    """Whether a labelled query falls in the history half of its data set: chosen by a hash
    of its text, so every run on every machine splits a data set the same way."""
    return hashlib.sha256(query.encode("utf-8")).digest()[0] % 2 == 0


@dataclass(frozen=True)
class HistorySplit(Generic[Q]):
    """A data set's queries split for measuring learning from use: the `history` replayed
    as past uses, the `test` queries asked, and `strict`, the places in `test` of the
    queries with no near-duplicate in the history (None: not worked out, no embedder)."""

    history: list[Q]
    test: list[Q]
    strict: list[int] | None


def split_history(queries: Sequence[Q], embedder: Embedder | None = None) -> HistorySplit[Q]:
    """`queries` split in halves by `in_history`; with an `embedder`, also the test queries
    that have no near-duplicate (`NEAR_DUPLICATE`) among the history's."""
    history = [query for query in queries if in_history(query.query)]
    test = [query for query in queries if not in_history(query.query)]
    strict = None
    if embedder is not None:
        duplicate = near_duplicates([q.query for q in history], [q.query for q in test], embedder)
        strict = [at for at, found in enumerate(duplicate) if not found]
    return HistorySplit(history, test, strict)


def near_duplicates(history: Sequence[str], test: Sequence[str], embedder: Embedder) -> list[bool]:
    """For each `test` text, whether some `history` text is a near-duplicate of it (cosine
    similarity of the embedder's vectors at least `NEAR_DUPLICATE`)."""
    if not history or not test:
        return [False] * len(test)
    import numpy as np

    def unit(texts: Sequence[str]) -> Any:
        matrix = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)

    past, asked = unit(history), unit(test)
    flags: list[bool] = []
    for start in range(0, len(test), 512):  # a bounded slice of the similarity matrix
        best = (asked[start : start + 512] @ past.T).max(axis=1)
        flags.extend(bool(value >= NEAR_DUPLICATE) for value in best)
    return flags


def past_queries(queries: Iterable[Labelled]) -> list[PastQuery]:
    """Labelled queries as a history (`replay_history`'s input)."""
    return [PastQuery(q.query, tuple(dict.fromkeys(q.relevant))) for q in queries]
