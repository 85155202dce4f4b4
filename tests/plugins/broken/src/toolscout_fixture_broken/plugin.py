"""A plugin whose import fails, as when a backend's dependency is missing."""

from __future__ import annotations

raise ImportError(
    "No module named 'fixture_missing_dependency' (raised on purpose by a test fixture)"
)
