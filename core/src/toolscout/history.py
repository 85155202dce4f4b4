"""Past uses from a file, for `toolscout eval --history`: measuring what learning from use is
worth on labelled queries.

A history file has the format of a `--queries` file: each line's `relevant` tools count as
called successfully after a search for its `query`, each line its own session. Bad lines
are counted and reported, never fatal: a line that is not JSON or not a query, a blank
query, a tool the catalog does not have, a line longer than `MAX_LINE_BYTES`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolscout.types import ToolReference
from toolscout.usage import DEFAULT_TENANT, UsageStore, make_use

__all__ = ["MAX_LINE_BYTES", "HistoryReport", "read_history", "replay_history"]

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
