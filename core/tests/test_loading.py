"""Specification of `toolscout.load_index`: configured backend, options validated by `Options`.

A throwaway plugin is registered on the process-wide registry for each test and
unregistered afterwards.
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
import toolscout
from toolscout import ConfigError, ToolReference, ToolSearchRequest, UnknownBackendError
from toolscout.options import IndexOptions
from toolscout.plugins import registry
from toolscout.testing import ReferenceToolIndex


class OptionsIndex(ReferenceToolIndex):
    """The reference index with validated options, to see what `load_index` passes."""

    name: ClassVar[str] = "optioned"

    class Options(IndexOptions):
        path: str = ":memory:"
        threads: int = 1

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.path, self.threads = self.options.path, self.options.threads


class PlainIndex(ReferenceToolIndex):
    """A backend without an `Options` model: options go straight to the constructor."""

    name: ClassVar[str] = "plain"

    def __init__(self, size: int = 0) -> None:
        super().__init__()
        self.size = size


@pytest.fixture(autouse=True)
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key in list(os.environ):
        if key.upper().startswith("TOOLSCOUT_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)

    def register_backends(register: Callable[[type[Any]], None]) -> None:
        register(OptionsIndex)
        register(PlainIndex)

    module = types.ModuleType("loading_test_plugin")
    module.register_backends = toolscout.hookimpl(register_backends)  # type: ignore[attr-defined]
    registry.register_plugin(module)
    yield
    registry.unregister_plugin("loading_test_plugin")


def test_load_index_builds_the_named_backend() -> None:
    index = toolscout.load_index("optioned")
    assert isinstance(index, OptionsIndex)
    assert (index.path, index.threads) == (":memory:", 1)


def test_the_loaded_index_is_ready_to_use() -> None:
    index = toolscout.load_index("optioned")
    index.index_tools("s", [ToolReference("get_weather", "Current weather.")])
    assert index.search(ToolSearchRequest("s", "weather")).names == ["get_weather"]


def test_load_index_passes_validated_keyword_options() -> None:
    index = toolscout.load_index("optioned", path="tools.db", threads="4")
    assert (index.path, index.threads) == ("tools.db", 4)


def test_load_index_reads_options_from_the_backend_table_in_config() -> None:
    Path("toolscout.toml").write_text('[backends.optioned]\npath = "file.db"\n', "utf-8")
    assert toolscout.load_index("optioned").path == "file.db"


def test_keyword_options_override_the_config_table() -> None:
    Path("toolscout.toml").write_text('[backends.optioned]\npath = "a"\nthreads = 2\n', "utf-8")
    index = toolscout.load_index("optioned", path="b")
    assert (index.path, index.threads) == ("b", 2)


def test_load_index_reads_options_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_BACKENDS__OPTIONED__THREADS", "8")
    assert toolscout.load_index("optioned").threads == 8


def test_load_index_without_a_name_builds_the_configured_backend() -> None:
    Path("toolscout.toml").write_text('backend = "optioned"\n', "utf-8")
    assert isinstance(toolscout.load_index(), OptionsIndex)


def test_load_index_takes_the_backend_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_BACKEND", "plain")
    assert isinstance(toolscout.load_index(), PlainIndex)


def test_load_index_uses_given_settings_instead_of_reading_config() -> None:
    Path("toolscout.toml").write_text('backend = "nope"\n', "utf-8")
    settings = toolscout.load_settings(Path("/nonexistent-dir"), backend="plain")
    assert isinstance(toolscout.load_index(settings=settings), PlainIndex)


def test_an_unknown_option_names_it_and_lists_the_allowed_options() -> None:
    with pytest.raises(ConfigError) as caught:
        toolscout.load_index("optioned", pth="x")
    message = str(caught.value)
    assert "option of backend 'optioned' 'pth' = 'x'" in message
    assert "did you mean 'path'?" in message
    assert "max_results" in message and "path, threads" in message


def test_a_bad_option_value_names_the_option_and_value() -> None:
    with pytest.raises(ConfigError, match=r"'threads' = 'many': .*valid integer"):
        toolscout.load_index("optioned", threads="many")


def test_a_bad_option_in_config_is_a_config_error() -> None:
    Path("toolscout.toml").write_text("[backends.optioned]\nthred = 2\n", "utf-8")
    with pytest.raises(ConfigError, match="'thred' = 2"):
        toolscout.load_index("optioned")


def test_a_backend_without_options_model_reports_bad_options() -> None:
    with pytest.raises(ConfigError, match=r"bad options for backend plain: .*'colour'"):
        toolscout.load_index("plain", colour="red")


def test_a_backend_without_options_model_gets_its_options() -> None:
    assert toolscout.load_index("plain", size=3).size == 3


def test_load_index_of_an_unknown_backend_lists_the_installed_ones() -> None:
    with pytest.raises(UnknownBackendError, match=r"installed backends: .*optioned"):
        toolscout.load_index("nope")
