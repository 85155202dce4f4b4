"""The docs keep up with the code: every setting and every CLI flag is documented.

Cheap meta-tests in the style of datasette's test_docs.py: adding a setting or a flag
without documenting it fails here, naming what is missing and where it belongs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from toolscout.cli import build_parser
from toolscout.config import EvictionSettings, Settings

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _read(name: str) -> str:
    path = DOCS / name
    if not path.is_file():
        pytest.fail(f"{path} is missing; these tests run from a checkout of the repository")
    return path.read_text(encoding="utf-8")


def test_every_setting_is_in_the_configuration_reference() -> None:
    text = _read("configuration.md")
    keys = [f"`{name}`" for name in Settings.model_fields]
    keys += [f"`eviction.{name}`" for name in EvictionSettings.model_fields]
    missing = [key for key in keys if key not in text]
    assert not missing, f"add these settings to the tables in docs/configuration.md: {missing}"


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the toolscout parser has no subcommands")


def test_every_command_and_flag_is_in_the_cli_page() -> None:
    text = _read("cli.md")
    missing = []
    for name, sub in _subcommands().items():
        if f"## `toolscout {name}`" not in text:
            missing.append(f"section '## `toolscout {name}`'")
        for action in sub._actions:
            flags = [flag for flag in action.option_strings if flag.startswith("--")]
            if flags and flags[0] != "--help" and flags[0] not in text:
                missing.append(f"{name} {flags[0]}")
    assert not missing, f"document these in docs/cli.md: {missing}"
