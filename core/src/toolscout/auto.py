"""Auto mode: tool search only when the tools are too many or too large to send as they are.

Search turns on when there are more than `AutoThreshold.tools` searchable tools (every
tool but the pinned ones; default 30) or when their definitions take more than
`AutoThreshold.tokens` tokens (default 10,000, o200k_base, counted as OpenAI function
definitions by `toolscout.tokens.tool_tokens`). Below both, every tool is sent as usual and
the search tool is left out.

The advisor and every framework integration decide through this class; the defaults come
from the settings (`[tool.toolscout.auto]`: `enabled`, `tools`, `tokens`). This module
imports nothing heavy: the token counter loads only when the count criterion does not
already decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolscout.types import ToolReference

if TYPE_CHECKING:
    from toolscout.config import Settings

__all__ = ["DEFAULT_AUTO_TOKENS", "DEFAULT_AUTO_TOOLS", "AutoThreshold"]

DEFAULT_AUTO_TOOLS = 30
"""Auto mode turns search on above this many searchable tools (models pick tools less
reliably beyond about 30)."""
DEFAULT_AUTO_TOKENS = 10_000
"""Auto mode turns search on when the searchable tools' definitions take more tokens."""


@dataclass(frozen=True)
class AutoThreshold:
    """When tool search turns on (auto mode).

    Search is on when there are more than `tools` searchable tools, or when their
    definitions take more than `tokens` tokens (`toolscout.tokens.tool_tokens`: o200k_base,
    as OpenAI function definitions). Below both, every tool is sent as usual and the search
    tool is left out. `None` switches a criterion off; `AutoThreshold(tools=0)` turns search
    on whenever there is a tool to search.
    """

    tools: int | None = DEFAULT_AUTO_TOOLS
    tokens: int | None = DEFAULT_AUTO_TOKENS
    encoding: str = "o200k_base"

    def __post_init__(self) -> None:
        for name in ("tools", "tokens"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise ValueError(f"AutoThreshold.{name} must be None or an int >= 0, got {value!r}")

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> AutoThreshold | None:
        """The configured auto mode (`[tool.toolscout.auto]`); None when it is disabled."""
        if settings is None:
            from toolscout.config import load_settings

            settings = load_settings()
        auto = settings.auto
        if not auto.enabled:
            return None
        return cls(tools=auto.tools, tokens=auto.tokens)

    @classmethod
    def coerce(
        cls, auto: AutoThreshold | bool | None, settings: Settings | None = None
    ) -> AutoThreshold | None:
        """An `auto` argument as a threshold, or None for "search always on".

        `True` → the configured threshold when `settings` are given (`[tool.toolscout.auto]`,
        None when it is disabled there), else the default one; `False`/`None` → no
        threshold; an `AutoThreshold` is returned as is.
        """
        if auto is True:
            return cls() if settings is None else cls.from_settings(settings)
        if auto is False or auto is None:
            return None
        if isinstance(auto, AutoThreshold):
            return auto
        raise TypeError(f"auto must be a bool or an AutoThreshold, got {type(auto).__name__}")

    def decide(self, tools: Sequence[ToolReference]) -> tuple[bool, int | None]:
        """(search on?, the tools' tokens when they were counted)."""
        if not tools:
            return False, 0
        if self.tools is not None and len(tools) > self.tools:
            return True, None
        if self.tokens is None:
            return False, None
        from toolscout.tokens import tool_tokens

        tokens = tool_tokens(tools, self.encoding)
        return tokens > self.tokens, tokens

    def describe(self) -> dict[str, Any]:
        """The threshold as plain data (for logs and telemetry)."""
        return {"tools": self.tools, "tokens": self.tokens, "encoding": self.encoding}
