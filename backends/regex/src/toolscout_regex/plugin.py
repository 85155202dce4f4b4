"""The toolscout plugin of this distribution: registers the `regex` backend.

Kept import-light: the backend module (and the `regex` module) load only when the hook runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    from toolscout_regex.index import RegexToolIndex

    register(RegexToolIndex)
