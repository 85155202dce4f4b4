"""Specification of the plugin registry, with throwaway in-code plugins (no entry points).

Each test uses a fresh `PluginRegistry` on an entry-point group nothing is installed under,
so the plugins installed in the environment never change the outcome.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
import toolscout
from toolscout import PluginLoadError, ToolHit, ToolIndexBase, UnknownBackendError
from toolscout.index import Query
from toolscout.plugins import FIRST_PARTY, PluginRegistry
from toolscout.toolsets import ToolSet


class EchoIndex(ToolIndexBase):
    """A trivial backend: finds nothing, remembers nothing."""

    name: ClassVar[str] = "echo"

    def _create_set(self, toolset: ToolSet) -> None:
        pass

    def _drop_set(self, toolset: ToolSet) -> None:
        pass

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        return [], 0


def plugin_module(name: str, **hooks: Callable[..., None]) -> types.ModuleType:
    """A plugin module holding the given hook implementations."""
    module = types.ModuleType(name)
    for hook_name, function in hooks.items():
        setattr(module, hook_name, toolscout.hookimpl(function))
    return module


def registers(*classes: type[Any]) -> Callable[[Callable[[type[Any]], None]], None]:
    def register_backends(register: Callable[[type[Any]], None]) -> None:
        for cls in classes:
            register(cls)

    return register_backends


@pytest.fixture
def registry() -> Iterator[PluginRegistry]:
    fresh = PluginRegistry(group="toolscout-tests-no-such-group")
    yield fresh
    for plugin in list(fresh._pm.list_name_plugin()):
        fresh.unregister_plugin(plugin[0])


def test_a_plugin_registers_a_backend_through_the_hook(registry: PluginRegistry) -> None:
    registry.register_plugin(plugin_module("echo_plugin", register_backends=registers(EchoIndex)))
    entry = registry.backend("echo")
    assert entry.cls is EchoIndex
    assert entry.plugin == "echo_plugin"


def test_a_plugin_may_register_several_backends(registry: PluginRegistry) -> None:
    class OtherIndex(EchoIndex):
        name: ClassVar[str] = "other"

    registry.register_plugin(
        plugin_module("two", register_backends=registers(EchoIndex, OtherIndex))
    )
    assert sorted(registry.backends()) == ["echo", "other"]


def test_a_plugin_registered_under_a_name_is_recorded_with_it(registry: PluginRegistry) -> None:
    registry.register_plugin(plugin_module("m", register_backends=registers(EchoIndex)), "mine")
    assert registry.backend("echo").plugin == "mine"


def test_unregistering_a_plugin_removes_its_backends(registry: PluginRegistry) -> None:
    registry.register_plugin(plugin_module("p", register_backends=registers(EchoIndex)))
    registry.unregister_plugin("p")
    with pytest.raises(UnknownBackendError):
        registry.backend("echo")


def test_a_misspelled_hook_fails_at_registration(registry: PluginRegistry) -> None:
    typo = plugin_module("typo_plugin", register_backend=registers(EchoIndex))
    with pytest.raises(PluginLoadError) as caught:
        registry.register_plugin(typo)
    message = str(caught.value)
    assert "'typo_plugin'" in message
    assert "register_backend" in message
    known = ", ".join(sorted(spec.__name__ for spec in hookspecs()))
    assert f"Known hooks: {known}" in message


def test_a_misspelled_hook_leaves_the_plugin_unregistered(registry: PluginRegistry) -> None:
    typo = plugin_module("typo_plugin", register_backend=registers(EchoIndex))
    with pytest.raises(PluginLoadError):
        registry.register_plugin(typo)
    assert registry._pm.get_plugin("typo_plugin") is None
    registry.register_plugin(plugin_module("ok", register_backends=registers(EchoIndex)))
    assert registry.backend("echo").cls is EchoIndex


def test_a_hook_with_a_wrong_argument_name_fails_at_registration(
    registry: PluginRegistry,
) -> None:
    def register_backends(callback: Callable[[type[Any]], None]) -> None:
        callback(EchoIndex)

    bad = plugin_module("bad_args", register_backends=register_backends)
    with pytest.raises(PluginLoadError, match="bad signature"):
        registry.register_plugin(bad)


def test_a_backend_class_without_a_name_is_a_plugin_error(registry: PluginRegistry) -> None:
    class Nameless:
        pass

    nameless = plugin_module("nameless", register_backends=registers(Nameless))
    with pytest.raises(PluginLoadError, match="without a `name`"):
        registry.register_plugin(nameless)


def test_a_plugin_that_fails_to_register_leaves_nothing_behind(registry: PluginRegistry) -> None:
    class Nameless:
        pass

    half = plugin_module("half", register_backends=registers(EchoIndex, Nameless))
    with pytest.raises(PluginLoadError):
        registry.register_plugin(half)
    assert registry._pm.get_plugin("half") is None
    with pytest.raises(UnknownBackendError):
        registry.backend("echo")


def test_an_unknown_backend_lists_the_installed_backends(registry: PluginRegistry) -> None:
    registry.register_plugin(plugin_module("p", register_backends=registers(EchoIndex)))
    with pytest.raises(
        UnknownBackendError, match="unknown backend 'nope'; installed backends: echo"
    ):
        registry.backend("nope")


def test_an_unknown_backend_with_nothing_installed_says_none(registry: PluginRegistry) -> None:
    with pytest.raises(UnknownBackendError, match="installed backends: none"):
        registry.backend("nope")


@pytest.mark.parametrize(("name", "distribution"), sorted(FIRST_PARTY.items()))
def test_an_uninstalled_first_party_backend_gives_the_pip_install_line(
    registry: PluginRegistry, name: str, distribution: str
) -> None:
    with pytest.raises(UnknownBackendError, match=f"install it with: pip install {distribution}$"):
        registry.backend(name)


def test_first_party_backends_install_as_toolscout_distributions() -> None:
    for name in ("regex", "duckdb", "lancedb", "tantivy"):
        assert FIRST_PARTY[name] == f"toolscout-{name}"


def test_a_misspelled_backend_name_gets_a_suggestion(registry: PluginRegistry) -> None:
    registry.register_plugin(plugin_module("p", register_backends=registers(EchoIndex)))
    with pytest.raises(UnknownBackendError, match="did you mean 'echo'"):
        registry.backend("ecoh")


def test_an_unknown_backend_error_is_a_lookup_error(registry: PluginRegistry) -> None:
    with pytest.raises(LookupError):
        registry.backend("nope")


def test_the_registry_finds_no_entry_points_in_an_empty_group(registry: PluginRegistry) -> None:
    assert registry.entry_points() == {}
    assert registry.backends() == {}
    assert registry.failures == {}


# --- embedders ---------------------------------------------------------------------------


class TinyEmbedder:
    """A throwaway embedder class; only its `name` matters to the registry."""

    name: ClassVar[str] = "tiny"


def test_a_plugin_registers_an_embedder_through_the_hook(registry: PluginRegistry) -> None:
    def register_embedders(register: Callable[[type[Any]], None]) -> None:
        register(TinyEmbedder)

    registry.register_plugin(plugin_module("emb", register_embedders=register_embedders))
    assert registry.embedder("tiny").cls is TinyEmbedder
    assert "tiny" not in registry.backends()


def test_an_unknown_embedder_gives_the_pip_install_line_for_first_party_ones(
    registry: PluginRegistry,
) -> None:
    with pytest.raises(toolscout.UnknownEmbedderError) as caught:
        registry.embedder("sentence-transformers")
    message = str(caught.value)
    assert message.startswith("unknown embedder 'sentence-transformers'")
    assert message.endswith("pip install toolscout-sentence-transformers")


# --- hook specifications stay documented -------------------------------------------------


def hookspecs() -> list[Callable[..., Any]]:
    from toolscout import hookspecs as module

    return [
        getattr(module, name)
        for name in dir(module)
        if hasattr(getattr(module, name), "toolscout_spec")
    ]


def test_there_are_hook_specifications() -> None:
    assert {spec.__name__ for spec in hookspecs()} >= {"register_backends", "register_embedders"}


@pytest.mark.parametrize("spec", hookspecs(), ids=lambda spec: spec.__name__)
def test_every_hook_documents_each_argument_and_its_version(spec: Callable[..., Any]) -> None:
    import inspect

    doc = inspect.getdoc(spec) or ""
    for argument in inspect.signature(spec).parameters:
        assert f":param {argument}:" in doc
    assert ".. versionadded::" in doc


def test_a_hook_that_raises_is_a_plugin_error_naming_the_cause(registry: PluginRegistry) -> None:
    def register_backends(register: Callable[[type[Any]], None]) -> None:
        raise ModuleNotFoundError("No module named 'heavy_dependency'")

    failing = plugin_module("failing_hook", register_backends=register_backends)
    with pytest.raises(PluginLoadError) as caught:
        registry.register_plugin(failing)
    message = str(caught.value)
    assert "'failing_hook'" in message
    assert "ModuleNotFoundError: No module named 'heavy_dependency'" in message
    assert registry._pm.get_plugin("failing_hook") is None
