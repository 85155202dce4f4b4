"""Test helpers shared by the duckdb backend's tests."""

from __future__ import annotations

from typing import Any

from toolscout_duckdb import DuckDBToolIndex


def keyword_index(**options: Any) -> DuckDBToolIndex:
    """The duckdb engine alone (`embedder="none"`): these tests specify its own BM25F
    scores, matches, order and stored rows; core's hybrid ranking over it has tests of its
    own, and the conformance suite runs the default, hybrid where an embedder is installed.
    (A subprocess script that builds an index passes `embedder="none"` itself.)"""
    return DuckDBToolIndex(embedder="none", **options)
