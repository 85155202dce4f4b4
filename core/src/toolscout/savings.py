"""What tool search saves: tokens of the whole catalog against what a request really sends.

Without tool search a request carries every tool definition. With it, the request carries
the `tool_search` tool plus the definitions of the tools the search returned. Both sides
are counted offline with `toolscout.tokens` (o200k_base by default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolscout.tokens import DEFAULT_ENCODING, tool_tokens
from toolscout.types import ToolReference

__all__ = ["TokenSavings", "search_tool", "token_savings"]


def search_tool(default_max_results: int = 5, max_results_limit: int = 20) -> ToolReference:
    """The `tool_search` definition the advisor sends, as the model would see it."""
    from toolscout.advisor.search_tool import search_tool_reference

    return search_tool_reference(default_max_results, max_results_limit)


@dataclass(frozen=True)
class TokenSavings:
    """Tokens of the whole catalog versus tool_search plus the tools a search returned."""

    catalog_tools: int
    catalog_tokens: int
    returned_tools: int
    sent_tokens: int
    encoding: str = DEFAULT_ENCODING

    @property
    def saved_tokens(self) -> int:
        return self.catalog_tokens - self.sent_tokens

    @property
    def saved_percent(self) -> float:
        return 100.0 * self.saved_tokens / self.catalog_tokens if self.catalog_tokens else 0.0

    def to_dict(self) -> dict[str, int | float | str]:
        return {
            "encoding": self.encoding,
            "catalog_tools": self.catalog_tools,
            "catalog_tokens": self.catalog_tokens,
            "returned_tools": self.returned_tools,
            "sent_tokens": self.sent_tokens,
            "saved_tokens": self.saved_tokens,
            "saved_percent": round(self.saved_percent, 2),
        }

    def describe(self) -> str:
        """One line for people: what was sent instead of what, and the share saved."""
        return (
            f"tokens ({self.encoding}): sent {self.sent_tokens:,} (tool_search + "
            f"{self.returned_tools} tool{'s' if self.returned_tools != 1 else ''}) instead of "
            f"{self.catalog_tokens:,} for all {self.catalog_tools:,} "
            f"tool{'s' if self.catalog_tools != 1 else ''}: {self._verdict()}"
        )

    def _verdict(self) -> str:
        if self.saved_tokens >= 0:
            return f"saved {self.saved_tokens:,} ({self.saved_percent:.1f}%)"
        # A catalog smaller than the search tool: say so, rather than a negative saving.
        return (
            f"{-self.saved_tokens:,} more than sending every tool; below auto mode's "
            "threshold the integrations send every tool as usual"
        )


def token_savings(
    catalog: Sequence[ToolReference],
    returned: Sequence[ToolReference],
    *,
    catalog_tokens: int | None = None,
    search: ToolReference | None = None,
    encoding: str = DEFAULT_ENCODING,
) -> TokenSavings:
    """Count what a search saved; pass `catalog_tokens` to reuse a count across searches.

    `search` is the search tool's definition (default: `search_tool()`).
    """
    if search is None:
        search = search_tool()
    if catalog_tokens is None:
        catalog_tokens = tool_tokens(catalog, encoding)
    return TokenSavings(
        catalog_tools=len(catalog),
        catalog_tokens=catalog_tokens,
        returned_tools=len(returned),
        sent_tokens=tool_tokens([search, *returned], encoding),
        encoding=encoding,
    )
