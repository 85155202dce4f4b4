"""A sentence-transformers model run by ONNX Runtime: about twice as fast as torch on CPU.

The model's transformer is exported once with `torch.onnx` (the dynamo exporter, with
dynamic batch and sequence axes), optionally quantized to int8 weights, and kept in a
cache directory under a key of the model's files and the library versions; later processes load
the file and skip the export. The model's own tokenizer prepares the input; pooling and
normalisation, the only modules supported after the transformer, are done in numpy.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import io
import json
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolscout import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["OnnxEncoder", "default_cache_dir"]

_POOLING = ("mean", "cls", "max")
# Libraries whose versions change what the export writes.
_VERSIONED = ("torch", "transformers", "sentence-transformers", "onnx", "onnxruntime")
# Loggers that report every step of an export; an application logging at INFO sees hundreds.
_EXPORT_LOGGERS = ("torch", "onnx_ir", "onnxscript")
_MIB = 1 << 20
_WHOLE_FILE_LIMIT = 4 * _MIB


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/toolscout/onnx`, else `~/.cache/toolscout/onnx`."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "toolscout" / "onnx"


def _pooling_mode(module: Any) -> str:
    mode = getattr(module, "pooling_mode", None)  # sentence-transformers 5.2 and later
    if mode is None:
        flags = {
            "mean": "pooling_mode_mean_tokens",
            "cls": "pooling_mode_cls_token",
            "max": "pooling_mode_max_tokens",
        }
        chosen = [name for name, flag in flags.items() if getattr(module, flag, False)]
        mode = chosen[0] if len(chosen) == 1 else None
    if mode not in _POOLING:
        raise ConfigError(
            f"the onnx backend supports mean, cls or max pooling, not {mode!r}; "
            "set the embedder option backend = 'torch' for this model"
        )
    return str(mode)


def _layout(model: Any) -> tuple[str, bool]:
    """The pooling mode and whether vectors are normalised, from the model's modules."""
    kinds = [type(module).__name__ for module in model]
    if kinds[:2] != ["Transformer", "Pooling"] or kinds[2:] not in ([], ["Normalize"]):
        raise ConfigError(
            f"the onnx backend runs models made of Transformer, Pooling and an optional "
            f"Normalize module; this one has {kinds}. Set backend = 'torch' for it"
        )
    return _pooling_mode(model[1]), kinds[2:] == ["Normalize"]


def _digest(file: Path) -> str:
    """The file's content hash; for a large file (the weights), its size and the hash of
    its first and last MiB, which differ between any two trainings and cost no time."""
    digest = hashlib.blake2b(digest_size=16)
    size = file.stat().st_size
    with file.open("rb") as handle:
        if size <= _WHOLE_FILE_LIMIT:
            digest.update(handle.read())
        else:
            digest.update(str(size).encode())
            digest.update(handle.read(_MIB))
            handle.seek(-_MIB, os.SEEK_END)
            digest.update(handle.read(_MIB))
    return digest.hexdigest()


def _cache_key(source: str, quantize: bool) -> str:
    path = Path(source)
    fingerprint: dict[str, Any] = {"quantize": quantize}
    if path.is_dir():
        # A local model is known by its files' contents, not its path, so the same model
        # installed in another virtual environment reuses the export.
        fingerprint["files"] = sorted(
            (str(f.relative_to(path)), _digest(f))
            for f in path.rglob("*")
            if f.is_file() and "__pycache__" not in f.parts
        )
    else:
        fingerprint["source"] = source
    for package in _VERSIONED:
        try:
            fingerprint[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            fingerprint[package] = None
    digest = hashlib.sha256(json.dumps(fingerprint, sort_keys=True).encode()).hexdigest()
    return digest[:24]


def _export(model: Any, names: list[str], target: Path) -> None:
    """Write the model's transformer as ONNX to `target` (a file not yet in place)."""
    import torch

    class Encoder(torch.nn.Module):
        """The transformer with positional tensor inputs, as the exporter wants them."""

        def __init__(self, transformer: Any) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor | None = None,
        ) -> torch.Tensor:
            extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
            output = self.transformer(input_ids=input_ids, attention_mask=attention_mask, **extra)
            return output.last_hidden_state  # type: ignore[no-any-return]

    # Two texts of different lengths, so the traced graph has padding and a real mask.
    sample = model.tokenizer(
        ["an example text", "a second, longer example text to pad the first"],
        padding=True,
        return_tensors="pt",
    )
    batch, length = torch.export.Dim("batch"), torch.export.Dim("length", max=8192)
    transformer = model[0].auto_model.eval()
    # The exporter prints its progress, warns and logs at length: keep stdout clean for --json.
    with contextlib.ExitStack() as quiet:
        quiet.enter_context(contextlib.redirect_stdout(io.StringIO()))
        quiet.enter_context(contextlib.redirect_stderr(io.StringIO()))
        quiet.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        for name in _EXPORT_LOGGERS:
            quiet.enter_context(_level(logging.getLogger(name), logging.ERROR))
        quiet.enter_context(torch.no_grad())
        torch.onnx.export(
            Encoder(transformer),
            tuple(sample[name] for name in names),
            str(target),
            input_names=names,
            output_names=["token_embeddings"],
            dynamic_shapes={name: {0: batch, 1: length} for name in names},
            dynamo=True,
            external_data=False,
            verbose=False,
        )


