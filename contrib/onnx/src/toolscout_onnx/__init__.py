"""Torch-free embedder for toolscout (`embedder = "onnx"`): sentence-transformers models run
by ONNX Runtime, from a local directory, an installed package's files or the Hugging Face
hub. Importing this package imports neither ONNX Runtime nor numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_onnx.embedder import OnnxEmbedder, OnnxOptions
    from toolscout_onnx.sources import DEFAULT_MODEL, find_model

__all__ = ["DEFAULT_MODEL", "OnnxEmbedder", "OnnxOptions", "find_model"]

_HOMES = {
    "OnnxEmbedder": "toolscout_onnx.embedder",
    "OnnxOptions": "toolscout_onnx.embedder",
    "DEFAULT_MODEL": "toolscout_onnx.sources",
    "find_model": "toolscout_onnx.sources",
}

__getattr__ = lazy_attributes(__name__, _HOMES)
