"""The toolscout plugin module of `toolscout-onnx` (entry point `onnx`): the `onnx`
embedder, and its built models' folder in the cache directory (for `toolscout cache`).
Kept light: ONNX Runtime, tokenizers and numpy load only when the embedder is used."""

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
def register_cache_folders(register: Callable[[str, str], None]) -> None:
    """`<cache>/onnx`: the graphs built from model weights (`toolscout_onnx.build`)."""
    register("onnx", "built ONNX models")
