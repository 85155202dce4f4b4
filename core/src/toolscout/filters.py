"""Metadata filters: one matcher with one meaning, applied by core for every backend.

`ToolSearchRequest.metadata_filter` maps keys to what a tool's `metadata` must hold:

- `None`: the tool's metadata lacks the key, or holds `None` under it;
- a scalar (`"github"`, `3`, `True`): it holds an equal value (`True` is not `1`), or a
  list containing one;
- a list (`["github", "slack"]`): it matches any of the list's values by the scalar rule;
  `[]` matches nothing;
- a mapping: it holds an equal mapping.

Every key must match. Core evaluates the filter over the session's tool set and hands the
engine the names that passed, so the filter applies before the result limit, the same way
in every backend.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["matches"]


def _same(have: Any, want: Any) -> bool:
    # JSON semantics: true and 1 are different values, although Python says True == 1.
    if isinstance(have, bool) or isinstance(want, bool):
        return isinstance(have, bool) and isinstance(want, bool) and have is want
    return bool(have == want)


def _scalar_matches(have: Any, want: Any) -> bool:
    if isinstance(have, (list, tuple)) and not isinstance(want, (list, tuple)):
        return any(_same(item, want) for item in have)
    return _same(have, want)


def matches(metadata: Mapping[str, Any] | None, metadata_filter: Mapping[str, Any]) -> bool:
    """Whether a tool with `metadata` passes `metadata_filter` (see the module docstring)."""
    held = metadata if metadata is not None else {}
    for key, want in metadata_filter.items():
        if want is None:
            if held.get(key) is not None:
                return False
            continue
        if key not in held:
            return False
        have = held[key]
        if isinstance(want, (list, tuple)):
            if not any(_scalar_matches(have, option) for option in want):
                return False
        elif not _scalar_matches(have, want):
            return False
    return True
