"""Shared set-up for the cross-package tests: a clean working directory and environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]


@pytest.fixture(autouse=True)
def clean_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run each test in an empty directory with no TOOLSCOUT_* variable set."""
    for key in list(os.environ):
        if key.upper().startswith("TOOLSCOUT_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "network: resolves against the package index (pip --dry-run); part of the integration "
        "session, skipped only when the index is unreachable",
    )
