"""ONNX files built from a model's weights (or int8 copies), cached in the user cache dir.

A built file lives in `<cache_root>/onnx/<key>/model.onnx`, its weights beside it in
`model.onnx.data`; the key is a hash of the weight
and config files' contents, the pooling, the graph version and the quantization, so a model
installed in another environment reuses the file and changed weights never do. A file is
written under a temporary name and moved into place, so a process never loads half of one;
two processes building the same file at once both write the same bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolscout import ConfigError
from toolscout.embedders import cache_root

from toolscout_onnx.graph import GRAPH_VERSION, build_bert_graph
from toolscout_onnx.safetensors import read_safetensors
from toolscout_onnx.sources import ModelFiles

__all__ = ["built_model", "content_digest", "models_dir"]

_CHUNK = 8 << 20
_DIGESTS = "digests.json"


def models_dir() -> Path:
    """`<cache_root>/onnx`: the built ONNX files."""
    return cache_root() / "onnx"


def content_digest(file: Path) -> str:
    """The BLAKE2b hash of a file's whole content, remembered per (path, size, mtime) in
    the models directory so a warm start does not read the weights again."""
    stat = file.stat()
    stamp = f"{file.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    memo_path = models_dir() / _DIGESTS
    memo: dict[str, str] = {}
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads(memo_path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            memo = loaded
    if stamp in memo:
        return memo[stamp]
    digest = hashlib.blake2b(digest_size=20)
    with file.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    value = digest.hexdigest()
    memo[stamp] = value
    with contextlib.suppress(OSError):
        _write_atomically(memo_path, json.dumps(memo, indent=0).encode())
    return value


def _write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False, suffix=".tmp") as handle:
        handle.write(data)
    os.replace(handle.name, target)


@contextlib.contextmanager
def _building(target: Path) -> Iterator[Path]:
    """A scratch directory beside `target`: when the block succeeds, its files move into
    place, `target` (the ONNX file, whose presence means a complete build) last."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as folder:
            scratch = Path(folder)
            yield scratch
            for file in scratch.iterdir():
                file.chmod(0o644)  # the external data file is written owner-only
                if file.name != target.name:
                    os.replace(file, target.parent / file.name)
            os.replace(scratch / target.name, target)
    except OSError as error:
        raise ConfigError(
            f"cannot write a built model to {target.parent}: {error}; set TOOLSCOUT_CACHE_DIR "
            "to a writable directory"
        ) from None


def _quantize(source: Path, target: Path) -> None:
    """int8 weights for every MatMul, one scale per output channel; the embedding tables
    stay float32 (quantizing them too cost BFCL hit@5 more than a point for no speed)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # It logs an advice on the root logger, which an application's handlers would show.
    def not_onnxruntime(record: logging.LogRecord) -> bool:
        return "onnxruntime" not in Path(record.pathname).parts

    root = logging.getLogger()
    root.addFilter(not_onnxruntime)
    try:
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            use_external_data_format=True,
        )
    finally:
        root.removeFilter(not_onnxruntime)


def _key(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def built_model(files: ModelFiles, *, quantize: bool = False) -> tuple[Path, bool]:
    """An ONNX file for the model: its own ONNX file, or one built from safetensors (with
    pooling and normalisation inside), int8 when `quantize`. Returns the path and whether
    the graph pools by itself (output `sentence_embedding`)."""
    if files.onnx is not None:
        if not quantize:
            return files.onnx, False
        key = _key({"onnx": content_digest(files.onnx), "quantize": "int8-pc-matmul"})
        target = models_dir() / key / "model.onnx"
        if not target.is_file():
            with _building(target) as scratch:
                _quantize(files.onnx, scratch / target.name)
        return target, False
    assert files.weights is not None
    float_key = _key(
        {
            "graph": GRAPH_VERSION,
            "weights": content_digest(files.weights),
            "config": files.config,
            "pooling": files.pooling,
            "normalized": files.normalized,
        }
    )
    source = models_dir() / float_key / "model.onnx"
    if not source.is_file():
        _build(files, source)
    if not quantize:
        return source, True
    target = models_dir() / _key({"float": float_key, "quantize": "int8-pc-matmul"}) / "model.onnx"
    if not target.is_file():
        with _building(target) as scratch:
            _quantize(source, scratch / target.name)
    return target, True


def _build(files: ModelFiles, target: Path) -> None:
    import onnx

    assert files.weights is not None
    model = build_bert_graph(
        read_safetensors(files.weights),
        files.config,
        pooling=files.pooling,
        normalize=files.normalized,
    )
    with _building(target) as scratch:
        # The weights in a file of their own: ONNX Runtime maps it rather than copying
        # it out of the model's protobuf, so a session loads faster and peaks lower.
        onnx.save_model(
            model,
            str(scratch / target.name),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=target.name + ".data",
            size_threshold=1024,
        )
