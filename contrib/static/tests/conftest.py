"""Shared fixtures: the default model's files from the installed wordllama wheel, the real
Hugging Face tokenizer to compare with, and texts to compare on (the evaluation catalogs
when ../shared/eval is there). Nothing downloads; toolscout's caches live in a directory of
this test run."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from static_support import catalog_texts

os.environ["HF_HUB_OFFLINE"] = "1"
_CACHE = Path(tempfile.mkdtemp(prefix="toolscout-static-tests-"))
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
os.environ["XDG_CACHE_HOME"] = str(_CACHE)
for _key in [
    k for k in os.environ if k.upper().startswith("TOOLSCOUT_") and k != "TOOLSCOUT_EVAL_DATA"
]:
    del os.environ[_key]


@pytest.fixture(scope="session")
def catalog() -> list[str]:
    texts = catalog_texts()
    if not texts:
        pytest.skip("no evaluation data: add ../shared/eval or set TOOLSCOUT_EVAL_DATA")
    return texts


@pytest.fixture(scope="session")
def model_files() -> Any:
    """The default model's files in the installed wordllama wheel (a test dependency)."""
    from toolscout_static import find_model

    return find_model()


@pytest.fixture(scope="session")
def hf_tokenizer(model_files: Any) -> Any:
    """Hugging Face's own tokenizer of the model, to compare with."""
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(model_files.tokenizer))


@pytest.fixture(scope="session")
def weights64(model_files: Any) -> np.ndarray:
    """The embedding matrix as float64, for reference means."""
    from toolscout.safetensors import read_safetensors

    return read_safetensors(model_files.weights)["embedding.weight"].astype(np.float64)


@pytest.fixture(scope="session")
def embedder() -> Any:
    """The default static embedder, loaded."""
    from toolscout_static import StaticEmbedder

    embedder = StaticEmbedder()
    embedder.warm_up()
    return embedder
