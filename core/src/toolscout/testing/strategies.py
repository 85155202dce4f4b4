"""Hypothesis strategies for tools and queries, shared by the suite and its state machine.

Tool names and descriptions are built from `VOCABULARY`, content words that no analyzer
drops as stop words and that survive stemming on both the indexing and the query side, so
"searching a tool's exact name finds it" holds for every honest lexical or vector backend.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from toolscout.types import ToolReference

__all__ = ["VOCABULARY", "free_text", "tool_lists", "tool_names", "tools", "word_queries"]

VOCABULARY: tuple[str, ...] = (
    "weather", "forecast", "invoice", "payment", "calendar", "meeting", "repository",
    "ticket", "channel", "message", "folder", "upload", "download", "customer", "refund",
    "playlist", "translate", "currency", "stock", "flight", "hotel", "recipe", "sensor",
    "deploy", "cluster", "backup", "archive", "contact", "survey", "podcast", "garden",
    "parcel", "ledger", "vault", "beacon", "orbit", "quartz", "zephyr", "glacier", "lantern",
)  # fmt: skip

_word = st.sampled_from(VOCABULARY)

#: Names such as `invoice_refund`, `orbit.beacon` or `vault-ledger-quartz`.
tool_names: st.SearchStrategy[str] = st.builds(
    lambda parts, sep: sep.join(parts),
    st.lists(_word, min_size=1, max_size=3),
    st.sampled_from(["_", "_", ".", "-"]),
)

_descriptions = st.one_of(
    st.just(""),
    st.lists(_word, min_size=1, max_size=8).map(lambda ws: " ".join(ws).capitalize() + "."),
)


def _schema(params: list[tuple[str, str]]) -> dict[str, Any] | None:
    if not params:
        return None
    properties = {name: {"type": "string", "description": text} for name, text in params}
    return {"type": "object", "properties": properties}


_schemas = st.lists(st.tuples(_word, _word), max_size=3).map(_schema)

#: One tool with a vocabulary name, an optional description and an optional schema.
tools: st.SearchStrategy[ToolReference] = st.builds(
    ToolReference, name=tool_names, description=_descriptions, input_schema=_schemas
)

#: A batch of tools; names may repeat (the last definition of a name wins).
tool_lists: st.SearchStrategy[list[ToolReference]] = st.lists(tools, max_size=6)

#: One to three vocabulary words.
word_queries: st.SearchStrategy[str] = st.lists(_word, min_size=1, max_size=3).map(" ".join)

#: Arbitrary text, including punctuation, regex metacharacters, control and non-ASCII
#: characters: a backend may answer or raise ValueError, nothing else.
free_text: st.SearchStrategy[str] = st.text(max_size=40)
