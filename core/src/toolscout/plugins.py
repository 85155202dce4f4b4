"""Finding, loading and registering plugins.

Plugins are named by entry points in the `toolscout` group; the entry point's name is the
plugin's name, which for a backend plugin is the backend's name. Nothing is imported until
it is needed: asking for backend `duckdb` loads the `duckdb` entry point through stevedore
and no other plugin. A plugin that fails to import is recorded with its distribution and
error, and the others keep working.
"""

from __future__ import annotations

import difflib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

import pluggy

from toolscout import hookspecs
from toolscout.errors import PluginLoadError, UnknownBackendError, UnknownEmbedderError

__all__ = [
    "ENTRY_POINT_GROUP",
    "FIRST_PARTY",
    "PluginFailure",
    "PluginRegistry",
    "Registered",
    "registry",
]

log = logging.getLogger(__name__)
# A library must not print on its own: without this, Python's last-resort handler writes each
# plugin failure to stderr, doubling the CLI's one-line error. Failures stay in `failures`,
# in error messages, and in the log of any application that configures logging.
log.addHandler(logging.NullHandler())

ENTRY_POINT_GROUP = "toolscout"

#: First-party plugins by the name they register under, with the distribution to install.
FIRST_PARTY: dict[str, str] = {
    "regex": "toolscout-regex",
    "duckdb": "toolscout-duckdb",
    "tantivy": "toolscout-tantivy",
    "lancedb": "toolscout-lancedb",
    "sentence-transformers": "toolscout-sentence-transformers",
    "openai": "toolscout-openai",
    "mcp": "toolscout-mcp",
}


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that could not be imported: which one, from where, and why."""

    plugin: str
    distribution: str
    error: BaseException

    def __str__(self) -> str:
        return (
            f"plugin {self.plugin!r} from distribution {self.distribution} failed to load: "
            f"{type(self.error).__name__}: {self.error}"
        )


@dataclass(frozen=True)
class Registered:
    """A backend or embedder class with the plugin and distribution that registered it."""

    name: str
    cls: type[Any]
    plugin: str
    distribution: str
    version: str


class PluginRegistry:
    """One pluggy plugin manager plus what its plugins have registered.

    Entry points are discovered on first use and loaded one by one as names are asked for;
    `load_all()` loads every remaining one (for listings and error messages).
    """

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self.group = group
        self._lock = threading.RLock()
        self._pm = pluggy.PluginManager("toolscout")
        self._pm.add_hookspecs(hookspecs)
        self._entry_points: dict[str, metadata.EntryPoint] | None = None
        self._loaded: set[str] = set()
        self._failures: dict[str, PluginFailure] = {}
        self._backends: dict[str, Registered] = {}
        self._embedders: dict[str, Registered] = {}

    # --- discovery -------------------------------------------------------------------

    def entry_points(self) -> dict[str, metadata.EntryPoint]:
        """Installed plugins by name, without importing any of them."""
        if self._entry_points is None:
            found = metadata.entry_points(group=self.group)
            self._entry_points = {ep.name: ep for ep in found}
        return self._entry_points

    @staticmethod
    def _distribution(ep: metadata.EntryPoint) -> tuple[str, str]:
        dist = getattr(ep, "dist", None)
        if dist is None:
            return ("unknown distribution", "")
        return (dist.metadata["Name"] or dist.name, dist.version)

    # --- loading ---------------------------------------------------------------------

    def _load(self, names: list[str]) -> None:
        """Import the named entry points through stevedore and register their hooks."""
        names = [n for n in names if n not in self._loaded and n in self.entry_points()]
        if not names:
            return
        from stevedore import NamedExtensionManager

        def on_failure(_manager: object, ep: metadata.EntryPoint, error: BaseException) -> None:
            # stevedore hands over entry points rebuilt from its cache, without `dist`;
            # ours, from importlib.metadata, know their distribution.
            ep = self.entry_points().get(ep.name, ep)
            distribution, _version = self._distribution(ep)
            failure = PluginFailure(ep.name, distribution, error)
            self._failures[ep.name] = failure
            log.warning("%s", failure)

        manager: NamedExtensionManager[Any] = NamedExtensionManager(
            namespace=self.group,
            names=names,
            invoke_on_load=False,
            on_load_failure_callback=on_failure,
        )
        self._loaded.update(names)
        for extension in manager.extensions:
            ep = self.entry_points().get(extension.name, extension.entry_point)
            try:
                self._register_module(extension.plugin, extension.name, ep)
            except PluginLoadError as error:
                # Recorded, not raised: asking for this plugin's backend raises it, while
                # the other plugins keep working.
                cause = error.__cause__
                reason: BaseException = error
                if isinstance(cause, Exception) and not isinstance(
                    cause, pluggy.PluginValidationError
                ):
                    reason = cause  # the hook's own error, e.g. a missing dependency
                failure = PluginFailure(extension.name, self._distribution(ep)[0], reason)
                self._failures[extension.name] = failure
                log.warning("%s", failure)

    def _register_module(
        self, module: ModuleType | object, plugin: str, ep: metadata.EntryPoint | None
    ) -> None:
        distribution, version = self._distribution(ep) if ep is not None else ("local", "")
        try:
            self._pm.register(module, name=plugin)
            # A misspelled hook name (register_backend) fails here, at start-up.
            self._pm.check_pending()
        except pluggy.PluginValidationError as error:
            self._pm.unregister(name=plugin)
            raise PluginLoadError(
                f"plugin {plugin!r} from distribution {distribution} implements an unknown "
                f"hook or a bad signature: {error}. Known hooks: "
                + ", ".join(sorted(n for n in dir(hookspecs) if n.startswith("register_")))
            ) from error
        caller = self._pm.subset_hook_caller
        others = [p for p in self._pm.get_plugins() if p is not module]

        def collect(table: dict[str, Registered], kind: str) -> Callable[[type[Any]], None]:
            def register(cls: type[Any]) -> None:
                name = getattr(cls, "name", None)
                if not isinstance(name, str) or not name:
                    raise PluginLoadError(
                        f"plugin {plugin!r} registered {kind} {cls!r} without a `name` "
                        "class attribute"
                    )
                table[name] = Registered(name, cls, plugin, distribution, version)

            return register

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
            raise PluginLoadError(str(PluginFailure(plugin, distribution, error))) from error

    def register_plugin(self, module: ModuleType | object, name: str | None = None) -> None:
        """Register a plugin object directly (tests, applications with in-code plugins)."""
        with self._lock:
            plugin = name or getattr(module, "__name__", None) or repr(module)
            self._register_module(module, plugin, None)
            self._loaded.add(plugin)

    def unregister_plugin(self, name: str) -> None:
        """Remove a plugin registered with `register_plugin` and what it registered."""
        with self._lock:
            self._forget(name)

    def _forget(self, name: str) -> None:
        if self._pm.get_plugin(name) is not None:
            self._pm.unregister(name=name)
        self._loaded.discard(name)
        for table in (self._backends, self._embedders):
            for key in [k for k, v in table.items() if v.plugin == name]:
                del table[key]

    def load_all(self) -> None:
        with self._lock:
            self._load(list(self.entry_points()))

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
                raise PluginLoadError(str(self._failures[name]))
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
        close = difflib.get_close_matches(name, [*installed, *FIRST_PARTY], n=1)
        if name in FIRST_PARTY:
            lines.append(f"install it with: pip install {FIRST_PARTY[name]}")
        elif close:
            lines.append(f"did you mean {close[0]!r}?")
        for failure in self._failures.values():
            lines.append(f"note: {failure}")
        error = UnknownBackendError if kind == "backend" else UnknownEmbedderError
        return error("; ".join(lines))


#: The process-wide registry used by `load_index`, `load_embedder` and the CLI.
registry = PluginRegistry()