@contextlib.contextmanager
def _level(logger: logging.Logger, level: int) -> Iterator[None]:
    previous = logger.level
    logger.setLevel(level)
    try:
        yield
    finally:
        logger.setLevel(previous)


def _quantize(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # It logs an advice on the root logger, which an application's handlers would show.
    def not_onnxruntime(record: logging.LogRecord) -> bool:
        return "onnxruntime" not in Path(record.pathname).parts

    root = logging.getLogger()
    root.addFilter(not_onnxruntime)
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)
    finally:
        root.removeFilter(not_onnxruntime)


class OnnxEncoder:
    """Token embeddings from ONNX Runtime, pooled and normalised like the model would."""

    def __init__(
        self,
        model: Any,
        source: str,
        *,
        quantize: bool = False,
        threads: int | None = None,
        cache_dir: str | Path | None = None,
    ) -> None:
        import onnxruntime as ort

        self.pooling, self.normalize = _layout(model)
        self.tokenizer = model.tokenizer
        # Fast tokenizers set truncation and padding state per call: one caller at a time.
        self._tokenizer_lock = threading.Lock()
        self.max_length = int(model.max_seq_length)
        probe = self.tokenizer(["probe"], return_tensors="np")
        self.names = [
            name for name in ("input_ids", "attention_mask", "token_type_ids") if name in probe
        ]
        folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.path = folder / _cache_key(source, quantize) / "model.onnx"
        if not self.path.is_file():
            self._build(model, quantize)
        options = ort.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Idle worker threads would spin for a while after each run, taking the cores from
        # whatever follows (a search's LanceDB queries: 3 to 5 ms slower with spinning).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(
            str(self.path), options, providers=["CPUExecutionProvider"]
        )

    def _build(self, model: Any, quantize: bool) -> None:
        """Export (and quantize) into a temporary file, then move it into place, so a
        process reading the cache never sees half a model."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.path.parent) as scratch:
            exported = Path(scratch) / "model.onnx"
            try:
                _export(model, self.names, exported)
            except Exception as error:  # the exporter raises many kinds
                first_line = (str(error).strip().splitlines() or [""])[0]
                raise ConfigError(
                    f"could not export the model to ONNX ({type(error).__name__}: "
                    f"{first_line}); set the embedder option backend = 'torch'"
                ) from error
            if quantize:
                quantized = Path(scratch) / "model.int8.onnx"
                _quantize(exported, quantized)
                exported = quantized
            os.replace(exported, self.path)

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Sentence vectors for one batch of texts."""
        import numpy as np

        with self._tokenizer_lock:
            features = self.tokenizer(
                list(texts),
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="np",
            )
        feed = {name: features[name].astype(np.int64) for name in self.names}
        (tokens,) = self.session.run(None, feed)
        mask = feed["attention_mask"][..., None].astype(np.float32)
        if self.pooling == "mean":
            vectors = (tokens * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        elif self.pooling == "cls":
            vectors = tokens[:, 0]
        else:
            vectors = np.where(mask > 0, tokens, -np.inf).max(axis=1)
        if self.normalize:
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.maximum(norms, 1e-12)
        return np.ascontiguousarray(vectors, dtype=np.float32)
