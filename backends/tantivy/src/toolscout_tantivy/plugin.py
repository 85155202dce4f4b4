"""The toolscout plugin module (entry point `tantivy`): registers `TantivyToolIndex`.

Importing this module imports neither tantivy nor the index module; both load when the
backend is registered, which happens only when the `tantivy` backend is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    from toolscout_tantivy.index import TantivyToolIndex

    register(TantivyToolIndex)
