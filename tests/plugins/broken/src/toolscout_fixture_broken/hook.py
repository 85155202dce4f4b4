"""A plugin that imports fine but whose hook fails, as when the backend's dependency is
missing and the hook imports the backend lazily (the recommended plugin shape)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    import fixture_missing_backend_dependency  # type: ignore[import-not-found]  # noqa: F401
