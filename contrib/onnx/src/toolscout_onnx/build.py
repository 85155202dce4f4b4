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
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolscout import ConfigError
from toolscout.embedders import cache_root
from toolscout.progress import status
from toolscout.safetensors import read_safetensors

from toolscout_onnx.graph import GRAPH_VERSION, build_bert_graph
from toolscout_onnx.sources import ModelFiles

if TYPE_CHECKING:
    import onnx

__all__ = ["built_model", "content_digest", "is_built", "models_dir", "quantize_graph"]

_CHUNK = 8 << 20
#: The int8 scheme, part of the key of a quantized file.
_SCHEME = "int8-weights-per-channel-activations-per-token-2"
#: The int8 scheme in an embedder's `model_id`: vectors of another scheme differ a little,
#: so a vector cache must not mix them (raise it with `_SCHEME`).
INT8_ID = "int8tok2"
_MS = "com.microsoft"  # ONNX Runtime's own operators
_DIGESTS = ".digests.json"


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


#: Operators whose output is at least -0.17 (GELU's minimum is -0.16997, its tanh
#: approximation's -0.17004): max(largest value, this) bounds their magnitude.
_GELU_FLOOR = 0.171
_GELU = ("BiasGelu", "FastGelu", "Gelu")


def quantize_graph(model: onnx.ModelProto) -> onnx.ModelProto:
    """int8 matrix products: each MatMul by a 2-D float weight becomes a MatMulIntegerToFloat.

    Weights get one scale per output channel (int8); activations one scale per token
    (uint8 around 128), computed as the graph runs. Per-token scales keep a text's vector
    independent of the texts batched with it (padding included), and follow BERT's large
    activations better than one scale per tensor: on short queries the vectors keep a
    cosine of 0.992 or more with float32 where ONNX Runtime's per-tensor dynamic
    quantization fell to 0.98. Attention products and embedding tables stay float32.

    Each input is quantized once however many products read it (a layer's query, key and
    value): its tokens' largest magnitudes (`ReduceMax`; of `Abs` unless the input is a
    GELU's or ReLU's output, whose lowest value is known), then one `QuantizeLinear` of the
    (tokens, features) view with a scale per row. `MatMulIntegerToFloat` applies the
    weight scales inside the integer product and the token scales after it.
    """
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
    weights = {i.name: i for i in model.graph.initializer}
    producers = {output: node.op_type for node in model.graph.node for output in node.output}
    added = [
        numpy_helper.from_array(np.array(1 / 127.0, np.float32), "q8.per_unit"),
        numpy_helper.from_array(np.array(1e-12, np.float32), "q8.tiny"),
        numpy_helper.from_array(np.array(_GELU_FLOOR, np.float32), "q8.gelu_floor"),
        numpy_helper.from_array(np.array(128, np.uint8), "q8.zero"),
        numpy_helper.from_array(np.array([-1], np.int64), "q8.flat"),
        numpy_helper.from_array(np.array([-1], np.int64), "q8.last_axis"),
    ]
    nodes = []

    def make(op: str, inputs: list[str], output: str, domain: str = "", **attributes: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], output, domain=domain, **attributes))
        return output

    def largest(value: str, output: str) -> str:
        # ReduceMax takes its axes as an attribute until opset 18, as an input from then on.
        if opset >= 18:
            return make("ReduceMax", [value, "q8.last_axis"], output, keepdims=1)
        return make("ReduceMax", [value], output, axes=[-1], keepdims=1)

    quantized: dict[str, tuple[str, str]] = {}

    def quantize_input(x: str, width: int) -> tuple[str, str]:
        """`x` as uint8 (same shape) and its scale per token (shape [..., 1])."""
        if x in quantized:
            return quantized[x]
        name = f"q8.in{len(quantized)}"
        producer = producers.get(x)
        if producer in _GELU:
            peak = make("Max", [largest(x, f"{name}.max"), "q8.gelu_floor"], f"{name}.peak")
        elif producer == "Relu":
            peak = largest(x, f"{name}.peak")
        else:
            peak = largest(make("Abs", [x], f"{name}.abs"), f"{name}.peak")
        # Per token: scale = max |x| / 127, x_q = round(x / scale) + 128 as uint8.
        raw = make("Mul", [peak, "q8.per_unit"], f"{name}.raw_scale")
        scale = make("Max", [raw, "q8.tiny"], f"{name}.scale")
        rows_shape = f"{name}.rows_shape"
        added.append(numpy_helper.from_array(np.array([-1, width], np.int64), rows_shape))
        rows = make("Reshape", [x, rows_shape], f"{name}.rows")
        per_row = make("Reshape", [scale, "q8.flat"], f"{name}.row_scale")
        zero = make(
            "ConstantOfShape",
            [make("Shape", [per_row], f"{name}.count")],
            f"{name}.zero",
            value=helper.make_tensor("zero", TensorProto.UINT8, [1], [128]),
        )
        # ONNX Runtime's own QuantizeLinear: per-axis scales at any opset of the model.
        codes = make("QuantizeLinear", [rows, per_row, zero], f"{name}.rows_q", _MS, axis=0)
        shaped = make("Reshape", [codes, make("Shape", [x], f"{name}.shape")], f"{name}.q")
        quantized[x] = (shaped, scale)
        return quantized[x]

    for node in model.graph.node:
        weight = weights.get(node.input[1]) if node.op_type == "MatMul" else None
        if weight is None or len(weight.dims) != 2 or weight.data_type != TensorProto.FLOAT:
            nodes.append(node)
            continue
        w = numpy_helper.to_array(weight).astype(np.float32)
        scale = np.maximum(np.abs(w).max(axis=0), 1e-12) / 127.0
        name = f"q8.{node.name or node.output[0]}"
        added += [
            numpy_helper.from_array(
                np.clip(np.round(w / scale), -127, 127).astype(np.int8), f"{name}.w"
            ),
            numpy_helper.from_array(scale.astype(np.float32), f"{name}.scale"),
        ]
        codes, token_scale = quantize_input(node.input[0], w.shape[0])
        nodes.append(
            helper.make_node(
                "MatMulIntegerToFloat",
                [codes, f"{name}.w", token_scale, f"{name}.scale", "q8.zero"],
                list(node.output),
                name,
                domain=_MS,
            )
        )
    used = {i for node in nodes for i in node.input}
    kept = [i for i in model.graph.initializer if i.name in used]
    kept += [i for i in added if i.name in used]
    graph = helper.make_graph(nodes, model.graph.name, model.graph.input, model.graph.output, kept)
    imports = list(model.opset_import)
    if all(o.domain != _MS for o in imports):
        imports.append(helper.make_opsetid(_MS, 1))
    quantized_model = helper.make_model(graph, opset_imports=imports)
    quantized_model.ir_version = model.ir_version
    return quantized_model


