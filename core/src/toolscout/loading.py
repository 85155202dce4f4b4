"""`load_index`: from a backend name (or the configured one) to a ready index."""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import BaseModel, ValidationError

from toolscout.config import Settings, format_validation_error, load_settings
from toolscout.errors import ConfigError, CoreVersionError, ToolscoutError
from toolscout.plugins import Registered, core_mismatch, registry

__all__ = ["DEFAULT_BACKEND", "build", "chosen_backend", "load_index"]

#: The backend used when none is configured, when it is installed.
DEFAULT_BACKEND = "regex"


def chosen_backend(settings: Settings) -> str:
    """The backend `load_index()` builds when no name is given: the configured one (a file,
    `TOOLSCOUT_BACKEND`, a keyword); when none is configured, `regex` if it is installed,
    else the one backend installed (an install of lancedb alone searches with lancedb).

    With none configured, regex missing and several others installed, there is no choice to
    make for the user: an `UnknownBackendError` names them and the setting that chooses.
    """
    if "backend" in settings.model_fields_set or settings.backend != DEFAULT_BACKEND:
        return settings.backend
    if DEFAULT_BACKEND in registry.entry_points():
        return DEFAULT_BACKEND  # found without importing any plugin
    installed = sorted(registry.backends())
    if DEFAULT_BACKEND in installed or not installed:
        return DEFAULT_BACKEND  # none installed: asking for it says how to install it
    if len(installed) == 1:
        return installed[0]
    from toolscout.errors import UnknownBackendError
    from toolscout.plugins import install_command

    raise UnknownBackendError(
        f"no backend is configured and the default, {DEFAULT_BACKEND!r}, is not installed; "
        f"installed backends: {', '.join(installed)}: choose one with backend = "
        f'"{installed[0]}" under [tool.toolscout] (or TOOLSCOUT_BACKEND, or --backend), or '
        f"install {DEFAULT_BACKEND} from a clone: {install_command(DEFAULT_BACKEND)}"
    )


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
    try:
        return cls(**options)  # an index's base validates them: a ConfigError naming the key
    except ToolscoutError:
        raise
    except Exception as error:
        # A class made for another core can fail on what that core lacks: say so instead.
        mismatch = core_mismatch(entry.plugin, entry.distribution)
        if mismatch is not None:
            raise CoreVersionError(f"{kind} {entry.name!r} cannot be built: {mismatch}") from error
        raise


def load_index(name: str | None = None, *, settings: Settings | None = None, **options: Any) -> Any:
    """Build a ready `ToolIndex`.

    `name=None` uses the configured backend (`backend` in config; none configured: `regex`,
    or the only backend installed when regex is not: `chosen_backend`). Keyword options
    override the backend's table in config (`[tool.toolscout.backends.NAME]`).
    """
    settings = settings if settings is not None else load_settings()
    name = name or chosen_backend(settings)
    entry = registry.backend(name)
    merged = {**settings.backend_options(name), **options}
    return build(entry, merged)
