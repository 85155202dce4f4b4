"""The toolscout plugin module of `toolscout-lancedb` (entry point `lancedb`).

Kept light: lancedb is imported only when the backend class is instantiated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    """Register the `lancedb` backend."""
    from toolscout_lancedb.index import LanceDBToolIndex

    register(LanceDBToolIndex)
