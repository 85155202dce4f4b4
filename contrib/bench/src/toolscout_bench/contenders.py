"""What a benchmark run measures: every installed backend plus the two references.

A backend that cannot be listed, built or run is skipped with a printed reason; the others
carry on.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolscout.index import ToolIndex

from toolscout_bench.references import REFERENCES

__all__ = ["Contender", "Skip", "discover", "threshold_field"]

Kind = Literal["backend", "reference"]


@dataclass(frozen=True)
class Skip:
    """A backend left out of (part of) a run, and why."""

    name: str
    stage: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "stage": self.stage, "reason": self.reason}


@dataclass(frozen=True)
class Contender:
    """One backend or reference: how to build it, and what it is."""

    name: str
    kind: Kind
    distribution: str
    version: str
    options: Mapping[str, Any] = field(default_factory=dict)
    min_score: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} (reference)" if self.kind == "reference" else self.name

    def build(self, **overrides: Any) -> ToolIndex:
        """A fresh, empty index of this backend with its options (plus `overrides`)."""
        options = {**self.options, **overrides}
        if self.kind == "reference":
            index: ToolIndex = REFERENCES[self.name](**options)
            return index
        from toolscout.loading import load_index

        built: ToolIndex = load_index(self.name, **options)
        return built

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "distribution": self.distribution,
            "version": self.version,
            "options": dict(self.options),
            "min_score": self.min_score,
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


def discover(
    only: Sequence[str] | None,
    options: Mapping[str, Mapping[str, Any]],
) -> tuple[list[Contender], list[Skip]]:
    """The installed backends (or the `only` ones) and the references, with what was skipped.

    `options` maps a backend name to the options to build it with.
    """
    from toolscout.plugins import registry

    skips: list[Skip] = []
    installed = registry.backends()
    for failure in registry.failures.values():
        skips.append(
            Skip(
                failure.plugin,
                "load",
                f"plugin from {failure.distribution} failed to load: "
                f"{type(failure.error).__name__}: {failure.error}",
            )
        )
    contenders: list[Contender] = []
    wanted = list(only) if only else sorted(installed)
    for name in wanted:
        if name in REFERENCES:
            continue
        entry = installed.get(name)
        if entry is None:
            skips.append(Skip(name, "load", "not installed (toolscout backends lists them)"))
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
