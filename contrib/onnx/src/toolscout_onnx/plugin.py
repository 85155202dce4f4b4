"""The toolscout plugin module of `toolscout-onnx` (entry point `onnx`): the `onnx`
embedder and the `toolscout cache` command. Kept light: ONNX Runtime, tokenizers and numpy
load only when the embedder is used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_embedders(register: Callable[[type[Any]], None]) -> None:
    """Register the `onnx` embedder."""
    from toolscout_onnx.embedder import OnnxEmbedder

    register(OnnxEmbedder)


@toolscout.hookimpl
def register_commands(subparsers: Any) -> None:
    """Add `toolscout cache show|clear`."""
    from toolscout_onnx.command import add_commands

    add_commands(subparsers)
