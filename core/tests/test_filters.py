"""Specification of the one metadata-filter matcher every backend uses."""

from __future__ import annotations

import pytest
from toolscout.filters import matches


@pytest.mark.parametrize(
    ("metadata", "wanted", "expected"),
    [
        ({"server": "github"}, {"server": "github"}, True),
        ({"server": "slack"}, {"server": "github"}, False),
        (None, {"server": "github"}, False),
        ({}, {"server": None}, True),
        ({"server": None}, {"server": None}, True),
        ({"server": "github"}, {"server": None}, False),
        ({"server": "github"}, {"server": ["slack", "github"]}, True),
        ({"server": "github"}, {"server": []}, False),
        ({"tags": ["a", "b"]}, {"tags": "b"}, True),
        ({"tags": ["a", "b"]}, {"tags": ["c", "a"]}, True),
        ({"n": 1}, {"n": True}, False),
        ({"n": True}, {"n": 1}, False),
        ({"n": 1}, {"n": 1.0}, True),
        ({"a": 1, "b": 2}, {"a": 1, "b": 3}, False),
        ({"cfg": {"x": 1}}, {"cfg": {"x": 1}}, True),
    ],
)
def test_matches(metadata: object, wanted: dict, expected: bool) -> None:
    assert matches(metadata, wanted) is expected  # type: ignore[arg-type]
