"""The plugin module: registers the `fixture_good` backend, importing it only when asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    from toolscout_fixture_good.index import FixtureIndex

    register(FixtureIndex)
