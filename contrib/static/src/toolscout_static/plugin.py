"""The toolscout plugin module of `toolscout-static` (entry point `static`): the `static`
embedder. Kept light: numpy and the model load only when the embedder is used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_embedders(register: Callable[[type[Any]], None]) -> None:
    """Register the `static` embedder."""
    from toolscout_static.embedder import StaticEmbedder

    register(StaticEmbedder)