def _quantize(source: Path, target: Path) -> None:
    import onnx

    _save(quantize_graph(onnx.load(str(source))), target)


def _save(model: onnx.ModelProto, target: Path) -> None:
    import onnx

    # The weights in a file of their own: ONNX Runtime maps it rather than copying it
    # out of the model's protobuf, so a session loads faster and peaks lower.
    onnx.save_model(
        model,
        str(target),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=target.name + ".data",
        size_threshold=1024,
    )


def _key(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def built_model(
    files: ModelFiles, *, quantize: bool = False, rebuild: bool = False
) -> tuple[Path, bool]:
    """An ONNX file for the model: its own ONNX file, or one built from safetensors (with
    pooling and normalisation inside), int8 when `quantize`. Returns the path and whether
    the graph pools by itself (output `sentence_embedding`). `rebuild` first removes the
    files built for this model (a damaged build is built again)."""
    if files.onnx is not None:
        if not quantize:
            return files.onnx, False
        key = _key({"onnx": content_digest(files.onnx), "quantize": _SCHEME})
        target = models_dir() / key / "model.onnx"
        if rebuild:
            _remove(target)
        if not target.is_file():
            status(f"quantizing the ONNX model of {files.origin} (once, kept in the cache)…")
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
    target = models_dir() / _key({"float": float_key, "quantize": _SCHEME}) / "model.onnx"
    if rebuild:
        _remove(source)
        _remove(target)
    if not source.is_file():
        status(f"building the ONNX model of {files.origin} (once, kept in the cache)…")
        _build(files, source)
    if not quantize:
        return source, True
    if not target.is_file():
        status(f"quantizing the ONNX model of {files.origin} (once, kept in the cache)…")
        with _building(target) as scratch:
            _quantize(source, scratch / target.name)
    return target, True


def is_built(path: Path) -> bool:
    """Whether `path` is a file this module built (in `models_dir()`)."""
    return path.resolve().is_relative_to(models_dir().resolve())


def _remove(target: Path) -> None:
    """Remove a built model's folder (its ONNX file and weights)."""
    import shutil

    try:
        shutil.rmtree(target.parent)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise ConfigError(
            f"cannot remove the damaged built model {target.parent}: {error}; "
            "`toolscout cache clear onnx` removes the built models"
        ) from None


def _build(files: ModelFiles, target: Path) -> None:
    assert files.weights is not None
    model = build_bert_graph(
        read_safetensors(files.weights),
        files.config,
        pooling=files.pooling,
        normalize=files.normalized,
    )
    with _building(target) as scratch:
        _save(model, scratch / target.name)
