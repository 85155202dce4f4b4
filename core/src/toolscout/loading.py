"""`load_index`: from a backend name (or the configured one) to a ready index."""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import BaseModel, ValidationError

from toolscout.config import Settings, format_validation_error, load_settings
from toolscout.errors import ConfigError
from toolscout.plugins import Registered, registry

__all__ = ["build", "load_index"]


def build(entry: Registered, options: dict[str, Any], kind: str = "backend") -> Any:
    """Construct `entry`'s class from `options`, validated once against its `Options` model:
    by core's base classes for an index (they own the option vocabulary), here otherwise."""
    cls = entry.cls
    model: type[BaseModel] | None = getattr(cls, "Options", None)
    # Not imported from toolscout.index: core's bases build their hybrid ranking through
    # here (`toolscout.ranking`), and the modules would import each other.
    if model is not None and getattr(cls, "validates_options", False) is not True:
        try:
            validated = model.model_validate(options)
        except ValidationError as error:
            raise ConfigError(
                format_validation_error(error, f"option of {kind} {entry.name}", model)
            ) from None
        options = validated.model_dump()
    try:
        # Checked apart from the call, so a TypeError raised while building is not mistaken
        # for a bad option.
        inspect.signature(cls).bind(**options)
    except TypeError as error:
        raise ConfigError(f"bad options for {kind} {entry.name}: {error}") from None
    return cls(**options)  # an index's base validates them: a ConfigError naming the key


def load_index(name: str | None = None, *, settings: Settings | None = None, **options: Any) -> Any:
    """Build a ready `ToolIndex`.

    `name=None` uses the configured backend (`backend` in config, default `regex`).
    Keyword options override the backend's table in config (`[tool.toolscout.backends.NAME]`).
    """
    settings = settings if settings is not None else load_settings()
    name = name or settings.backend
    entry = registry.backend(name)
    merged = {**settings.backend_options(name), **options}
    return build(entry, merged)
