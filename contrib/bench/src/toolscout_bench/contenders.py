"""What a benchmark run measures: every installed backend plus the two references.

A backend that cannot be listed, built or run is skipped with a printed reason; the others
carry on.
"""

from __future__ import annotations

import difflib
import importlib.metadata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolscout.index import ToolIndex

from toolscout_bench.references import REFERENCES

__all__ = ["Contender", "Skip", "check_names", "discover", "threshold_field", "validate_options"]

Kind = Literal["backend", "reference"]


@dataclass(frozen=True)
class Skip:
    """A backend left out of (part of) a run, and why.

    `failed` tells a failure (an error, a crash, a plugin that did not load) from a step
    left out to keep the run within its time and memory limits.
    """

    name: str
    stage: str
    reason: str
    failed: bool = True

    def to_dict(self) -> dict[str, str | bool]:
        return {
            "name": self.name,
            "stage": self.stage,
            "reason": self.reason,
            "failed": self.failed,
        }


@dataclass(frozen=True)
class Contender:
    """One backend or reference: how to build it, and what it is."""

    name: str
    kind: Kind
    distribution: str
    version: str
    options: Mapping[str, Any] = field(default_factory=dict)
    min_score: bool = False
    #: The registered backend, when the contender's name is another (`postgres-hybrid`).
    backend: str | None = None
    #: An option given a new value on every build, for backends whose indexes live in a
    #: shared server: each build gets its own (empty) index there (e.g. `schema`).
    fresh_option: str | None = None
    #: The server the run started for this contender (the report names it instead of a
    #: `dsn` that stops working when the run ends).
    server: str | None = None

    @property
    def label(self) -> str:
        return f"{self.name} (reference)" if self.kind == "reference" else self.name

    @property
    def plugin(self) -> str:
        """The backend's registered name."""
        return self.backend or self.name

    def build(self, **overrides: Any) -> ToolIndex:
        """A fresh, empty index of this backend with its options (plus `overrides`).

        Configuration files and `TOOLSCOUT_*` variables are not read: a run measures each
        backend's defaults plus the options given on the command line, so it is repeatable.
        """
        options = {**self.options, **overrides}
        if self.fresh_option is not None:
            import uuid

            options[self.fresh_option] = f"bench_{uuid.uuid4().hex[:12]}"
        if self.kind == "reference":
            index: ToolIndex = REFERENCES[self.name](**options)
            return index
        from toolscout.loading import build
        from toolscout.plugins import registry

        built: ToolIndex = build(registry.backend(self.plugin), options)
        return built

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "distribution": self.distribution,
            "version": self.version,
            "options": dict(self.options),
            "min_score": self.min_score,
            "backend": self.backend,
            "fresh_option": self.fresh_option,
            "server": self.server,
        }


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def threshold_field(cls: type[Any]) -> str | None:
    """The option a min-score backend takes its threshold in (`min_score`, `min_similarity`…)."""
    model = getattr(cls, "Options", None)
    fields: Mapping[str, Any] = getattr(model, "model_fields", {})
    for preferred in ("min_score", "min_similarity"):
        if preferred in fields:
            return preferred
    return next((name for name in fields if name.startswith("min_")), None)


def check_names(names: Sequence[str]) -> None:
    """Raise `UnknownBackendError` (one line) for names that are neither an installed backend,
    a plugin that failed to load, nor a reference."""
    from toolscout.errors import UnknownBackendError
    from toolscout.plugins import install_hint, registry

    installed = registry.backends()
    failed = registry.failures
    unknown = [n for n in names if n not in installed and n not in failed and n not in REFERENCES]
    if not unknown:
        return
    parts = [
        f"unknown backend{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}",
        f"installed backends: {', '.join(sorted(installed)) or 'none'}",
        f"the references {' and '.join(REFERENCES)} always run",
    ]
    for name in unknown:
        hint = install_hint(name)
        if hint is not None:
            parts.append(f"{name}: {hint}")
        else:
            close = difflib.get_close_matches(name, [*installed, *REFERENCES], n=1)
            if close:
                parts.append(f"did you mean {close[0]!r}?")
    raise UnknownBackendError("; ".join(parts))


def validate_options(name: str, options: Mapping[str, Any]) -> None:
    """Raise `ConfigError` when `options` do not fit backend `name`'s `Options` model."""
    from pydantic import ValidationError
    from toolscout.config import format_validation_error
    from toolscout.errors import ConfigError
    from toolscout.plugins import registry

    model = getattr(registry.backend(name).cls, "Options", None)
    if model is None or not hasattr(model, "model_validate"):
        return
    try:
        model.model_validate(dict(options))
    except ValidationError as error:
        raise ConfigError(
            format_validation_error(error, f"option of backend {name}", model)
        ) from None


def discover(
    only: Sequence[str] | None,
    options: Mapping[str, Mapping[str, Any]],
) -> tuple[list[Contender], list[Skip]]:
    """The installed backends (or the `only` ones) and the references, with what was skipped.

    `options` maps a backend name to the options to build it with. A plugin that failed to
    load is skipped with its error; a name that is not installed at all raises
    `UnknownBackendError` (see `check_names`).
    """
    from toolscout.plugins import registry

    installed = registry.backends()
    wanted = list(dict.fromkeys(only)) if only else sorted(installed)
    check_names(wanted)
    skips = [
        Skip(
            failure.plugin,
            "load",
            f"plugin from {failure.distribution} failed to load: "
            f"{type(failure.error).__name__}: {failure.error}",
        )
        for failure in registry.failures.values()
        if not only or failure.plugin in wanted
    ]
    contenders: list[Contender] = []
    for name in wanted:
        entry = installed.get(name)
        if entry is None:  # a reference, or a plugin that failed to load (skipped above)
            continue
        capabilities = getattr(entry.cls, "capabilities", None)
        contenders.append(
            Contender(
                name=name,
                kind="backend",
                distribution=entry.distribution,
                version=entry.version or _version(entry.distribution),
                options=dict(options.get(name, {})),
                min_score=bool(getattr(capabilities, "min_score", False))
                and threshold_field(entry.cls) is not None,
            )
        )
    for name in REFERENCES:
        distribution = "bm25s" if name == "bm25s" else "toolscout-bench"
        contenders.append(Contender(name, "reference", distribution, _version(distribution)))
    return contenders, skips
